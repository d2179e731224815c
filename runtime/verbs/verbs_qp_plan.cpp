#include "runtime/verbs/verbs_qp_plan.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

namespace xover::runtime::verbs {
namespace {

constexpr std::array kToInit{QpAttr::State, QpAttr::PkeyIndex, QpAttr::Port, QpAttr::AccessFlags};
constexpr std::array kToRtr{QpAttr::State,  QpAttr::AddressVector,   QpAttr::PathMtu,    QpAttr::DestQpn,
                            QpAttr::RqPsn,  QpAttr::MaxDestRdAtomic, QpAttr::MinRnrTimer};
constexpr std::array kToRts{QpAttr::State,    QpAttr::SqPsn,    QpAttr::Timeout,
                            QpAttr::RetryCount, QpAttr::RnrRetry, QpAttr::MaxQpRdAtomic};
constexpr std::array kSteps{QpStep{QpState::Init, kToInit}, QpStep{QpState::Rtr, kToRtr},
                            QpStep{QpState::Rts, kToRts}};

const char* link_name(LinkLayer l) {
  return l == LinkLayer::Ethernet ? "Ethernet (RoCE)" : "InfiniBand";
}

bool same_subnet(const Gid& a, const Gid& b) {
  return std::equal(a.begin(), a.begin() + 8, b.begin());
}

}  // namespace

std::span<const QpStep> qp_steps() {
  return kSteps;
}

QpPlan plan_qp(std::uint8_t port, const LaneAddress& local, const QpAddress& local_qp, const LaneAddress& remote,
               const QpAddress& remote_qp, std::uint8_t init_rd_atomic, std::uint8_t traffic_class) {
  if (local.link_layer != remote.link_layer)
    throw std::invalid_argument(std::string("this port is ") + link_name(local.link_layer) + ", the peer's " +
                                link_name(remote.link_layer));
  if (local.link_layer == LinkLayer::Ethernet && local.gid_type != remote.gid_type)
    throw std::invalid_argument("this port's GID is RoCE v" + std::to_string(static_cast<int>(local.gid_type)) +
                                ", the peer's RoCE v" + std::to_string(static_cast<int>(remote.gid_type)));
  QpPlan plan;
  plan.port = port;
  plan.av.port = port;
  plan.av.sgid_index = local.gid_index;
  plan.av.dgid = remote.gid;
  if (local.link_layer == LinkLayer::Ethernet) {
    if (local.gid_type == GidType::RoceV2 && is_ipv4_gid(local.gid) && is_ipv4_gid(remote.gid) && local.prefix > 0 &&
        !same_ipv4_subnet(local.gid, remote.gid, local.prefix))
      throw std::invalid_argument("the peer's RoCE address " + gid_text(remote.gid) + " is outside this port's subnet " +
                                  gid_text(local.gid) + "/" + std::to_string(local.prefix) +
                                  " (RoCE across IP subnets needs a routed fabric; give --ib-dev ports of one subnet)");
    plan.av.is_global = true;  // RoCE routes by GID, always with a GRH
    plan.av.hop_limit = kRoceHopLimit;
    plan.av.traffic_class = traffic_class;
  } else {
    if (!same_subnet(local.gid, remote.gid))
      throw std::invalid_argument("the peer's InfiniBand port is on another subnet (its GID prefix differs): reaching "
                                  "it needs a router's LID from the subnet manager's path records, which this backend "
                                  "does not query; give --ib-dev ports of one subnet");
    plan.av.dlid = remote.lid;
  }
  plan.path_mtu = std::min(local.mtu, remote.mtu);
  plan.dest_qpn = remote_qp.qpn;
  plan.rq_psn = remote_qp.psn;
  plan.max_dest_rd_atomic = local.rd_atomic;
  plan.min_rnr_timer = kMinRnrTimer;
  plan.sq_psn = local_qp.psn;
  plan.timeout = kQpTimeout;
  plan.retry_cnt = kRetryCount;
  plan.rnr_retry = kRnrRetry;
  plan.max_rd_atomic = std::min(init_rd_atomic, remote.rd_atomic);
  return plan;
}

}  // namespace xover::runtime::verbs
