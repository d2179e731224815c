// The Transport over SimGrid's S4U: one actor per rank, lanes are rails (a
// host per NIC), and every LogGP cost is paid in simulated time.
//
//   o_send, o_recv, copies, registration: the rank's actor sleeps (it is
//       busy); a rank's CPU work is serial. An operation's o_send is paid
//       in two parts: o_send − o_send_after before its transfer starts,
//       o_send_after after it (LaneAttrs::o_send_after). A bcopy message's
//       sender copy is paid only where the lane's transport makes one
//       (LaneAttrs::bcopy_copies).
//   g: each NIC keeps the date it is next free; an injection waits for it
//       and moves it by max(g, n/B), so back-to-back messages leave FIFO.
//   L + n/B: a host-to-host transfer of header + payload bytes between the
//       two NICs, started at send time (eager data moves before the
//       receiver posts), sharing links with other flows as SimGrid's CM02
//       model computes. An RDMA read is a request (wire::kRmaHdr bytes) one
//       way and the data the other.
//
//   put_signal: a work request in the NIC's queue. It costs the caller no
//       CPU time (the caller charges its own: the alltoall's o_d or o_p,
//       through SimThreads); the NIC injects it in turn, n bytes with no
//       header, and at its landing the target's memory gets the bytes and
//       then the add; the initiator's completion comes at that landing. One
//       of no bytes lands the lane's latency after its injection (SimGrid
//       3.32 never completes a transfer of no bytes).
//
// The header and payload contents travel beside the transfer, through this
// process's memory; payloads may be phantom (a size without bytes). The
// receiver waits for its incoming transfers itself. A waiting receiver
// also waits on a slot, a transfer it made and did not start: the next
// sender starts its transfer in it, and the receiver wakes once, when that
// lands. A sender that adds another while the receiver waits, or an event
// that comes with no transfer, rings the receiver's bell. A rank's threads
// (SimThreads) are actors that share its transport; only one of them at a
// time calls progress().
#pragma once

#include <simgrid/s4u.hpp>

#include <boost/container/small_vector.hpp>

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

#include "protocols/core/transport.hpp"
#include "protocols/select/table_store.hpp"
#include "sim/sim_device_memory.hpp"
#include "sim/platform_loader.hpp"
#include "sim/sim_threads.hpp"

namespace xover::sim {

class SimTransport;

/// The simulated machine of one run: the platform, the node each rank runs
/// on, the NICs' next free dates, and every rank's transport.
class SimNetwork {
 public:
  /// `rank_nodes[r]` is the node that rank r runs on.
  SimNetwork(const LogGPPlatform& platform, std::vector<std::string> rank_nodes);
  ~SimNetwork();
  SimNetwork(const SimNetwork&) = delete;
  SimNetwork& operator=(const SimNetwork&) = delete;

  Rank size() const { return static_cast<Rank>(rank_nodes_.size()); }
  const LogGPPlatform& platform() const { return platform_; }
  SimTransport& transport(Rank r) { return *transports_[r]; }
  simgrid::s4u::Host* host(Rank r) const { return hosts_[r]; }
  /// The thresholds tables of every rank's Workers: ranks on alike routes
  /// (their lanes alike but for their links' names) share one.
  TableStore& tables() { return tables_; }
  const std::string& node(Rank r) const { return rank_nodes_[r]; }

  /// Lanes and NIC hosts between the nodes of two ranks: a view into the
  /// network's tables, valid while it lives.
  struct Route {
    const Path* path = nullptr;  ///< shared by every route from its node with the same lanes and NICs
    /// The same lanes and figures without their names (Path::costs), shared
    /// by every route of the network that costs the same and takes the same
    /// NICs, whatever its source: what the data path reads, so that P ranks
    /// on alike routes read one copy, not P.
    const Path* costs = nullptr;
    const std::vector<std::pair<std::uint32_t, std::uint32_t>>* nic_index = nullptr;  ///< per lane: NIC indices
    const std::vector<simgrid::s4u::Host*>* src_nics = nullptr;  ///< the source node's NIC hosts
    const std::vector<simgrid::s4u::Host*>* dst_nics = nullptr;  ///< the destination node's
    /// Lane `lane`'s (source NIC, destination NIC).
    std::pair<simgrid::s4u::Host*, simgrid::s4u::Host*> nics(std::size_t lane) const {
      const auto [a, b] = (*nic_index)[lane];
      return {(*src_nics)[a], (*dst_nics)[b]};
    }
  };
  /// Computed once per pair of nodes, then a look-up in a table of a byte
  /// per pair.
  Route route(Rank from, Rank to);

