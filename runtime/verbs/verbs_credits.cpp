#include "runtime/verbs/verbs_credits.hpp"

#include <algorithm>

namespace xover::runtime::verbs {

SrqPlan plan_srq(std::uint32_t peers, std::uint32_t max_srq_wr) {
  SrqPlan plan;
  if (peers == 0) {
    plan.segments = std::min(kRepostSlack + kMinWindow, max_srq_wr);
    plan.window = 0;
    return plan;
  }
  const std::uint64_t per_peer_min = std::uint64_t{kMinWindow} + kGrantReserve;
  const std::uint64_t need = kRepostSlack + per_peer_min * peers;
  const std::uint64_t want = std::max<std::uint64_t>(kSrqSegments, need);
  const std::uint64_t segments = std::min<std::uint64_t>(want, max_srq_wr);
  if (segments < need) {
    plan.problem = std::to_string(peers) + " peers need " + std::to_string(need) +
                   " receive segments for a window of " + std::to_string(kMinWindow) +
                   " each, and the device's shared receive queue holds " + std::to_string(max_srq_wr);
    return plan;
  }
  const std::uint64_t share = (segments - kRepostSlack) / peers - kGrantReserve;
  plan.segments = static_cast<std::uint32_t>(segments);
  plan.window = static_cast<std::uint16_t>(std::min<std::uint64_t>(kMaxWindow, share));
  return plan;
}

bool Credits::grant_in(std::uint16_t n) {
  if (std::uint32_t{credits_} + n > send_window_)
    return false;
  credits_ = static_cast<std::uint16_t>(credits_ + n);
  return true;
}

}  // namespace xover::runtime::verbs
