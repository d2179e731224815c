#include "tools/calib/segments.hpp"

#include <limits>
#include <stdexcept>

namespace xover::calib {
namespace {

// The sum of squared relative residuals of the line through points [i, j).
double cost(std::span<const double> x, std::span<const double> y, std::size_t i, std::size_t j) {
  const LineFit line = fit_line(x.subspan(i, j - i), y.subspan(i, j - i), Weighting::Relative);
  return line.rel_rms * line.rel_rms * static_cast<double>(j - i);
}

}  // namespace

std::vector<Segment> fit_segments(std::span<const double> x, std::span<const double> y,
                                  const SegmentOptions& options) {
  if (x.size() != y.size() || x.empty())
    throw std::invalid_argument("fit_segments: x and y must be non-empty and of one length");
  const std::size_t n = x.size();
  const std::size_t min_points = std::max<std::size_t>(options.min_points, 2);
  const std::size_t most = std::max<std::size_t>(1, std::min(options.max_segments, n / min_points));
  constexpr double kNone = std::numeric_limits<double>::infinity();

  // best[k][j]: the least residual of k + 1 lines over points [0, j);
  // from[k][j]: where the last of them starts.
  std::vector<std::vector<double>> best(most, std::vector<double>(n + 1, kNone));
  std::vector<std::vector<std::size_t>> from(most, std::vector<std::size_t>(n + 1, 0));
  for (std::size_t j = min_points; j <= n; ++j)
    best[0][j] = cost(x, y, 0, j);
  for (std::size_t k = 1; k < most; ++k)
    for (std::size_t j = (k + 1) * min_points; j <= n; ++j)
      for (std::size_t i = k * min_points; i + min_points <= j; ++i) {
        if (best[k - 1][i] == kNone)
          continue;
        const double total = best[k - 1][i] + cost(x, y, i, j);
        if (total < best[k][j]) {
          best[k][j] = total;
          from[k][j] = i;
        }
      }

  const double penalty = static_cast<double>(n) * options.tolerance * options.tolerance;
  std::size_t lines = 0;
  if (n >= min_points)
    for (std::size_t k = 1; k < most; ++k)
      if (best[k][n] + penalty * static_cast<double>(k) < best[lines][n] + penalty * static_cast<double>(lines))
        lines = k;

  std::vector<Segment> out(lines + 1);
  std::size_t end = n;
  for (std::size_t k = lines + 1; k-- > 0;) {
    const std::size_t start = k == 0 ? 0 : from[k][end];
    out[k].first = start;
    out[k].last = end - 1;
    out[k].line = fit_line(x.subspan(start, end - start), y.subspan(start, end - start), Weighting::Relative);
    end = start;
  }
  return out;
}

}  // namespace xover::calib