  /// Books `nic` for one injection of `bytes` at `bandwidth` with gap `gap`,
  /// first come first served, and returns its date: when the NIC is next
  /// free, or now. The NIC is then busy for max(g, n/B).
  Seconds book(simgrid::s4u::Host* nic, Bytes bytes, BytesPerSecond bandwidth, Seconds gap);
  /// book(), then waits (in simulated time, on the calling actor) for the date.
  void inject(simgrid::s4u::Host* nic, Bytes bytes, BytesPerSecond bandwidth, Seconds gap);

 private:
  const LogGPPlatform& platform_;
  std::vector<std::string> rank_nodes_;
  std::vector<simgrid::s4u::Host*> hosts_;
  std::vector<std::unique_ptr<SimTransport>> transports_;
  /// What routes that cost the same and take the same NICs share, from
  /// whichever source: their costs (Path::costs) and each lane's NIC indices.
  struct Form {
    Path costs;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> nic_index;
  };
  std::vector<std::unique_ptr<Form>> forms_;
  /// A route's lanes as named from its source, shared by the routes of one
  /// source node that have the same lanes and NICs, and its form (first:
  /// what the data path reads).
  struct Shape {
    const Form* form = nullptr;
    Path path;
  };
  /// The form of `costs` and `nic_index`, made when there is none.
  const Form* form(Path costs, std::vector<std::pair<std::uint32_t, std::uint32_t>> nic_index);
  std::vector<std::uint32_t> node_index_;  ///< per rank: its node's index in the platform's nodes()
  std::vector<std::vector<simgrid::s4u::Host*>> nic_hosts_;  ///< per platform node: its NIC hosts
  /// Per source node, per destination node: 1 + its shape's index in
  /// shapes_[source], or 0 before the first use; a byte, which says kWide
  /// when the index is kept in wide_shape_of_ instead (a node with more
  /// than 254 shapes). A source's row is allocated at its first route.
  std::vector<std::vector<std::uint8_t>> shape_of_;
  static constexpr std::uint8_t kWide = 255;
  std::unordered_map<std::uint64_t, std::uint32_t> wide_shape_of_;  ///< by source << 32 | destination
  std::vector<std::vector<std::unique_ptr<Shape>>> shapes_;  ///< per source node: its distinct shapes
  struct KeyHash {
    std::size_t operator()(const LogGPPlatform::RouteKey& key) const {
      std::size_t h = key.size();
      for (const std::uint64_t word : key)
        h = (h ^ word) * 0x100000001b3ULL;
      return h;
    }
  };
  /// Each route key met so far (LogGPPlatform::route_key) and its shape's
  /// 1 + index in shapes_[source].
  std::unordered_map<LogGPPlatform::RouteKey, std::uint32_t, KeyHash> shape_of_key_;
  /// Per source node, the key of its last pair met for the first time and
  /// that key's shape (1 + index, or 0 before the first): where the next
  /// pair's key is the same, as every pair of a cluster's is, it takes that
  /// shape without a look-up in shape_of_key_. A pair meets its route once,
  /// so an exchange with every peer pays this per message: the key is kept
  /// in the entry itself (a star route's is six words), not in memory of
  /// its own that the comparison would fetch as well.
  struct LastKey {
    boost::container::small_vector<std::uint64_t, 6> key;
    std::uint32_t shape = 0;
    void set(const LogGPPlatform::RouteKey& new_key, std::uint32_t new_shape) {
      key.assign(new_key.begin(), new_key.end());
      shape = new_shape;
    }
  };
  std::vector<LastKey> last_key_;
  LogGPPlatform::RouteKey key_;  ///< shape()'s key, its storage kept from call to call
  /// shape_of_ for a pair met for the first time.
  std::uint32_t shape(std::uint32_t a, std::uint32_t b);
  std::unordered_map<simgrid::s4u::Host*, Seconds> nic_free_;
  TableStore tables_;
};

/// Runs `body(rank, transport)` on one actor per rank, each on its node's
/// host, until every one returns. Simulated time goes on from where it was,
/// so one process may run many of these on one platform.
void run_ranks(SimNetwork& network, const std::function<void(Rank, Transport&)>& body);

class SimTransport final : public Transport {
 public:
  SimTransport(SimNetwork& network, Rank rank);

