// A lane whose transport carries small active messages inline and larger
// ones another way (shared memory: a message that fits the ring's cell is
// written into it, a larger one into a descriptor the cell points to) has
// two fixed costs per message, not one: a LogGP line through PRTTs of both
// kinds puts its intercept between them, above the small messages' time
// (one line through 8 B .. 8 KiB on shared memory gave PRTT(1,0,0) 0.95 us
// where 8 B and 32 B took 0.64 and 0.62 us). The lane's inline limit
// (LaneAttrs::max_short, a figure the transport reports) splits the
// probes' sizes; each side is fitted on its own, and the larger messages'
// overheads become size steps of o_s and o_r.
//
//   std::optional<InlineSplit> split = split_at_inline_limit(points, lane.max_short, 8);
//   if (split) { fixed figures from split->small; steps from split->large at split->from }
#pragma once

#include <optional>
#include <span>

#include "protocols/lanes/lane.hpp"
#include "tools/calib/fit.hpp"

namespace xover::calib {

/// A difference in fixed cost this small (relative) is the noise, not a step.
inline constexpr double kStepNoise = 0.05;

/// The probes' LogGP fits on either side of a lane's inline limit.
struct InlineSplit {
  LogGPFit small;  ///< the sizes whose probe message fits max_short
  LogGPFit large;  ///< the sizes past it
  Bytes from = 0;  ///< the smallest payload past the limit: where the steps start
};

/// The fits on either side of `max_short` (a probe message of s payload
/// bytes is s + kProbeHeader), when each side holds at least two probed
/// sizes and, at the limit, the larger messages' PRTT(1,0,s) line is above
/// the small ones' by more than kStepNoise; none otherwise (a lane whose
/// probes all fit, or all do not, or whose limit costs nothing to cross:
/// TCP's on the loopback, where the intercept of two noisy small sizes'
/// line fell 13 % below the rest's while 32 B took as long as 128 B).
std::optional<InlineSplit> split_at_inline_limit(std::span<const PrttPoint> points, Bytes max_short, int n);

/// The larger messages' o_s and o_r as steps from `split.from` on `lane`,
/// whose plain figures hold the small messages' (o_s, o_r, L and
/// o_send_after from split.small): o_s is the large side's post time; o_r
/// what the large side's one-way time, PRTT(1,0,0)/2, leaves once o_s − the
/// part of it after the message has left, and L, are taken out (the
/// receiver's take-in of a message that is not in the cell). No steps when
/// neither differs from the small messages' figure by 5 % of their one-way
/// time (noise). Returns whether it set steps.
bool set_inline_steps(LaneAttrs& lane, const InlineSplit& split);

}  // namespace xover::calib
