// The verbs Transport behind make_verbs_transport() (verbs_transport.hpp):
// what the wire-up builds (Fabric; verbs_wireup.cpp, verbs_measure.cpp)
// and the data path over it (verbs_transport.cpp). Internal to the runtime
// library.
#pragma once

#include <array>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "runtime/bootstrap.hpp"
#include "runtime/common.hpp"
#include "runtime/verbs/verbs_lane.hpp"
#include "runtime/verbs/verbs_rcache.hpp"

namespace xover::runtime::verbs {

/// One RC queue pair toward one peer on one lane, and what it keeps.
struct Endpoint {
  Endpoint(Rank peer, std::size_t lane, std::uint32_t send_queue, std::uint8_t max_reads, std::uint16_t window)
      : peer(peer), lane(lane), max_reads(max_reads), tracker(send_queue, kSignalEvery, max_reads),
        credits(window, window) {}

  Rank peer;
  std::size_t lane;
  QpPtr qp;
  std::uint32_t max_inline = 0;  ///< at most kWantInline
  std::uint8_t max_reads;        ///< RDMA reads and atomics in flight at once (the plan's max_rd_atomic)
  SendTracker tracker;
  Credits credits;
  bool grant_queued = false;     ///< in the transport's list of explicit grants to send
};

/// What this rank knows of another rank's process.
struct PeerInfo {
  std::uint32_t pid = 0;
  bool same_host = false;  ///< its pid can be checked here
};

/// This rank's signal words (Transport::signal_word), one per cache line,
/// and behind them the 8 bytes where every fetch-and-add's old value lands
/// (unread): one slab, registered on every device with remote atomic access.
inline constexpr std::uint32_t kSignalWords = 64;
inline constexpr std::uint32_t kSignalStride = 64;
inline constexpr std::size_t kSignalSlab = std::size_t{kSignalWords} * kSignalStride + 64;

/// Everything the wire-up builds. Members are released in reverse order:
/// queue pairs, then lanes (SRQs, CQs, segments, bounce buffers), then
/// cached registrations, then the signal words' registrations and slab,
/// then protection domains and contexts.
struct Fabric {
  std::vector<std::unique_ptr<Device>> devices;
  Slab signal_slab;                                          ///< kSignalSlab bytes
  std::vector<MrPtr> signal_mrs;                             ///< per device
  std::vector<std::unique_ptr<RegCache>> rcaches;           ///< per device
  std::vector<std::unique_ptr<Lane>> lanes;
  std::vector<std::size_t> lane_device;                      ///< per lane, its device's index
  std::vector<std::unique_ptr<Endpoint>> endpoints;          ///< [lane * size + peer]; null toward this rank
  std::vector<std::unordered_map<std::uint32_t, std::uint32_t>> qp_endpoint;  ///< per lane: QPN → endpoint index
  std::vector<Path> paths;                                   ///< per peer
  std::vector<PeerInfo> peers;
  std::vector<std::uint64_t> peer_signal_addr;               ///< per peer: where its signal words start
  std::vector<std::uint32_t> peer_signal_rkey;               ///< [lane * size + peer]: their rkey on that lane
};

class VerbsTransport final : public Transport {
 public:
  VerbsTransport(Rank rank, Rank size, Seconds timeout, Fabric fabric);
  ~VerbsTransport() override = default;
  VerbsTransport(const VerbsTransport&) = delete;
  VerbsTransport& operator=(const VerbsTransport&) = delete;

  Rank rank() const override { return rank_; }
  Rank size() const override { return size_; }
  const Path& path(Rank peer) const override { return f_.paths.at(peer); }
  void set_am_handler(AmId id, AmHandler handler) override { handlers_[id] = std::move(handler); }
  Status am_send(std::size_t lane, Rank peer, AmId id, std::span<const std::byte> header, ConstBuffer payload,
                 AmMode mode, Completion done) override;
  Status get(std::size_t lane, Rank peer, MutableBuffer local, RemoteAddr remote, Completion done) override;
  Status put(std::size_t lane, Rank peer, ConstBuffer local, RemoteAddr remote, Completion done) override;
  /// An RDMA WRITE, then on the same queue pair a FETCH_AND_ADD on the
  /// peer's signal word, fenced, signalled: `done` is the add's completion.
  /// `local` need not be registered: when it is not, it is for the
  /// operation's duration.
  Status put_signal(std::size_t lane, Rank peer, ConstBuffer local, RemoteAddr remote, RemoteAddr signal,
                    std::uint64_t value, Completion done) override;
  /// A word of the registered signal slab (kSignalWords of them); none
  /// when a device has no atomics.
  SignalWord signal_word() override;
  MemoryRegion reg(Rank peer, std::size_t lane, const std::byte* base, Bytes size) override;
  void dereg(const MemoryRegion& region) override;
  /// Only for memory xover owns (host_memory.hpp): other memory may be
  /// unmapped and mapped again behind a kept registration.
  bool reg_may_outlive_use(const std::byte* base, Bytes size) const override;
  RemoteAddr remote_addr(const MemoryRegion& region, const std::byte* base) const override {
    return {region.key & 0xffffffffU, reinterpret_cast<std::uint64_t>(base)};
  }
  void copy(std::byte* dst, const std::byte* src, Bytes n) override;
  void progress(Seconds deadline) override;
  Seconds now() const override { return clock_now(); }
  /// True once every request posted on every queue pair is known to be
  /// done. Asking is what starts a flush: progress() then follows requests
  /// that nothing signals with a signalled zero-byte write.
  bool flushed() const override;