  Rank rank() const override { return rank_; }
  Rank size() const override { return network_.size(); }
  const Path& path(Rank peer) const override { return *network_.route(rank_, peer).path; }
  TableStore* shared_tables() override { return &network_.tables(); }
  void set_am_handler(AmId id, AmHandler handler) override {
    if (id >= handlers_.size())
      handlers_.resize(id + 1);
    handlers_[id] = std::move(handler);
  }
  Status am_send(std::size_t lane, Rank peer, AmId id, std::span<const std::byte> header, ConstBuffer payload,
                 AmMode mode, Completion done) override;
  Status get(std::size_t lane, Rank peer, MutableBuffer local, RemoteAddr remote, Completion done) override;
  Status put(std::size_t lane, Rank peer, ConstBuffer local, RemoteAddr remote, Completion done) override;
  Status put_signal(std::size_t lane, Rank peer, ConstBuffer local, RemoteAddr remote, RemoteAddr signal,
                    std::uint64_t value, Completion done) override;
  /// A word of this process's memory; as many as asked for. put_signal
  /// refuses (Error) a word its target did not hand out.
  SignalWord signal_word() override;
  /// Actors on the rank's host, charged its node's device figures.
  RankThreads& threads() override { return threads_; }
  MemoryRegion reg(Rank peer, std::size_t lane, const std::byte* base, Bytes size) override;
  void dereg(const MemoryRegion&) override {}
  RemoteAddr remote_addr(const MemoryRegion& region, const std::byte* base) const override;
  void copy(std::byte* dst, const std::byte* src, Bytes n) override;
  void progress(Seconds deadline) override;
  Seconds now() const override { return simgrid::s4u::Engine::get_clock() + debt_; }
  /// Transfers start when they are sent: nothing waits here.
  bool flushed() const override { return true; }

  /// Drops the bell when the rank's body ends: a suspended activity left
  /// behind would read to SimGrid as a deadlock.
  void quiesce();

 private:
  /// One transfer this rank waits for. An active message's fields come
  /// first; those past `bytes` only a zero-copy message, a get, a put or a
  /// put_signal writes, and says so in `tail_used`, so that recycle() leaves
  /// them alone after an eager message (at P = 1024 every flight is cold
  /// again by its next use, and each line it touches is a miss).
  struct Flight {
    /// GetServe: a read request at a target that serves it with its CPU
    /// (LaneAttrs::get_served), which sends the data back as GetData.
    enum class Kind : std::uint8_t { Am, GetRequest, GetServe, GetData, PutData, PutSignal };
    Kind kind = Kind::Am;
    AmId id = 0;
    bool phantom = false;
    bool tail_used = false;              ///< a field past `bytes` was written
    Rank peer = 0;                       ///< the other end
    std::size_t lane = 0;
    Bytes size = 0;
    Seconds o_recv = 0;                  ///< the lane's cost to take it in, at the receiving end
    simgrid::s4u::CommPtr comm;
    boost::container::small_vector<std::byte, 64> header;
    boost::container::small_vector<std::byte, 128> bytes;  ///< the payload, copied (short, bcopy, or zcopy on arrival)

