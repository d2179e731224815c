// Fitting one measured lane from its probes (lane_fit.hpp).
#include "tools/calib/lane_fit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "tools/calib/inline_steps.hpp"
#include "tools/calib/provenance.hpp"
#include "tools/calib/segments.hpp"

namespace xover::calib {
namespace {

/// The least R2 of a steady stream's line: its time per message grows with
/// the size (0.99 on a quiet shared memory), a disturbed one's scatters.
constexpr double kSteadyStream = 0.9;

/// Bytes of the header a get answer carries (protocols/wire.hpp, kRmaHdr).
constexpr double kGetHeader = 16;

/// The larger messages' overheads as steps (inline_steps.hpp), and the
/// fits they came from, in the comment block.
void add_inline_steps(const InlineSplit& split, LaneAttrs& a, std::vector<std::string>& lines) {
  const std::string who = "lane " + a.name + ": ";
  lines.push_back(who + "past its inline limit (" + std::to_string(a.max_short) +
                  " B with the header), fitted apart: PRTT(1,0,s) = " + describe_line(split.small.round_trip) +
                  " up to it, " + describe_line(split.large.round_trip) + " past it; o_s(s) = " +
                  describe_line(split.large.o_send) + " past it");
  if (set_inline_steps(a, split))
    lines.push_back(who + printf_text("o_s and o_r of the messages that fit inline: %.4f and %.4f us (L %.4f us); "
                                 "from a payload of ",
                                 a.o_send * 1e6, a.o_recv * 1e6, a.latency * 1e6) +
                    std::to_string(split.from) +
                    printf_text(" B: %.4f and %.4f us (o_r what PRTT(1,0,0)/2 past the limit leaves)",
                           a.o_send_steps.steps().back().value * 1e6, a.o_recv_steps.steps().back().value * 1e6));
  else
    lines.push_back(who + "the messages past its inline limit cost what those within it do (within 5 %): no steps");
}

/// A lane's LogGP figures from its active-message probes (Netgauge's
/// PRTT fits), each fit's line in the comment block, and where the two
/// overheads overlap in time, the part of o_s after the message has left.
void fit_am_figures(const LaneMeasurement& lm, const Measurements& m, FittedLane& fitted, Calibration& out) {
  LaneAttrs& a = fitted.attrs;
  std::vector<std::string>& lines = out.draft.comments;
  const std::string who = "lane " + a.name + ": ";
  const LogGPFit f = fit_loggp(lm.am, m.messages);
  // The fixed figures from the messages that fit inline where the lane has
  // such a limit inside the probed sizes (inline_steps.hpp), the larger
  // messages' overheads as steps below; the per-byte figures from all.
  const std::optional<InlineSplit> split = split_at_inline_limit(lm.am, a.max_short, m.messages);
  const LogGPFit& fixed = split ? split->small : f;
  a.o_send = std::max(0.0, fixed.o_send.c);
  a.o_recv = std::max(0.0, fixed.o_recv.c);
  a.latency = fixed.latency;
  a.gap = f.g();
  fitted.probed_am = true;
  fitted.one_message_per_byte = f.round_trip.m / 2;
  fitted.copy_per_byte = f.stream.m;
  std::vector<double> spreads;
  for (const PrttPoint& p : lm.am)
    spreads.push_back(p.spread);
  lines.push_back(who + "PRTT(1,0,s) = " + describe_line(f.round_trip) +
                  printf_text("; noise, (p90 - p10)/median of its runs: %.1f %% (median over sizes), %.1f %% (worst)",
                         quantile(spreads, 0.5) * 100, quantile(spreads, 1) * 100));
  lines.push_back(who + "(PRTT(n,0,s) - PRTT(1,0,s))/(n-1) = g + G*s = " + describe_line(f.gap) +
                  printf_text(", n = %.0f", m.messages));
  lines.push_back(who + "stream (PRTT(N,0,s) - PRTT(1,0,s))/(N-1) = " + describe_line(f.stream));
  // A message of a stream takes no longer than a round trip of two such
  // messages: a stream slower per byte than PRTT(1,0,s) was disturbed (a
  // rank waited for a core while the other filled the ring), and the
  // train's G, on the same lane and buffers, paces the copies instead. So
  // was one whose time per message its line hardly explains (R2 below
  // kSteadyStream): its slope, and any G per size range cut from it, are
  // the disturbance's (a quick one at load 10 gave R2 0.01 and copies of
  // 1.4 GB/s below 512 B, the simulated eager ping-pong then 183 % slow).
  const bool stream_steady = f.stream.m > 0 && f.stream.m <= f.round_trip.m && f.stream.r2 >= kSteadyStream;
  if (!stream_steady && f.gap.m > 0) {
    fitted.copy_per_byte = f.gap.m;
    fitted.copy_from_train = true;
    lines.push_back(who + printf_text("the stream's G (%.5f ns/B, R2 %.4f) is not within a round trip's time per byte "
                                 "(%.5f ns/B) or its line is not one (R2 below %.2f): the stream was disturbed, and "
                                 "the copies take the train's G (%.5f ns/B)",
                                 f.stream.m * 1e9, f.stream.r2, f.round_trip.m * 1e9, kSteadyStream, f.gap.m * 1e9));
  }
  lines.push_back(who + "o_s(s) = " + describe_line(f.o_send));
  lines.push_back(who + "o_r(s) = PRTT(n,d,s) - (n posts and delays, as timed) = " + describe_line(f.o_recv));
  a.o_send_after = 0;
  if (fixed.latency_clipped && a.o_send + a.o_recv > 0) {
    // The two overheads overlap in time (on the loopback the sender's
    // system call carries the message through the receiver's stack, which
    // takes it in before the call returns): one message costs
    // PRTT(1,0,0)/2. The sender is still busy its whole o_s; the overlap
    // is the part of it after the message has left (o_send_after), and
    // what o_s cannot hold comes off o_r.
    const double excess = a.o_send + a.o_recv - std::max(0.0, fixed.round_trip.c / 2);
    a.o_send_after = std::min(excess, a.o_send);
    a.o_recv -= excess - a.o_send_after;
    out.notes.push_back(who + printf_text("PRTT(1,0,0)/2 - o_s - o_r = %.4f us is negative: L set to 0 and "
                                     "o_send_after = %.4f us of o_s spent after the message has left",
                                     -excess * 1e6, a.o_send_after * 1e6) +
                        (excess > a.o_send_after
                             ? printf_text("; that is all of o_s, and o_r is %.4f us less for the rest",
                                      (excess - a.o_send_after) * 1e6)
                             : std::string()));
  }
  if (split)
    add_inline_steps(*split, a, lines);
  if (f.gap.c < 0)
    out.notes.push_back(who + printf_text("g fitted as %.4f us: set to 0", f.gap.c * 1e6));
  if (fixed.o_send.c < 0 || fixed.o_recv.c < 0)
    out.notes.push_back(who + "a negative overhead intercept was set to 0");
}

/// A lane's bandwidth from its gets, and the lanes it becomes: itself, or,
/// when it carries active messages too, itself for them and NAME-rma for
/// the gets, with an L of their own.
std::vector<FittedLane> fit_gets(const LaneMeasurement& lm, FittedLane& fitted, Calibration& out) {
  LaneAttrs& a = fitted.attrs;
  std::vector<std::string>& lines = out.draft.comments;
  const std::string who = "lane " + a.name + ": ";
  std::vector<double> s, t;
  for (const GetPoint& p : lm.get) {
    s.push_back(static_cast<double>(p.size));
    t.push_back(p.time);
  }
  const LineFit g = fit_line(s, t, Weighting::Relative);
  lines.push_back(who + "get(s), of bytes the target has just written, = " + describe_line(g));
  if (!(g.m > 0))
    throw std::invalid_argument(who + "the get time does not grow with the size: no bandwidth to fit");
  a.bandwidth = 1 / g.m;
  fitted.timed_gets = true;
  FittedLane rma = fitted;
  if (lm.am.empty()) {
    const double l = (g.c - (a.o_send - a.o_send_after) - a.o_recv - kGetHeader * g.m) / 2;
    rma.attrs.latency = std::max(0.0, l);
    if (l < 0)
      out.notes.push_back(who + "the get's intercept is below o_s + o_r: L of its gets set to 0");
    return {rma};
  }
  // A lane of active messages and gets (TCP): its target's CPU serves a
  // get (LaneAttrs::get_served), taking the request in and sending the
  // reply with the active messages' o_r and o_s, so the get's intercept is
  // 2(o_s − a) + 2·o_r + 2L + 16/B.
  const double l = (g.c - 2 * (a.o_send - a.o_send_after) - 2 * a.o_recv - kGetHeader * g.m) / 2;
  rma.attrs.latency = std::max(0.0, l);
  rma.attrs.get_served = true;
  if (l < 0)
    out.notes.push_back(who + "the get's intercept is below the request's and the reply's o_s + o_r: L of its gets "
                              "set to 0");
  lines.push_back(who + printf_text("get(0) from the active-message figures, 2L + 2(o_s - o_send_after + o_r), "
                                    "its target serving it: %.4f us; measured %.4f us: its gets go on lane ",
                                    (2 * a.latency + 2 * (a.o_send - a.o_send_after + a.o_recv) + kGetHeader * g.m) *
                                        1e6,
                                    g.c * 1e6) +
                  a.name + "-rma, L " + printf_text("%.4f us", rma.attrs.latency * 1e6));
  rma.attrs.name = a.name + "-rma";
  rma.attrs.caps = {};
  rma.attrs.cpu_moves = false;
  rma.attrs.max_short = rma.attrs.max_bcopy = rma.attrs.seg_size = 0;
  for (LaneCap cap : {LaneCap::GetZcopy, LaneCap::PutZcopy, LaneCap::ConnectToIface})
    if (lm.hardware.caps.has(cap))
      rma.attrs.caps.add(cap);
  LaneCaps am_caps;
  for (LaneCap cap : {LaneCap::AmShort, LaneCap::AmBcopy, LaneCap::AmZcopy, LaneCap::Atomics, LaneCap::ConnectToIface})
    if (lm.hardware.caps.has(cap))
      am_caps.add(cap);
  a.caps = am_caps;
  return {fitted, rma};
}

}  // namespace

std::string printf_text(const char* fmt, double a, double b, double c, double d, double e) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, a, b, c, d, e);
  return buf;
}

