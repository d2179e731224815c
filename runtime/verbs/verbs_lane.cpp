#include "runtime/verbs/verbs_lane.hpp"

#include <algorithm>
#include <array>
#include <cerrno>

#include "runtime/bootstrap.hpp"

namespace xover::runtime::verbs {
namespace {

int access_flags(bool atomics) {
  return IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE |
         (atomics ? IBV_ACCESS_REMOTE_ATOMIC : 0);
}

bool has_atomics(const Device& device) {
  return device.attr.atomic_cap != IBV_ATOMIC_NONE;
}

int attr_mask(QpAttr a) {
  switch (a) {
    case QpAttr::State: return IBV_QP_STATE;
    case QpAttr::PkeyIndex: return IBV_QP_PKEY_INDEX;
    case QpAttr::Port: return IBV_QP_PORT;
    case QpAttr::AccessFlags: return IBV_QP_ACCESS_FLAGS;
    case QpAttr::AddressVector: return IBV_QP_AV;
    case QpAttr::PathMtu: return IBV_QP_PATH_MTU;
    case QpAttr::DestQpn: return IBV_QP_DEST_QPN;
    case QpAttr::RqPsn: return IBV_QP_RQ_PSN;
    case QpAttr::MaxDestRdAtomic: return IBV_QP_MAX_DEST_RD_ATOMIC;
    case QpAttr::MinRnrTimer: return IBV_QP_MIN_RNR_TIMER;
    case QpAttr::SqPsn: return IBV_QP_SQ_PSN;
    case QpAttr::Timeout: return IBV_QP_TIMEOUT;
    case QpAttr::RetryCount: return IBV_QP_RETRY_CNT;
    case QpAttr::RnrRetry: return IBV_QP_RNR_RETRY;
    case QpAttr::MaxQpRdAtomic: return IBV_QP_MAX_QP_RD_ATOMIC;
  }
  return 0;
}

ibv_wr_opcode opcode(WorkRequest::Op op) {
  switch (op) {
    case WorkRequest::Op::Send: return IBV_WR_SEND;
    case WorkRequest::Op::RdmaWrite: return IBV_WR_RDMA_WRITE;
    case WorkRequest::Op::RdmaRead: return IBV_WR_RDMA_READ;
    case WorkRequest::Op::FetchAdd: return IBV_WR_ATOMIC_FETCH_AND_ADD;
  }
  return IBV_WR_SEND;
}

static_assert(IBV_QPS_INIT == static_cast<int>(QpState::Init) && IBV_QPS_RTR == static_cast<int>(QpState::Rtr) &&
              IBV_QPS_RTS == static_cast<int>(QpState::Rts));
static_assert(IBV_MTU_256 == 1 && IBV_MTU_4096 == 5, "mtu_code() follows enum ibv_mtu");

[[noreturn]] void lane_error(const std::string& lane, const std::string& what, int error) {
  throw RuntimeError("verbs: lane " + lane + ": " + what + " failed: " + errno_text(error));
}

}  // namespace

Lane::Lane(Device& device, const PortInfo& info, std::uint32_t peers)
    : name_(info.name()), device_(&device), port_(info), segments_state_(0, 1, 0), bounce_pool_(kBounceCount) {
  const ibv_device_attr& attr = device.attr;
  const auto max_cqe = static_cast<std::uint32_t>(std::max(attr.max_cqe, 1));
  const SrqPlan plan = plan_srq(peers, std::min(static_cast<std::uint32_t>(std::max(attr.max_srq_wr, 0)), max_cqe));
  if (!plan.problem.empty())
    throw RuntimeError("verbs: lane " + name_ + ": " + plan.problem);
  window_ = plan.window;
  // The send CQ holds a completion for every request of every queue pair
  // in the worst case (all of them signalled): the queues are shortened to
  // fit, or the lane refused.
  const SendPlan send = plan_send(peers, static_cast<std::uint32_t>(std::max(attr.max_qp_wr, 0)), max_cqe);
  if (!send.problem.empty())
    throw RuntimeError("verbs: lane " + name_ + ": " + send.problem);
  send_queue_ = send.send_queue;
  ibv_context* ctx = device.context.get();
  send_cq_.reset(ibv_create_cq(ctx, static_cast<int>(send.cq_entries), nullptr, nullptr, 0));
  if (!send_cq_)
    lane_error(name_, "ibv_create_cq (send)", errno);
  recv_cq_.reset(ibv_create_cq(ctx, static_cast<int>(plan.segments), nullptr, nullptr, 0));
  if (!recv_cq_)
    lane_error(name_, "ibv_create_cq (receive)", errno);
  ibv_srq_init_attr srq_attr{};
  srq_attr.attr.max_wr = plan.segments;
  srq_attr.attr.max_sge = 1;
  srq_.reset(ibv_create_srq(device.pd.get(), &srq_attr));
  if (!srq_)
    lane_error(name_, "ibv_create_srq of " + std::to_string(plan.segments) + " receive requests", errno);

  const int access = access_flags(has_atomics(device));
  segments_ = make_slab(std::size_t{plan.segments} * kSegment);
  segments_mr_.reset(ibv_reg_mr(device.pd.get(), segments_.get(), std::size_t{plan.segments} * kSegment, access));
  if (!segments_mr_)
    lane_error(name_, "ibv_reg_mr of the receive segments (is ulimit -l too low?)", errno);
  segments_state_ = RecvSegments(plan.segments, kRefillBatch, plan.segments / 2);
  recv_wrs_.resize(plan.segments);
  recv_sges_.resize(plan.segments);
  bounce_ = make_slab(std::size_t{kBounceCount} * kSegment);
  bounce_mr_.reset(ibv_reg_mr(device.pd.get(), bounce_.get(), std::size_t{kBounceCount} * kSegment, access));
  if (!bounce_mr_)
    lane_error(name_, "ibv_reg_mr of the bounce buffers (is ulimit -l too low?)", errno);
}

int Lane::refill() {
  const std::span<const std::uint32_t> due = segments_state_.refill();
  if (due.empty())
    return 0;
  for (std::size_t i = 0; i < due.size(); ++i) {
    recv_sges_[i] = {reinterpret_cast<std::uint64_t>(segment(due[i])), kSegment, segments_mr_->lkey};
    recv_wrs_[i] = {};
    recv_wrs_[i].wr_id = due[i];
    recv_wrs_[i].sg_list = &recv_sges_[i];
    recv_wrs_[i].num_sge = 1;
    recv_wrs_[i].next = i + 1 < due.size() ? &recv_wrs_[i + 1] : nullptr;
  }
  ibv_recv_wr* bad = nullptr;
  const int error = ibv_post_srq_recv(srq_.get(), recv_wrs_.data(), &bad);
  if (error != 0)
    segments_state_.unpost(due.size());
  return error;
}

QpPtr Lane::create_qp(std::uint32_t& max_inline) {
  int error = 0;
  for (const std::uint32_t want : {kWantInline, 128U, 64U, 0U}) {
    ibv_qp_init_attr init{};
    init.send_cq = send_cq_.get();
    init.recv_cq = recv_cq_.get();
    init.srq = srq_.get();
    init.qp_type = IBV_QPT_RC;
    init.sq_sig_all = 0;
    init.cap.max_send_wr = send_queue_;
    init.cap.max_send_sge = 2;
    init.cap.max_recv_sge = 1;
    init.cap.max_inline_data = want;
    QpPtr qp(ibv_create_qp(device_->pd.get(), &init));
    if (qp) {
      max_inline = init.cap.max_inline_data;  // what the provider granted, written back
      return qp;
    }
    error = errno;
  }
  lane_error(name_, "ibv_create_qp (RC, " + std::to_string(send_queue_) + " send requests)", error);
}

int modify_qp(ibv_qp* qp, const QpPlan& plan, const QpStep& step) {
  ibv_qp_attr attr{};
  attr.qp_state = static_cast<ibv_qp_state>(step.to);
  attr.pkey_index = plan.pkey_index;
  attr.port_num = plan.port;
  attr.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | (plan.remote_read ? IBV_ACCESS_REMOTE_READ : 0) |
                         (plan.remote_write ? IBV_ACCESS_REMOTE_WRITE : 0) |
                         (plan.remote_atomic ? IBV_ACCESS_REMOTE_ATOMIC : 0);
  attr.ah_attr.is_global = plan.av.is_global ? 1 : 0;
  attr.ah_attr.dlid = plan.av.dlid;
  attr.ah_attr.sl = plan.av.sl;
  attr.ah_attr.port_num = plan.av.port;
  std::copy(plan.av.dgid.begin(), plan.av.dgid.end(), attr.ah_attr.grh.dgid.raw);
  attr.ah_attr.grh.sgid_index = plan.av.sgid_index;
  attr.ah_attr.grh.hop_limit = plan.av.hop_limit;
  attr.ah_attr.grh.traffic_class = plan.av.traffic_class;
  attr.path_mtu = static_cast<ibv_mtu>(mtu_code(plan.path_mtu));
  attr.dest_qp_num = plan.dest_qpn;
  attr.rq_psn = plan.rq_psn;
  attr.max_dest_rd_atomic = plan.max_dest_rd_atomic;
  attr.min_rnr_timer = plan.min_rnr_timer;
  attr.sq_psn = plan.sq_psn;
  attr.timeout = plan.timeout;
  attr.retry_cnt = plan.retry_cnt;
  attr.rnr_retry = plan.rnr_retry;
  attr.max_rd_atomic = plan.max_rd_atomic;
  int mask = 0;
  for (QpAttr a : step.attrs)
    mask |= attr_mask(a);
  return ibv_modify_qp(qp, &attr, mask);
}

int post_send(ibv_qp* qp, std::span<const WorkRequest> wrs) {
  constexpr std::size_t kMaxChain = 4;
  if (wrs.empty() || wrs.size() > kMaxChain)
    return EINVAL;
  std::array<ibv_send_wr, kMaxChain> w{};
  std::array<std::array<ibv_sge, 2>, kMaxChain> sges{};
  for (std::size_t i = 0; i < wrs.size(); ++i) {
    const WorkRequest& r = wrs[i];
    for (std::size_t k = 0; k < r.num_sge; ++k)
      sges[i][k] = {r.sge[k].addr, r.sge[k].length, r.sge[k].lkey};
    ibv_send_wr& s = w[i];
    s.wr_id = r.wr_id;
    s.sg_list = r.num_sge ? sges[i].data() : nullptr;
    s.num_sge = r.num_sge;
    s.opcode = opcode(r.op);
    unsigned flags = 0;
    if (r.signaled)
      flags |= IBV_SEND_SIGNALED;
    if (r.inline_data)
      flags |= IBV_SEND_INLINE;
    if (r.fence)
      flags |= IBV_SEND_FENCE;
    s.send_flags = flags;
    if (r.op == WorkRequest::Op::FetchAdd) {
      s.wr.atomic.remote_addr = r.remote_addr;
      s.wr.atomic.rkey = r.rkey;
      s.wr.atomic.compare_add = r.add;
    } else if (r.op != WorkRequest::Op::Send) {
      s.wr.rdma.remote_addr = r.remote_addr;
      s.wr.rdma.rkey = r.rkey;
    }
    s.next = i + 1 < wrs.size() ? &w[i + 1] : nullptr;
  }
  ibv_send_wr* bad = nullptr;
  return ibv_post_send(qp, w.data(), &bad);
}

MrKeys register_memory(const Device& device, std::uintptr_t start, std::size_t length) {
  ibv_mr* mr = ibv_reg_mr(device.pd.get(), reinterpret_cast<void*>(start), length, access_flags(has_atomics(device)));
  if (!mr)
    return {};
  return {mr, mr->lkey, mr->rkey};
}

void deregister_memory(const MrKeys& keys) {
  if (keys.handle)
    ibv_dereg_mr(static_cast<ibv_mr*>(keys.handle));
}

bool gid_works(const Device& device, std::uint8_t port, const GidEntry& gid) {
  ibv_ah_attr attr{};
  attr.is_global = 1;
  attr.port_num = port;
  attr.grh.sgid_index = gid.index;
  attr.grh.hop_limit = kRoceHopLimit;
  std::copy(gid.gid.begin(), gid.gid.end(), attr.grh.dgid.raw);
  ibv_ah* ah = ibv_create_ah(device.pd.get(), &attr);
  if (!ah)
    return false;
  ibv_destroy_ah(ah);
  return true;
}

}  // namespace xover::runtime::verbs
