// One lane of the verbs transport (one ACTIVE port) and one endpoint on it
// (the RC queue pair toward one peer): the verbs objects each owns, how
// they are created, how a queue pair walks its plan (verbs_qp_plan.hpp) to
// RTS, and how work requests (verbs_wr.hpp) and receive segments are
// posted.
//
// Per lane: a send CQ and a receive CQ, a shared receive queue with
// plan_srq()'s segments of kSegment bytes in one registered slab, and a
// pool of kBounceCount registered bounce buffers of kSegment bytes (am
// bcopy, the headers of am zcopy, and short messages above the inline
// limit). Per endpoint: an RC queue pair on the lane's CQs and SRQ, with
// no receive queue of its own.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "runtime/verbs/verbs_credits.hpp"
#include "runtime/verbs/verbs_ibv.hpp"
#include "runtime/verbs/verbs_qp_plan.hpp"
#include "runtime/verbs/verbs_queues.hpp"
#include "runtime/verbs/verbs_rcache.hpp"
#include "runtime/verbs/verbs_wr.hpp"

namespace xover::runtime::verbs {

inline constexpr std::uint32_t kSegment = 8192;        ///< receive segment and bounce buffer, wire header included
inline constexpr std::uint32_t kBounceCount = 1024;
inline constexpr std::uint32_t kSignalEvery = 64;
inline constexpr std::uint32_t kWantInline = 256;      ///< asked for; the QP says what it got

class Lane {
 public:
  /// Creates the lane's CQs, SRQ, segments and bounce buffers on `device`'s
  /// port `info`, sized for `peers` peers. Throws RuntimeError naming the
  /// lane and the verbs call that failed.
  Lane(Device& device, const PortInfo& info, std::uint32_t peers);

  const std::string& name() const { return name_; }
  Device& device() const { return *device_; }
  const PortInfo& port() const { return port_; }
  ibv_cq* send_cq() const { return send_cq_.get(); }
  ibv_cq* recv_cq() const { return recv_cq_.get(); }
  std::uint16_t window() const { return window_; }
  std::uint32_t send_queue() const { return send_queue_; }

  /// The bytes of receive segment `index`.
  std::byte* segment(std::uint32_t index) const { return segments_.get() + std::size_t{index} * kSegment; }
  RecvSegments& segments() { return segments_state_; }
  /// Posts what RecvSegments::refill() hands out; an errno on failure.
  int refill();

  std::byte* bounce(std::uint32_t index) const { return bounce_.get() + std::size_t{index} * kSegment; }
  std::uint32_t bounce_lkey() const { return bounce_mr_->lkey; }
  BouncePool& bounce_pool() { return bounce_pool_; }

  /// A new RC queue pair in RESET on this lane; `max_inline` gets what the
  /// device granted (kWantInline or less, down to 0).
  QpPtr create_qp(std::uint32_t& max_inline);

 private:
  std::string name_;
  Device* device_;
  PortInfo port_;
  std::uint16_t window_ = 0;
  std::uint32_t send_queue_ = 0;
  CqPtr send_cq_;
  CqPtr recv_cq_;
  SrqPtr srq_;
  Slab segments_;
  MrPtr segments_mr_;
  RecvSegments segments_state_;
  std::vector<ibv_recv_wr> recv_wrs_;
  std::vector<ibv_sge> recv_sges_;
  Slab bounce_;
  MrPtr bounce_mr_;
  BouncePool bounce_pool_;
};

/// Walks a queue pair through one step of its plan; an errno on failure.
int modify_qp(ibv_qp* qp, const QpPlan& plan, const QpStep& step);

/// Posts `wrs` as one chain (ibv_post_send); an errno on failure.
int post_send(ibv_qp* qp, std::span<const WorkRequest> wrs);

/// Registers [start, start + length) on `device`'s protection domain for
/// local write and remote read and write (and atomics, when the device has
/// them); MrKeys without a handle, errno set, on failure.
MrKeys register_memory(const Device& device, std::uintptr_t start, std::size_t length);
void deregister_memory(const MrKeys& keys);

/// Whether `device`'s port can address packets from `gid`: ibv_create_ah
/// toward the GID itself (the kernel resolves its interface and route).
bool gid_works(const Device& device, std::uint8_t port, const GidEntry& gid);

}  // namespace xover::runtime::verbs
