// Lower and upper envelopes of cost lines over a size range.
//
// The selection engine's one algorithm (UCX protocols v2): on [from, to] take
// the cheapest line at `from`, walk to the nearest size where another line
// becomes cheaper, repeat. Sizes are whole bytes, so a crossover at x = 812.4
// hands over at 813. Ties at equal cost go to the earlier line, which is the
// registry order when the lines are protocols.
#pragma once

#include <cstddef>
#include <vector>

#include "protocols/perf/linear_func.hpp"
#include "protocols/units.hpp"

namespace xover {

/// One line valid on [from, to] (inclusive).
struct Piece {
  Bytes from = 0;
  Bytes to = kSizeMax;
  LinearFunc f;
};

/// A piecewise-linear cost: pieces in increasing, non-overlapping order.
/// Sizes between pieces (or outside them) are not covered.
using PiecewiseFunc = std::vector<Piece>;

/// One range of an envelope: sizes [from, to] won by `index`.
struct EnvelopeRange {
  Bytes from = 0;
  Bytes to = kSizeMax;
  std::size_t index = 0;  ///< position of the winner in the input
  bool operator==(const EnvelopeRange&) const = default;
};

/// The lowest of `funcs` at every whole size in [from, to], with ties to the
/// lower index; adjacent ranges with the same winner are merged. Sizes no
/// function covers are left out of the result.
std::vector<EnvelopeRange> lower_envelope(const std::vector<PiecewiseFunc>& funcs, Bytes from, Bytes to);

/// The highest of `lines` on [from, to], as pieces (a convex function).
/// Used for the streaming cost, the largest of a protocol's factors.
PiecewiseFunc upper_envelope(const std::vector<LinearFunc>& lines, Bytes from, Bytes to);

/// Evaluates a piecewise function; false when `n` is not covered.
bool evaluate(const PiecewiseFunc& f, Bytes n, Seconds& out);

}  // namespace xover
