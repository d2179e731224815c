// The Worker: tagged send and receive over a Transport, after UCP. It owns
// the requests, selects a protocol per send from the thresholds table of the
// peer, matches incoming messages against posted receives in the order the
// sender sent them, and drives every protocol's stages from progress().
//
//   Worker w(transport, config);
//   Request* s = w.tag_send(peer, {buf, n}, tag);
//   Request* r = w.tag_recv({buf, n}, tag, mask);
//   while (!s->done || !r->done) w.progress();
//   w.release(s); w.release(r);
#pragma once

#include <algorithm>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "protocols/core/arrived.hpp"
#include "protocols/core/fifo.hpp"
#include "protocols/core/peer_states.hpp"
#include "protocols/core/reg_cache.hpp"
#include "protocols/core/request.hpp"
#include "protocols/core/transport.hpp"
#include "protocols/select/table_store.hpp"
#include "protocols/select/threshold_table.hpp"

namespace xover {

/// Counters a workload reports.
struct WorkerStats {
  Bytes buffered_now = 0;        ///< bytes held for unexpected or early messages
  Bytes buffered_peak = 0;       ///< the most ever held at once
  std::size_t unexpected = 0;    ///< messages that arrived before their receive
  std::size_t bad_headers = 0;   ///< active messages dropped for a malformed header
};

/// A message on its way in, from its first byte (or RTS) until it is bound
/// to a receive and, for eager protocols, complete.
struct Incoming {
  Rank source = 0;
  std::uint64_t seq = 0;
  Tag tag = 0;
  Bytes size = 0;
  /// Rendezvous: the protocol whose receive stages run once matched; null
  /// for eager messages, whose bytes come with them.
  const Protocol* rndv = nullptr;
  std::vector<std::size_t> remote_lanes;  ///< rendezvous: the lanes the sender registered on
  std::vector<RemoteAddr> remote;     ///< rendezvous: the sender's buffer, per lane
  Request::Id remote_id = 0;          ///< rendezvous: the sender's request

  // Kept by the worker.
  bool matched = false;               ///< bound to a receive or queued as unexpected
  Request* request = nullptr;         ///< the receive, once bound
  /// Eager bytes that came before the receive, one piece per fragment, so
  /// that what is held is what arrived, whatever size the header claims.
  struct Piece {
    Bytes offset = 0;
    Bytes length = 0;
    std::vector<std::byte> bytes;  ///< empty for a phantom payload
  };
  std::vector<Piece> held;
  Arrived arrived;                    ///< eager bytes arrived so far, each once
};

class Worker {
 public:
  /// How far past the next message to match a message may be numbered
  /// (messages from one peer that came before an earlier one began); a
  /// header past it is corrupt, and dropped.
  static constexpr std::uint64_t kMaxEarly = std::uint64_t{1} << 20;

  Worker(Transport& transport, SelectConfig config);
  /// Flushes (see flush()), then leaves the transport handlers that drop
  /// what still arrives.
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  /// Starts sending `buffer` to `peer` with `tag`; the request completes
  /// when the buffer may be reused.
  Request* tag_send(Rank peer, ConstBuffer buffer, Tag tag);
  /// Posts a receive for the first message, from any peer, whose tag equals
  /// `tag` on the bits of `mask`.
  Request* tag_recv(MutableBuffer buffer, Tag tag, Tag mask = kTagMaskAll);
  /// Returns a completed request to the pool; one with device copies still
  /// in flight (a transport failure completes it at once) only once they
  /// have completed (copy_done).
  void release(Request* request);
  /// Progresses the transport once and retries sends that met back-pressure.
  /// Once the transport has failed (Transport::failure()), every request
  /// still open completes with Error here.
  void progress(Seconds deadline = Transport::kForever);
  /// Progresses until `request` is done.
  void wait(const Request* request);
  /// Progresses until every send handed to the worker has left this rank
  /// (none queued here, none in the transport's queues): what a rank does
  /// before it stops progressing, since a peer may still need those bytes.
  /// Returns at once when the transport has failed.
  void flush();

