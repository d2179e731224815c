#include "runtime/verbs/verbs_queues.hpp"

#include <algorithm>
#include <stdexcept>

namespace xover::runtime::verbs {

RecvSegments::RecvSegments(std::uint32_t count, std::uint32_t batch, std::uint32_t low_water)
    : count_(count), batch_(batch > 0 ? batch : 1), low_water_(low_water), waiting_(count), waiting_end_(count) {
  for (std::uint32_t i = 0; i < count; ++i)
    waiting_[i] = i;
  handed_.reserve(count);
}

void RecvSegments::consumed(std::uint32_t index) {
  --posted_;
  waiting_[waiting_end_++] = index;
}

std::span<const std::uint32_t> RecvSegments::refill() {
  std::size_t n = 0;
  if (waiting_end_ >= batch_)
    n = batch_;
  if (posted_ < low_water_)
    n = waiting_end_;
  handed_.assign(waiting_.begin() + static_cast<std::ptrdiff_t>(waiting_end_ - n),
                 waiting_.begin() + static_cast<std::ptrdiff_t>(waiting_end_));
  waiting_end_ -= n;
  posted_ += static_cast<std::uint32_t>(n);
  return handed_;
}

SendTracker::SendTracker(std::uint32_t depth, std::uint32_t signal_every, std::uint32_t max_reads,
                         std::uint32_t first_sn)
    : depth_(depth), signal_every_(signal_every > 0 ? signal_every : 1), max_reads_(max_reads), ring_(depth),
      next_sn_(first_sn) {
  if (depth < 2)
    throw std::invalid_argument("a send queue of " + std::to_string(depth) + " requests: it needs 2 or more");
}

SendRecord& SendTracker::post(SendRecord::Op op, std::uint32_t bounce, Completion done, bool force_signal) {
  SendRecord& r = at(count_);
  r.sn = next_sn_++;
  r.op = op;
  r.bounce = bounce;
  r.done = std::move(done);
  r.signaled = force_signal || r.done || op == SendRecord::Op::Read || op == SendRecord::Op::Atomic ||
               op == SendRecord::Op::Flush || since_signal_ + 1 >= signal_every_ || count_ + 2 >= depth_;
  since_signal_ = r.signaled ? 0 : since_signal_ + 1;
  reads_ += is_read(op);
  ++count_;
  return r;
}

void SendTracker::unpost() {
  SendRecord& r = at(count_ - 1);
  reads_ -= is_read(r.op);
  r.done = nullptr;
  --count_;
  --next_sn_;
  // The run since the last signalled request is one shorter (or was reset
  // by this one): count it again from the records.
  since_signal_ = 0;
  for (std::uint32_t i = count_; i > 0 && !at(i - 1).signaled; --i)
    ++since_signal_;
}

const SendRecord* SendTracker::find(std::uint32_t sn) const {
  if (count_ == 0 || sn - at(0).sn >= count_)
    return nullptr;
  return &at(sn - at(0).sn);
}

void SendTracker::pop_front() {
  SendRecord& r = at(0);
  reads_ -= is_read(r.op);
  r.done = nullptr;
  head_ = (head_ + 1) % depth_;
  --count_;
}

SendPlan plan_send(std::uint32_t peers, std::uint32_t max_qp_wr, std::uint32_t max_cqe) {
  SendPlan plan;
  const std::uint32_t per_peer = peers > 0 ? max_cqe / peers : max_cqe;
  plan.send_queue = std::min({kSendQueue, max_qp_wr, per_peer});
  if (plan.send_queue < kMinSendQueue) {
    plan.problem = std::to_string(peers) + " peers need " + std::to_string(kMinSendQueue) +
                   " send requests each on the send CQ and the device allows " + std::to_string(max_cqe) +
                   " CQ entries (and " + std::to_string(max_qp_wr) + " requests per queue pair)";
    return plan;
  }
  plan.cq_entries = std::max<std::uint32_t>(1, std::max<std::uint32_t>(peers, 1) * plan.send_queue);
  return plan;
}

BouncePool::BouncePool(std::uint32_t count) : count_(count), free_(count) {
  // Handed out from the back: buffer 0 first.
  for (std::uint32_t i = 0; i < count; ++i)
    free_[i] = count - 1 - i;
}

std::uint32_t BouncePool::take() {
  if (free_.empty())
    return kNone;
  const std::uint32_t index = free_.back();
  free_.pop_back();
  return index;
}

}  // namespace xover::runtime::verbs