/// "c + m·s (rel RMS x %, R² y, k sizes)" with c in µs and m in ns/B.
std::string describe_line(const LineFit& f) {
  return printf_text("%.4f us + %.5f ns/B * s (RMS %.4f us, rel RMS %.2f %%, R2 %.4f, ", f.c * 1e6, f.m * 1e9, f.rms * 1e6,
                f.rel_rms * 100, f.r2) +
         std::to_string(f.samples) + " sizes)";
}

/// The lanes a measured lane becomes: itself, or, when it carries both
/// active messages and gets (TCP), two lanes. A get there is served by the
/// target's CPU (a request in, a reply out), not by a NIC: the gets get a
/// lane of their own, NAME-rma, that says so (LaneAttrs::get_served), whose
/// L is what the gets' intercept leaves once both messages' o_s − a + o_r
/// are out.
std::vector<FittedLane> fit_lane(const LaneMeasurement& lm, const Measurements& m, Calibration& out) {
  FittedLane fitted{lm.hardware};
  fitted.attrs.name = rail_name(lm.hardware.name);
  if (!lm.am.empty())
    fit_am_figures(lm, m, fitted, out);
  if (!lm.get.empty())
    return fit_gets(lm, fitted, out);
  return {fitted};
}

/// The bandwidth of a lane that carries only active messages: what one
/// message's time per byte leaves once the core's two copies are out.
void am_only_bandwidth(FittedLane& lane, BytesPerSecond memcpy_bw, Calibration& out) {
  const double per_byte = lane.one_message_per_byte;
  const double wire = per_byte - 2 / memcpy_bw;
  // Below a hundredth of a message's own time per byte, the lane's share
  // is not measurable: it is taken as that hundredth.
  lane.attrs.bandwidth = 1 / std::max(wire, per_byte / 100);
  if (wire < per_byte / 100)
    out.notes.push_back("lane " + lane.attrs.name +
                        printf_text(": one message's %.5f ns/B is all in the two copies at the copy bandwidth (%.5f "
                               "ns/B): the lane's own share is taken as 1 %% of it",
                               per_byte * 1e9, 2e9 / memcpy_bw));
}

