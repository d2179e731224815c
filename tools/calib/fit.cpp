// The calibration fits (fit.hpp): weighted least squares in closed form,
// Netgauge's LogGP assessment, binary segmentation.
#include "tools/calib/fit.hpp"

#include <stdexcept>
#include <string>

namespace xover::calib {
namespace {

/// Σ of the weighted squared (relative, when weighted) residuals of `f`
/// over [begin, end).
double squared_residuals(std::span<const double> x, std::span<const double> y, const LineFit& f, Weighting w,
                         std::size_t begin, std::size_t end) {
  double sum = 0;
  for (std::size_t i = begin; i < end; ++i) {
    const double r = y[i] - f.at(x[i]);
    sum += w == Weighting::Relative ? (r / y[i]) * (r / y[i]) : r * r;
  }
  return sum;
}

void split(std::span<const double> x, std::span<const double> y, std::size_t begin, std::size_t end,
           const BreakOptions& options, std::vector<std::size_t>& breaks) {
  const std::size_t count = end - begin;
  if (count < 2 * options.min_points)
    return;
  const LineFit one = fit_line(x.subspan(begin, count), y.subspan(begin, count), Weighting::Relative);
  if (one.rel_rms <= options.tolerance)
    return;
  const double sse_one = squared_residuals(x, y, one, Weighting::Relative, begin, end);
  std::size_t best = 0;
  double best_sse = sse_one;
  for (std::size_t k = begin + options.min_points; k + options.min_points <= end; ++k) {
    const LineFit left = fit_line(x.subspan(begin, k - begin), y.subspan(begin, k - begin), Weighting::Relative);
    const LineFit right = fit_line(x.subspan(k, end - k), y.subspan(k, end - k), Weighting::Relative);
    const double sse = squared_residuals(x, y, left, Weighting::Relative, begin, k) +
                       squared_residuals(x, y, right, Weighting::Relative, k, end);
    if (sse < best_sse) {
      best_sse = sse;
      best = k;
    }
  }
  if (best == 0 || best_sse * options.improvement > sse_one)
    return;
  split(x, y, begin, best, options, breaks);
  breaks.push_back(best);
  split(x, y, best, end, options, breaks);
}

}  // namespace

LogGPFit fit_loggp(std::span<const PrttPoint> points, int n) {
  if (points.size() < 2 || n < 2)
    throw std::invalid_argument("fit_loggp: needs PRTT points of at least two sizes and n >= 2, got " +
                                std::to_string(points.size()) + " sizes and n = " + std::to_string(n));
  std::vector<double> s, rtt1, per_message, stream, o_send, o_recv;
  for (const PrttPoint& p : points) {
    if (p.stream_messages < 2)
      throw std::invalid_argument("fit_loggp: a stream of " + std::to_string(p.stream_messages) +
                                  " messages at size " + std::to_string(p.size) + "; needs at least 2");
    s.push_back(static_cast<double>(p.size));
    rtt1.push_back(p.rtt1);
    per_message.push_back((p.rttn - p.rtt1) / (n - 1));
    stream.push_back((p.stream - p.rtt1) / (p.stream_messages - 1));
    o_send.push_back(p.o_send);
  }
  LogGPFit f;
  f.round_trip = fit_line(s, rtt1);
  f.gap = fit_line(s, per_message);
  f.stream = fit_line(s, stream);
  f.o_send = fit_line(s, o_send);
  for (const PrttPoint& p : points)
    o_recv.push_back(p.rttd - p.posts_delayed);
  f.o_recv = fit_line(s, o_recv);
  f.latency = f.round_trip.c / 2 - f.o_send.c - f.o_recv.c;
  if (f.latency < 0) {
    f.latency = 0;
    f.latency_clipped = true;
  }
  return f;
}

std::vector<std::size_t> find_breakpoints(std::span<const double> x, std::span<const double> y,
                                          const BreakOptions& options) {
  if (x.size() != y.size())
    throw std::invalid_argument("find_breakpoints: x and y differ in length");
  std::vector<std::size_t> breaks;
  split(x, y, 0, x.size(), options, breaks);
  return breaks;
}

}  // namespace xover::calib
