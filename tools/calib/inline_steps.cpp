// The fixed costs on either side of a lane's inline limit (inline_steps.hpp).
#include "tools/calib/inline_steps.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "tools/calib/probe.hpp"

namespace xover::calib {

std::optional<InlineSplit> split_at_inline_limit(std::span<const PrttPoint> points, Bytes max_short, int n) {
  if (max_short <= kProbeHeader)
    return std::nullopt;
  std::vector<PrttPoint> small, large;
  for (const PrttPoint& p : points)
    (p.size + kProbeHeader <= max_short ? small : large).push_back(p);
  if (small.size() < 2 || large.size() < 2)
    return std::nullopt;
  InlineSplit split{fit_loggp(small, n), fit_loggp(large, n), max_short - kProbeHeader + 1};
  // The two sides' lines at the limit, where a message stops fitting: a
  // limit that costs nothing to cross (TCP frames every message alike) has
  // no jump there, and the few small sizes' line is left to the noise.
  const auto at_limit = [&](const LogGPFit& f) { return f.round_trip.at(static_cast<double>(split.from - 1)); };
  if (!(at_limit(split.large) > (1 + kStepNoise) * at_limit(split.small)))
    return std::nullopt;
  return split;
}

bool set_inline_steps(LaneAttrs& lane, const InlineSplit& split) {
  const Seconds o_send = std::max(0.0, split.large.o_send.c);
  const Seconds before = std::max(0.0, lane.o_send - lane.sent_after()) + lane.latency + lane.o_recv;
  const Seconds o_recv =
      std::max(0.0, split.large.round_trip.c / 2 - lane.latency - (o_send - std::min(lane.o_send_after, o_send)));
  const double noise = kStepNoise * before;
  if (std::abs(o_send - lane.o_send) <= noise && std::abs(o_recv - lane.o_recv) <= noise)
    return false;
  lane.o_send_steps = SizeSteps({{0, lane.o_send}, {split.from, o_send}});
  lane.o_recv_steps = SizeSteps({{0, lane.o_recv}, {split.from, o_recv}});
  return true;
}

}  // namespace xover::calib