 private:
  struct RegSlot {
    RegCache::Region* region = nullptr;
    std::size_t device = 0;
  };

  Endpoint* endpoint(std::size_t lane, Rank peer) {
    return lane < f_.lanes.size() && peer < size_ ? f_.endpoints[lane * size_ + peer].get() : nullptr;
  }
  std::uint32_t index_of(const Endpoint& ep) const { return static_cast<std::uint32_t>(ep.lane * size_ + ep.peer); }
  /// The local key of a registered buffer on `lane`'s device, or false.
  bool local_key(std::size_t lane, const void* data, Bytes size, std::uint32_t& lkey) const;
  /// Records a request in the endpoint's tracker and posts `make(record)`
  /// (post_tracked): on a refusal by the HCA the record is forgotten, the
  /// bounce buffer given back, then the transport failed; false then.
  template <typename Make>
  bool post_one(Endpoint& ep, SendRecord::Op op, std::uint32_t bounce, Completion done, bool force_signal,
                const char* what, Make&& make);
  /// The 8-byte grant message; false when the queue pair has no room.
  bool send_grant(Endpoint& ep);
  bool poll_recv(std::size_t lane);
  void deliver(Endpoint& ep, std::uint32_t segment, std::uint32_t length);
  bool poll_send(std::size_t lane);
  void send_grants();
  void flush_tails();
  /// The signal word at `addr` of `peer`, on `lane`: its rkey, or false
  /// when `addr` is no word of the peer's.
  bool signal_rkey(std::size_t lane, Rank peer, std::uint64_t addr, std::uint32_t& rkey) const;
  void watch();
  void check_async_events();
  /// Fails the transport with `why`, once: every pending completion is
  /// called with Error and nothing more moves.
  void abandon(std::string why);
  std::string where(const Endpoint& ep) const;
  void run_due();

  Rank rank_;
  Rank size_;
  IdleWatch idle_;
  Fabric f_;
  std::array<AmHandler, 256> handlers_;
  std::vector<RegSlot> slots_;
  std::vector<std::uint32_t> free_slots_;
  std::vector<std::uint32_t> grants_due_;   ///< endpoints with an explicit grant to send
  std::vector<std::uint32_t> grants_left_;
  std::vector<std::pair<Completion, Status>> due_;
  std::vector<std::pair<Completion, Status>> running_;
  mutable bool flush_wanted_ = false;
  bool in_progress_ = false;
  bool moved_ = true;
  ProgressWatch progress_watch_;
  Seconds last_alive_check_ = 0;
  std::uint32_t signal_words_ = 0;  ///< handed out so far
  /// Taken by every call: put_signal may come from several threads while
  /// one is in progress() (transport.hpp); completions run under it and
  /// may call again.
  mutable std::recursive_mutex mutex_;
};

template <typename Make>
bool VerbsTransport::post_one(Endpoint& ep, SendRecord::Op op, std::uint32_t bounce, Completion done,
                              bool force_signal, const char* what, Make&& make) {
  BouncePool* pool = bounce != kNone ? &f_.lanes[ep.lane]->bounce_pool() : nullptr;
  const int error = post_tracked(ep.tracker, pool, op, bounce, std::move(done), force_signal,
                                 [&](const SendRecord& r) {
                                   const WorkRequest wr = make(r);
                                   return post_send(ep.qp.get(), {&wr, 1});
                                 });
  if (error != 0) {
    abandon(where(ep) + ": ibv_post_send of a " + what + " failed: " + errno_text(error));
    return false;
  }
  moved_ = true;
  return true;
}

}  // namespace xover::runtime::verbs
