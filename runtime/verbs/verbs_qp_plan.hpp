// How an RC queue pair of the verbs transport goes from RESET to RTS, as
// data: which attributes each ibv_modify_qp step sets and their values,
// computed from the two ends' address cards. Device-free and unit-tested;
// verbs_lane.cpp turns a plan into ibv_qp_attr and the IBV_QP_* mask.
//
//   RESET → INIT  pkey index 0, the port, access: local write, remote
//                 read, remote write, remote atomic
//   INIT → RTR    the address vector (InfiniBand: the peer's LID, no GRH,
//                 one subnet only; RoCE: a GRH with the peer's GID, this
//                 port's GID index, hop limit 64, the port's traffic
//                 class), path MTU = the smaller
//                 active MTU, the peer's QPN, rq_psn = the peer's first
//                 PSN, max_dest_rd_atomic = the RDMA reads this port serves
//                 at once, min_rnr_timer 13 (0.96 ms, UCX's 1 ms)
//   RTR → RTS     sq_psn = this end's first PSN, timeout 18 (4.096 µs ×
//                 2^18 ≈ 1.07 s per try, UCX's 1 s), retry count 7 (a peer
//                 whose HCA stops acknowledging fails the queue pair after
//                 about 8 s: IBV_WC_RETRY_EXC_ERR), RNR retry 7 (the spec's
//                 "retry without limit": credits keep RNR to a backstop, and
//                 the idle watch ends a rank whose peer never reposts),
//                 max_rd_atomic = the smaller of this HCA's initiator depth
//                 and the reads the peer serves
#pragma once

#include <cstdint>
#include <span>

#include "runtime/verbs/verbs_card.hpp"

namespace xover::runtime::verbs {

/// The queue pair states a plan walks through (enum ibv_qp_state's values).
enum class QpState : std::uint8_t { Reset = 0, Init = 1, Rtr = 2, Rts = 3 };

/// The attributes of ibv_modify_qp that the plan sets (one IBV_QP_* bit each).
enum class QpAttr : std::uint8_t {
  State,
  PkeyIndex,
  Port,
  AccessFlags,
  AddressVector,
  PathMtu,
  DestQpn,
  RqPsn,
  MaxDestRdAtomic,
  MinRnrTimer,
  SqPsn,
  Timeout,
  RetryCount,
  RnrRetry,
  MaxQpRdAtomic,
};

/// One ibv_modify_qp call: the state it reaches and the attributes it sets.
struct QpStep {
  QpState to;
  std::span<const QpAttr> attrs;
};

/// The three steps, in order.
std::span<const QpStep> qp_steps();

struct AddressVector {
  bool is_global = false;
  std::uint16_t dlid = 0;
  std::uint8_t sl = 0;
  std::uint8_t port = 1;
  Gid dgid{};
  std::uint8_t sgid_index = 0;
  std::uint8_t hop_limit = 0;
  std::uint8_t traffic_class = 0;
  bool operator==(const AddressVector&) const = default;
};

struct QpPlan {
  // RESET → INIT
  std::uint8_t port = 1;
  std::uint16_t pkey_index = 0;
  bool remote_read = true;
  bool remote_write = true;
  bool remote_atomic = true;
  // INIT → RTR
  AddressVector av;
  std::uint32_t path_mtu = 0;  ///< bytes
  std::uint32_t dest_qpn = 0;
  std::uint32_t rq_psn = 0;
  std::uint8_t max_dest_rd_atomic = 0;
  std::uint8_t min_rnr_timer = 0;
  // RTR → RTS
  std::uint32_t sq_psn = 0;
  std::uint8_t timeout = 0;
  std::uint8_t retry_cnt = 0;
  std::uint8_t rnr_retry = 0;
  std::uint8_t max_rd_atomic = 0;
};

inline constexpr std::uint8_t kMinRnrTimer = 13;
inline constexpr std::uint8_t kQpTimeout = 18;
inline constexpr std::uint8_t kRetryCount = 7;
inline constexpr std::uint8_t kRnrRetry = 7;
inline constexpr std::uint8_t kRoceHopLimit = 64;

/// The plan for this end of the queue pair on `port` whose own address is
/// (`local`, `local_qp`) toward the peer's (`remote`, `remote_qp`);
/// `init_rd_atomic` is this HCA's max_qp_init_rd_atom, `traffic_class`
/// the RoCE port's (roce_traffic_class()). Throws std::invalid_argument
/// when the two ports cannot talk: InfiniBand against Ethernet, RoCE v1
/// against v2, two InfiniBand subnets (the packets would need a router's
/// LID, which only the subnet manager's path records give: this backend
/// does not query them), or RoCE v2 peers whose IPv4 addresses are in two
/// subnets (by this port's prefix: a routed fabric this backend does not
/// assume).
QpPlan plan_qp(std::uint8_t port, const LaneAddress& local, const QpAddress& local_qp, const LaneAddress& remote,
               const QpAddress& remote_qp, std::uint8_t init_rd_atomic, std::uint8_t traffic_class);

}  // namespace xover::runtime::verbs
