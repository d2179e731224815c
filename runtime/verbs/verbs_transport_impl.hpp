// The verbs Transport behind make_verbs_transport() (verbs_transport.hpp):
// what the wire-up builds (Fabric; verbs_wireup.cpp, verbs_measure.cpp)
// and the data path over it (verbs_transport.cpp). Internal to the runtime
// library.
#pragma once

#include <array>
#include <memory>
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
      : peer(peer), lane(lane), max_reads(max_reads), tracker(send_queue, kSignalEvery, max_reads), credits(window) {}

  Rank peer;
  std::size_t lane;
  QpPtr qp;
  std::uint32_t max_inline = 0;  ///< at most kWantInline
  std::uint8_t max_reads;        ///< RDMA reads in flight at once (the plan's max_rd_atomic)
  SendTracker tracker;
  Credits credits;
  bool grant_queued = false;     ///< in the transport's list of explicit grants to send
};

/// What this rank knows of another rank's process.
struct PeerInfo {
  std::uint32_t pid = 0;
  bool same_host = false;  ///< its pid can be checked here
};

/// Everything the wire-up builds. Members are released in reverse order:
/// queue pairs, then lanes (SRQs, CQs, segments, bounce buffers), then
/// cached registrations, then protection domains and contexts.
struct Fabric {
  std::vector<std::unique_ptr<Device>> devices;
  std::vector<std::unique_ptr<RegCache>> rcaches;           ///< per device
  std::vector<std::unique_ptr<Lane>> lanes;
  std::vector<std::size_t> lane_device;                      ///< per lane, its device's index
  std::vector<std::unique_ptr<Endpoint>> endpoints;          ///< [lane * size + peer]; null toward this rank
  std::vector<std::unordered_map<std::uint32_t, std::uint32_t>> qp_endpoint;  ///< per lane: QPN → endpoint index
  std::vector<Path> paths;                                   ///< per peer
  std::vector<PeerInfo> peers;
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
  MemoryRegion reg(Rank peer, std::size_t lane, const std::byte* base, Bytes size) override;
  void dereg(const MemoryRegion& region) override;
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

  /// Drops cached registrations overlapping the range (verbs_invalidate()).
  void invalidate(const void* base, Bytes size);

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
  /// Posts one request recorded in the endpoint's tracker; fails the
  /// transport when the HCA refuses it.
  bool post_one(Endpoint& ep, WorkRequest wr, const char* what);
  /// The 8-byte grant message; false when the queue pair has no room.
  bool send_grant(Endpoint& ep);
  bool poll_recv(std::size_t lane);
  void deliver(Endpoint& ep, std::uint32_t segment, std::uint32_t length);
  bool poll_send(std::size_t lane);
  void send_grants();
  void flush_tails();
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
  unsigned idle_polls_ = 0;
  Seconds last_alive_check_ = 0;
};

}  // namespace xover::runtime::verbs
