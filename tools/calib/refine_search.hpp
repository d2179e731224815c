// The coordinate descent under refine_lanes (refine.hpp): a figure of the
// draft as a knob with its search range, what a draft costs against the
// sweeps, and the search along one knob. Private to tools/calib.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tools/calib/refine.hpp"

namespace xover::calib {

/// The sweeps' points by forced protocol.
using SweepsByCurve = std::map<std::string, std::vector<const SweepPoint*>>;

/// One figure of the draft that the fit moves, searched over [lo, hi]: the
/// value itself (times) or its logarithm (bandwidths).
struct Knob {
  std::string name;
  /// The calibration record's key of the figure it moves ("mm.o_send",
  /// "memcpy"; o_send_after goes with its lane's o_send).
  std::string key;
  bool log_scale = false;
  double lo = 0, hi = 0;
  std::function<double(const PlatformDraft&)> get;
  std::function<void(PlatformDraft&, double)> set;
  std::string unit;  ///< "us" or "GB/s"
  double shown = 1;  ///< what a value is multiplied by to show it in `unit`
};

/// Every value of `steps` multiplied by `ratio`.
SizeSteps scaled(const SizeSteps& steps, double ratio);

/// A lane's time from a quarter to four times the probes' (a ping-pong
/// sees o_s + L + o_r, not how the probes split them: the split stays
/// theirs within that), or from 0 to `ceiling` where they measured none.
/// A figure with steps by size (`steps`) moves them all in proportion (from
/// 0, where they would stay 0, to one value).
Knob time_knob(std::size_t lane, const char* what, Seconds LaneAttrs::*field, Seconds ceiling,
               const PlatformDraft& draft, SizeSteps LaneAttrs::*steps = nullptr);

/// A lane's bandwidth, from an eighth to eight times the draft's, its
/// steps by size moved in proportion.
Knob bandwidth_knob(std::size_t lane, const PlatformDraft& draft);

/// The copy bandwidth, likewise.
Knob memcpy_knob(const PlatformDraft& draft);

/// Σ over the points of the relative error's square (`squares`) or its
/// Huber loss, a point no protocol carries an error of 1.
double cost(const PlatformDraft& draft, const SweepsByCurve& by_curve, bool squares = false);

/// The knob's value (in its search scale) with the least cost: 17 points
/// over its range, then golden section within the best one's neighbours;
/// the current value unless another is better by more than a millionth.
/// `current` is the draft's cost, before and after.
void search(PlatformDraft& draft, const Knob& knob, const SweepsByCurve& by_curve, double& current);

}  // namespace xover::calib
