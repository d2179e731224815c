// Least-squares lines (line_fit.hpp): weighted normal equations in closed form.
#include "runtime/line_fit.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace xover::runtime {

LineFit fit_line(std::span<const double> x, std::span<const double> y, Weighting weighting) {
  if (x.size() != y.size() || x.empty())
    throw std::invalid_argument("fit_line: " + std::to_string(x.size()) + " x values and " +
                                std::to_string(y.size()) + " y values; need the same number, at least one");
  // Weighted normal equations: minimise Σ w·(y − c − m·x)², w = 1 or 1/y².
  double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (weighting == Weighting::Relative && !(y[i] > 0))
      throw std::invalid_argument("fit_line: a relative fit needs positive y values, got " + std::to_string(y[i]));
    const double w = weighting == Weighting::Relative ? 1 / (y[i] * y[i]) : 1;
    sw += w;
    sx += w * x[i];
    sy += w * y[i];
    sxx += w * x[i] * x[i];
    sxy += w * x[i] * y[i];
  }
  LineFit f;
  f.samples = x.size();
  const double det = sw * sxx - sx * sx;
  if (x.size() < 2 || !(std::abs(det) > 1e-300 * sw * sxx)) {
    f.c = sy / sw;
  } else {
    f.m = (sw * sxy - sx * sy) / det;
    f.c = (sy - f.m * sx) / sw;
  }
  double mean = 0;
  for (double v : y)
    mean += v;
  mean /= static_cast<double>(y.size());
  double ss_res = 0, ss_tot = 0, rel = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double r = y[i] - f.at(x[i]);
    ss_res += r * r;
    ss_tot += (y[i] - mean) * (y[i] - mean);
    if (y[i] != 0)
      rel += (r / y[i]) * (r / y[i]);
  }
  const double n = static_cast<double>(x.size());
  f.rms = std::sqrt(ss_res / n);
  f.rel_rms = std::sqrt(rel / n);
  f.r2 = ss_tot > 0 ? 1 - ss_res / ss_tot : 1;
  return f;
}

}  // namespace xover::runtime