  /// Replaces the selection settings; only while no request is in flight.
  void configure(SelectConfig config);
  const SelectConfig& config() const { return config_; }
  /// The thresholds table toward `peer`, built on first use.
  const ThresholdTable& table(Rank peer) {
    const std::uint32_t index = peers(peer).table(peer);
    return index ? *tables_[index - 1] : build_table(peer);
  }
  /// The thresholds table of `mem` buffers toward `peer`: table(peer) for
  /// host memory; for device memory, the path with each end's device copy
  /// figures (the platform's, or those the rank's DeviceMemory measured,
  /// without IPC where it cannot reach the peer), built on first use.
  const ThresholdTable& table(Rank peer, MemType mem);
  const WorkerStats& stats() const { return stats_; }
  /// Starts a new peak of held bytes from what is held now.
  void reset_buffered_peak() { stats_.buffered_peak = stats_.buffered_now; }
  Transport& transport() { return transport_; }

  // The services below are for the protocols' stages (protocols/eager,
  // protocols/rndv), not for applications.

  /// Sends now, or queues behind earlier sends that met back-pressure; ops
  /// run in order. An op returns Ok, InProgress or NoResource.
  template <typename Op>
  void submit(Op&& op) {
    if (pending_.empty() && op() != Status::NoResource)
      return;  // the common case: no std::function, no allocation
    pending_.emplace_back(std::forward<Op>(op));
  }
  /// A message's header or first fragment arrived; binds it to a receive
  /// (or the unexpected queue) in sequence order, then delivers `payload` at
  /// `offset`. Eager messages complete when all their bytes are in.
  void arrive(const Incoming& header, Bytes offset, ConstBuffer payload);
  /// arrive() for a whole eager message, its header's fields as they came:
  /// the common case (its turn, its receive posted) builds no Incoming.
  void arrive_eager(Rank source, Tag tag, std::uint64_t seq, ConstBuffer payload);
  /// Copies what fits of `payload` (host memory) into the receive's buffer
  /// at `offset` — into device memory through the DeviceMemory when the
  /// buffer is there, failing the request if that copy fails — and counts
  /// it in `received` (a longer message is truncated there).
  void place(Request& r, Bytes offset, ConstBuffer payload);
  /// Marks `request` done, recording `status` when it is not Ok; a request
  /// already done is left as it is.
  void complete(Request& request, Status status = Status::Ok);
  /// The request with this id, if it is live and of this kind.
  Request* find(Request::Id id, RequestKind kind);
  /// Registers [base, base + size) on each of `request.lanes` toward its
  /// peer, into `request.regions` (whose capacity stays with the pooled
  /// request): from the registration cache when it is on.
  void reg(Request& request, const std::byte* base, Bytes size);
  /// Done with `request.regions`: deregistered when the cache is off,
  /// handed back to the cache (which may deregister them later) when on.
  void release_regions(Request& request);
  /// A device copy for `request` has started (DeviceMemory::copy_async
  /// returned InProgress).
  void copy_started(Request& request) { ++request.copies; }
  /// A device copy started for `request` has completed; its completion
  /// calls this first. False when the request has been released meanwhile:
  /// the completion then touches nothing of it (the copy's staging slot is
  /// still the completion's to give back), and the last such copy returns
  /// the request to the pool.
  bool copy_done(Request& request);
  /// The next lane of a striped transfer, by smooth weighted round-robin.
  std::size_t next_lane(Request& request);
  void count_bad_header() { ++stats_.bad_headers; }