    const std::byte* zcopy_src = nullptr;
    SimTransport* sender = nullptr;      ///< zcopy: whom to tell
    Completion done;                     ///< sender's zcopy completion, or the initiator's get/put
    double factor = 1;                   ///< get: the pace of its message's bytes on its lane, for the data coming back
    double copy_pace = 1;                ///< served get: the pace of its message's copies (Path::message_factor)
    std::byte* get_dst = nullptr;
    RemoteAddr remote;
    RemoteAddr signal;                   ///< put_signal: the target's word
    std::uint64_t value = 0;             ///< put_signal: what to add
  };
  /// Something ready to run on this rank's CPU.
  struct Event {
    std::unique_ptr<Flight> arrived;     ///< an active message, or null
    Completion done;                     ///< otherwise a completion
    Status status = Status::Ok;
    Seconds cpu = 0;                     ///< CPU time to take it in
  };

  /// The pace of the copies of an operation of `size` bytes on `path`: its
  /// message's factor (Path::message_factor_at), the operation being its
  /// own message where the core says none (Transport::message_size).
  double factor(const Path& path, Bytes size) const;
  /// The pace of the transfers of the same on `lane` of `path`: the lane's
  /// own factor at the message's size where it has one, else factor().
  double lane_factor(const Path& path, const LaneAttrs& lane, Bytes size) const;
  void busy(Seconds t);
  void settle();
  /// Adds `flight`, a transfer to this rank, and starts it, in this rank's
  /// slot when it has one.
  void incoming(std::unique_ptr<Flight> flight, simgrid::s4u::Host* src, simgrid::s4u::Host* dst, Bytes bytes,
                double rate);
  /// Waits until a transfer of this rank lands, the bell rings or `deadline` passes.
  void wait(Seconds deadline);
  /// Rings the bell of a waiting rank.
  void ring();
  void add_flight(std::unique_ptr<Flight> flight);
  void add_event(Event event);
  void landed(std::unique_ptr<Flight> flight);
  /// A served get's request, taken in (its o_r and the reply's post before
  /// it leaves are paid): the data goes back to the initiator, then the
  /// rest of the reply's send is this rank's (LaneAttrs::get_served).
  void serve_get(std::unique_ptr<Flight> flight);
  /// put_signal at its landing: the bytes, then the add, then the
  /// initiator's completion.
  void land_signal(Flight& flight);
  void land_finished(std::size_t first);

  SimNetwork& network_;
  Rank rank_;
  std::unique_ptr<SimDeviceMemory> device_;
  BytesPerSecond memcpy_bw_;
  SizeSteps memcpy_steps_;  ///< memcpy_bw_ by the size of the copy, where it changes with it
  SizeSteps bw_factor_;     ///< the node's own message factor, for a copy of no message of a peer's
  std::vector<AmHandler> handlers_;  ///< by AM id, as far as the largest id set: 8 KiB less per rank than all 256
  std::unique_ptr<Flight> new_flight();
  /// Keeps `flight` for the next new_flight(), as a new one but for the
  /// capacity of its byte vectors; SimGrid's transfer is let go here.
  void recycle(std::unique_ptr<Flight> flight);

  std::vector<std::unique_ptr<Flight>> flights_;
  std::vector<std::unique_ptr<Flight>> spare_;   ///< landed flights, for reuse
  std::vector<simgrid::s4u::ActivityPtr> activities_;  ///< progress()'s wait list, kept for its capacity
  /// Events from ready_head_ on, in order: a vector, not a deque, which
  /// would hold a block per rank from its construction.
  std::vector<Event> ready_;
  std::size_t ready_head_ = 0;
  bool has_ready() const { return ready_head_ < ready_.size(); }
  simgrid::s4u::ExecPtr bell_;
  aid_t bell_owner_ = 0;  ///< the actor that armed the bell
  /// A transfer made, not started, by this rank when it waits, and waited
  /// on with the others: the next sender to this rank starts its transfer
  /// in it, so that the wait ends when that lands (one wake-up, where the
  /// bell would wake the rank at the send and again at the landing).
  simgrid::s4u::CommPtr slot_;
  const simgrid::s4u::Comm* waited_slot_ = nullptr;  ///< the slot of the wait under way
  bool waiting_ = false;
  Seconds debt_ = 0;  ///< CPU time owed, slept at the next send or wait
  std::uint64_t next_key_ = 1;
  std::vector<std::unique_ptr<std::uint64_t>> signals_;  ///< signal words, each where it was made
  SimThreads threads_;
};

}  // namespace xover::sim
