// Least-squares lines through measured numbers: the CPUs' time per byte
// (cpu_per_byte.hpp) and what `xover calibrate` fits (tools/calib/fit.hpp).
//
//   LineFit f = fit_line(sizes, times, Weighting::Relative);   // T(n) = c + m·n
#pragma once

#include <cstddef>
#include <span>

namespace xover::runtime {

/// A least-squares line y = c + m·x and how well it fits its samples.
struct LineFit {
  double c = 0;              ///< intercept
  double m = 0;              ///< slope
  double rms = 0;            ///< root mean square of the residuals y − (c + m·x), in y's unit
  double rel_rms = 0;        ///< root mean square of the relative residuals (y − (c + m·x)) / y
  double r2 = 0;             ///< coefficient of determination (1 when every sample lies on the line)
  std::size_t samples = 0;   ///< points fitted
  double at(double x) const { return c + m * x; }
};

enum class Weighting {
  Absolute,  ///< minimise Σ (y − ŷ)²: ordinary least squares
  Relative,  ///< minimise Σ ((y − ŷ)/y)²: every size counts alike on a geometric sweep
};

/// The least-squares line through (x[i], y[i]). One point gives a flat line
/// through it. Relative weighting needs every y positive.
/// @throws std::invalid_argument when the spans differ in length, are
/// empty, or (relative) a y is not positive.
LineFit fit_line(std::span<const double> x, std::span<const double> y, Weighting weighting = Weighting::Absolute);

}  // namespace xover::runtime