/// G per size range: the stream's time per message, (PRTT(N,0,s) −
/// PRTT(1,0,s))/(N − 1), in segments by least squares (segments.hpp: a new
/// line only where it cuts the relative residuals past the noise), each
/// segment's slope a copy bandwidth from its first size; past the
/// largest size probed, `whole` (the one line's G) again. A segment whose
/// bytes cost less than its fixed part even at its largest size (small
/// messages: their slope is the noise of a fixed cost, and once gave a
/// 0.9 GB/s copy below 512 B) takes `whole` too. Empty where one line fits,
/// or a segment's slope is not positive.
SizeSteps stream_copy_steps(const std::vector<PrttPoint>& am, BytesPerSecond whole) {
  std::vector<double> x, y;
  for (const PrttPoint& p : am) {
    const double per_message = (p.stream - p.rtt1) / std::max(1, p.stream_messages - 1);
    if (!(per_message > 0))
      return {};
    x.push_back(static_cast<double>(p.size));
    y.push_back(per_message);
  }
  if (x.size() < 6)
    return {};
  const std::vector<Segment> parts = fit_segments(x, y);
  if (parts.size() < 2)
    return {};
  std::vector<SizeStep> steps;
  for (const Segment& part : parts) {
    if (!(part.line.m > 0))
      return {};
    const bool bytes_seen = part.line.m * x[part.last] >= part.line.c;
    steps.push_back({steps.empty() ? 0 : static_cast<Bytes>(x[part.first]), bytes_seen ? 1 / part.line.m : whole});
  }
  steps.push_back({static_cast<Bytes>(x.back()) + 1, whole});
  return SizeSteps(std::move(steps));
}

}  // namespace xover::calib
