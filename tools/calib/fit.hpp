// The fits behind `xover calibrate`, as pure functions of measured numbers:
// least-squares lines, the LogGP parameters of a lane from parametrised
// round trips (after Netgauge: Hoefler, Mehlan, Lumsdaine and Rehm,
// "Netgauge: A Network Performance Measurement Framework", 2007), and the
// sizes where a measured time curve changes line (segmented least squares).
//
//   LineFit f = fit_line(sizes, times, Weighting::Relative);   // T(n) = c + m·n
//   LogGPFit lane = fit_loggp(points, 16);
//   std::vector<std::size_t> breaks = find_breakpoints(sizes, times);
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "protocols/units.hpp"
#include "runtime/line_fit.hpp"

namespace xover::calib {

// The lines are the runtime's (runtime/line_fit.hpp).
using runtime::fit_line;
using runtime::LineFit;
using runtime::Weighting;

/// Parametrised round trips of one message size s on one lane. PRTT(n, d, s):
/// the client posts n messages of s bytes, waiting d after each post, then
/// waits for the server's one reply of s bytes, which the server sends once
/// all n are in. In LogGP, with G the time per byte and messages of s bytes
/// taking s·G on the wire:
///   PRTT(1, 0, s) = 2·(o_s + L + s·G + o_r)
///   PRTT(n, 0, s) = PRTT(1, 0, s) + (n − 1)·(g + s·G)    (the NIC paces the posts)
///   PRTT(n, d, s) = n·(o_s + d) + o_r                    (d longer than a round trip: the reply waits)
///   PRTT(N, 0, s) = PRTT(1, 0, s) + (N − 1)·(g + s·G)    (a stream: N·s bytes, a large message's worth)
/// and o_s is the sender's own time to post one message. The client's n
/// posts and delays are timed as they happen (`posts_delayed`), since a
/// delay loop overshoots d by the clock's own cost.
struct PrttPoint {
  Bytes size = 0;
  Seconds rtt1 = 0;    ///< PRTT(1, 0, s), the median of its runs
  double spread = 0;   ///< (p90 − p10) / median of the PRTT(1, 0, s) runs: the noise of the measurement
  Seconds rttn = 0;    ///< PRTT(n, 0, s)
  Seconds rttd = 0;    ///< PRTT(n, d, s)
  Seconds o_send = 0;  ///< the sender's time per post, timed around the post itself
  Seconds delay = 0;   ///< d of the PRTT(n, d, s) run, longer than a round trip
  Seconds posts_delayed = 0;  ///< in the PRTT(n, d, s) run, the client's n posts and delays, ideally n·(o_s + d)
  Seconds stream = 0;         ///< PRTT(N, 0, s), through buffers of N·s bytes
  int stream_messages = 0;    ///< N
};

/// A lane's LogGP parameters as fitted, each with the line it came from.
struct LogGPFit {
  Seconds latency = 0;           ///< L = PRTT(1, 0, 0)/2 − o_s − o_r
  bool latency_clipped = false;  ///< the formula gave a negative L, and L was set to 0
  LineFit round_trip;            ///< PRTT(1, 0, s) = c + m·s: m/2 is the time per byte of one message
  LineFit gap;                   ///< (PRTT(n,0,s) − PRTT(1,0,s))/(n − 1) = g + s·G: c = g, m = G
  /// (PRTT(N,0,s) − PRTT(1,0,s))/(N − 1): the same as `gap` in LogGP; on
  /// hardware, the pace of a large transfer, whose data is not all in cache.
  LineFit stream;
  LineFit o_send;                ///< o_s(s) = c + m·s, the post's time (m: the sender's copy per byte)
  LineFit o_recv;                ///< o_r(s) = PRTT(n,d,s) − the client's n posts and delays
  /// g clipped at 0 (a negative intercept is noise around a gap-free NIC).
  Seconds g() const { return gap.c > 0 ? gap.c : 0; }
};

/// Fits L, o_s, o_r, g and G from PRTT points of several sizes (at least
/// two sizes) taken with `n` messages.
/// @throws std::invalid_argument for fewer than two points or n < 2.
LogGPFit fit_loggp(std::span<const PrttPoint> points, int n);

/// Where to look for breaks, and when a break is real.
struct BreakOptions {
  /// Fewest points on each side of a break (a line through two is exact).
  std::size_t min_points = 3;
  /// A segment whose one line leaves a relative RMS at or below this is
  /// not split: the noise of a measured curve.
  double tolerance = 0.03;
  /// A split must cut the segment's squared relative residuals at least
  /// by this factor.
  double improvement = 4;
};

/// The indices i where the curve (x, y), x increasing, changes line: point
/// i is the first of a new line. Recursive binary segmentation with relative
/// least squares: a segment is split where two lines fit best, when that is
/// markedly better than one. Empty when one line fits.
std::vector<std::size_t> find_breakpoints(std::span<const double> x, std::span<const double> y,
                                          const BreakOptions& options = {});

}  // namespace xover::calib
