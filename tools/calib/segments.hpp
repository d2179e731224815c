// Segmented least squares (after SMPI's calibration, whose `smpi/os`
// sections are lines over size ranges): the fewest lines that fit a measured
// curve, each over a run of consecutive points, so that noise does not make
// segments and a real change of slope or step does.
//
//   std::vector<Segment> parts = fit_segments(sizes, times);   // parts[0].first == 0
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "tools/calib/fit.hpp"

namespace xover::calib {

/// One line of a segmented fit, over points [first, last].
struct Segment {
  std::size_t first = 0;
  std::size_t last = 0;
  LineFit line;  ///< relative least squares over its points
};

struct SegmentOptions {
  std::size_t max_segments = 4;  ///< at most this many lines
  std::size_t min_points = 3;    ///< fewest points a line takes (two fit any line exactly)
  /// The relative noise a line is allowed: each line past the first must cut
  /// the sum of squared relative residuals by more than points·tolerance²,
  /// so that points scattered by that much around one line stay one segment.
  double tolerance = 0.03;
};

/// The segmentation of (x, y), x increasing and y positive, that minimises
/// the squared relative residuals plus the penalty of its extra lines
/// (dynamic programming over every split, at most max_segments lines of at
/// least min_points points). One segment over every point when the curve
/// has fewer than 2·min_points points.
/// @throws std::invalid_argument when the spans differ in length or are
/// empty, or a y is not positive.
std::vector<Segment> fit_segments(std::span<const double> x, std::span<const double> y,
                                  const SegmentOptions& options = {});

}  // namespace xover::calib