 private:
  Request* allocate(RequestKind kind);
  /// Where `buffer` lives: device memory when the transport's DeviceMemory
  /// gave it, else host.
  MemType memory_of(const std::byte* data, Bytes size) const;
  const ThresholdTable& build_table(Rank peer);
  /// 1 + the index in tables_ of the table of `mem` buffers on a path that
  /// costs what `path` does, from the store (built there when it has none).
  std::uint32_t shared_table(const Path& path, MemType mem);
  void fail_requests();
  void match_in_order(Rank source);
  /// The first posted receive whose tag matches, taken off the posted queue;
  /// null when none does.
  Request* take_posted(Tag tag);
  void adopt(Request& r, const Incoming& in);
  void bind(Incoming& in, Request& request);
  void deliver(Incoming& in, Bytes offset, ConstBuffer payload);
  void finish_if_complete(Incoming& in);
  bool arrive_expected(Rank source, Tag tag, std::uint64_t seq, ConstBuffer payload);
  /// The live message (source, seq), or null.
  Incoming* live(Rank source, std::uint64_t seq);
  /// A live message made from `header`, from the pool; null (a corrupt
  /// header) when its number is past kMaxEarly ahead of the next to match.
  Incoming* make_live(const Incoming& header);
  /// The message is done or handed to its rendezvous stages: off the live
  /// list and back to the pool.
  void forget(const Incoming& in);
  void buffer_bytes(std::ptrdiff_t delta);
  bool tag_matches(const Request& r, Tag tag) const { return ((r.want ^ tag) & r.tag_mask) == 0; }

  // What an eager message touches comes first, in as few cache lines as it
  // fits: at P = 1024 in the simulator each rank's worker is cold again by
  // its next step, and every line it touches is a miss. What set-up, device
  // memory, rendezvous and registration use follows.
  Transport& transport_;
  /// What the worker keeps per peer (its table by 1 + index in tables_,
  /// its window in windows_), holding `r`'s.
  PeerStates& peers(Rank r) {
    if (r >= peers_.size())
      peers_.grow(std::max<std::size_t>(r + 1, transport_.size()));  // all at once: no doubling
    return peers_;
  }
  PeerStates peers_;
  /// The tables this worker uses, one per distinct path (peers on the same
  /// kind of route share one), each in store_; peers name them by index.
  std::vector<const ThresholdTable*> tables_;
  /// The Path object of the last host table built for a peer, and its
  /// table (1 + index): a transport that shares one object among peers
  /// on the same route (the simulator does) skips shared_table's search.
  const Path* last_path_ = nullptr;
  std::uint32_t last_path_table_ = 0;
  /// The last send's peer, memory, table, size and choice: a sender that
  /// repeats its peer skips the table's look-up, one that repeats its size
  /// toward peers of one table the table's search.
  Rank last_peer_ = 0;
  MemType last_mem_ = MemType::Host;
  const ThresholdTable* last_table_ = nullptr;
  Bytes last_size_ = 0;
  const ProtoChoice* last_choice_ = nullptr;
  std::vector<std::unique_ptr<Request>> pool_;
  std::vector<Request::Id> free_;
  Fifo<std::function<Status()>> pending_;
  // Matching: receives in post order; unexpected messages in match order;
  // every message from its first byte until done, per source (its window),
  // in Incomings from a pool.
  Fifo<Request*> posted_;
  Fifo<Incoming*> unexpected_;
  static constexpr std::uint32_t kNoWindow = PeerStates::kNoWindow;
  /// One peer's messages in from their first byte until done, by sequence
  /// number: slots[head + (seq - base)], null where none is (done, or not
  /// in yet). `base` never passes the peer's `expected`. Windows come from
  /// a pool and go back to it when their last message is done, so that a
  /// peer with none costs nothing but its index.
  struct LiveWindow {
    std::vector<Incoming*> slots;
    std::size_t head = 0;
    std::uint64_t base = 0;
    std::size_t count = 0;  ///< live messages in it
  };
  std::vector<LiveWindow> windows_;
  WorkerStats stats_;

  SelectConfig config_;
  /// Where the tables are kept: the transport's, shared with the other
  /// ranks of its process (Transport::shared_tables), else own_tables_.
  TableStore own_tables_;
  TableStore& store_;
  /// Per peer that device buffers went to: 1 + its table's index in tables_
  /// (only one memory type besides host so far).
  std::unordered_map<Rank, std::uint32_t> device_tables_;
  std::vector<std::uint32_t> free_windows_;
  std::vector<std::unique_ptr<Incoming>> incoming_pool_;
  std::vector<Incoming*> spare_incoming_;
  RegCache reg_cache_;
  std::vector<MemoryRegion> evicted_;  ///< the cache's leftovers to deregister, kept for its capacity
};

}  // namespace xover
