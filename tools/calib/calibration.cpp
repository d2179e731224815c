// Turning measurements into a calibrated platform (calibration.hpp).
//
// Which figure becomes which attribute. The lane model is LogGP with the
// protocol core's copies on top (protocols/proto_costs.hpp): a copied
// message costs o_s + n/M + L + n/B + o_r + n/M, with M the memcpy bandwidth.
//   o_send, o_recv   the intercepts of the sender's post time and of the
//                    receiver's take-in time (fit_loggp), clipped at 0, plus
//                    the protocol core's own time per message (below); where
//                    the lane's inline limit splits the probed sizes, those
//                    of the messages that fit it, and the larger messages'
//                    as size steps (inline_steps.hpp)
//   latency          PRTT(1,0,0)/2 − o_s − o_r, clipped at 0 (said so), of
//                    the messages that fit inline where the limit splits them
//   o_send_after     0, or where that latency is negative (the two
//                    overheads overlap in time), o_s + o_r − PRTT(1,0,0)/2:
//                    the part of o_s after the message has left, at most
//                    o_s, o_r taking off the rest
//   bcopy_copy       as the transport reports it (LaneAttrs::bcopy_copies)
//   cpu_moves        as the transport reports it (LaneAttrs::cpu_moves:
//                    shared memory's cma lane, whose get is the initiator's
//                    own copy); off on a NAME-rma lane, whose gets the
//                    target's CPU serves
//   gap              the intercept g of (PRTT(n,0,s) − PRTT(1,0,s))/(n−1)
//   memcpy_bw        where the active-message lane is itself a copy (no
//                    get on it: shared memory), 1/G of its stream (4 MiB
//                    of messages through 4 MiB buffers), and G per size
//                    range where the stream's time per message needs more
//                    than one line (stream_copy_steps: segmented least
//                    squares, memcpy size steps); the train's G where
//                    the stream is slower per byte than a round trip, or
//                    its line explains it poorly (R2 < 0.9: it was
//                    disturbed); elsewhere the transport's memcpy
//                    probe at set-up
//   bandwidth        a lane with gets: 1/slope of the get time (a get lands
//                    in the user's buffer, with no copy of the core); a lane
//                    of active messages only: what is left of one message's
//                    time per byte, PRTT(1,0,s)'s slope / 2, once the core's
//                    two copies (n/M at each end) are taken out
//   latency of a lane's gets: from the get's intercept, 2·L + o_s −
//                    o_send_after + o_r + 16/B (rndv_get.cpp's get(n)); a
//                    lane with active messages and gets becomes two lanes,
//                    NAME and NAME-rma (fit_lane says why)
//   o_send_per_byte, o_recv_per_byte, and the wire's share of bandwidth on
//                    a lane sending from the user's buffer: socket_copies.hpp
//   limits, capabilities, registration: as the transport reports them
// The protocol core's own time per message (requests, matching, progress)
// is what the probes, which use the bare transport, cannot see: it is the
// eager/short sweep's time less its model on the probed lanes (added to the
// active-message lane) and the rndv/get sweep's likewise (added to the get
// lanes, when they are not the active-message lane), half to o_send and
// half to o_recv.
// Each figure comes from the probe that identifies it, and stays as that
// probe gave it. Last, what no probe identifies (a lane's figures the
// transport reports rather than a probe measures, such as a lane of gets'
// overheads and gap; the message factors past the caches) is fitted to the
// protocols' own sweeps (refine.hpp), and the record says which.
#include "tools/calib/calibration.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <stdexcept>

#include "protocols/perf/envelope.hpp"
#include "protocols/select/threshold_table.hpp"
#include "tools/calib/inline_steps.hpp"
#include "tools/calib/provenance.hpp"
#include "tools/calib/refine.hpp"
#include "tools/calib/segments.hpp"
#include "tools/calib/socket_copies.hpp"

namespace xover::calib {
namespace {

/// The least R2 of a steady stream's line: its time per message grows with
/// the size (0.99 on a quiet shared memory), a disturbed one's scatters.
constexpr double kSteadyStream = 0.9;

/// Bytes of the header a get answer carries (protocols/wire.hpp, kRmaHdr).
constexpr double kGetHeader = 16;

std::string format(const char* fmt, double a = 0, double b = 0, double c = 0, double d = 0, double e = 0) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, a, b, c, d, e);
  return buf;
}

/// "c + m·s (rel RMS x %, R² y, k sizes)" with c in µs and m in ns/B.
std::string describe(const LineFit& f) {
  return format("%.4f us + %.5f ns/B * s (RMS %.4f us, rel RMS %.2f %%, R2 %.4f, ", f.c * 1e6, f.m * 1e9, f.rms * 1e6,
                f.rel_rms * 100, f.r2) +
         std::to_string(f.samples) + " sizes)";
}

/// A lane fitted from its probes, before the protocol core's own overhead
/// is added; `copy_per_byte` is what a large copied transfer paces at
/// (0 when the lane carries no active messages).
struct FittedLane {
  LaneAttrs attrs;
  SecondsPerByte one_message_per_byte = 0;  ///< PRTT(1,0,s)'s slope / 2
  SecondsPerByte copy_per_byte = 0;         ///< the stream's G (the train's where the stream was disturbed)
  bool copy_from_train = false;             ///< copy_per_byte is the train's G: the stream was disturbed
  bool timed_gets = false;                  ///< the bandwidth came from gets
  bool probed_am = false;                   ///< its active messages were probed (PRTTs)
};

std::string keys_text(const std::set<std::string>& keys) {
  std::string out;
  for (const std::string& key : keys)
    out += (out.empty() ? "" : ", ") + key;
  return out.empty() ? "none" : out;
}

std::vector<const Point*> curve_points(const Results& results, const std::string& curve) {
  std::vector<const Point*> out;
  for (const Point* p : results.points())
    if (p->curve == curve && !p->samples.empty())
      out.push_back(p);
  return out;
}

/// The larger messages' overheads as steps (inline_steps.hpp), and the
/// fits they came from, in the comment block.
void add_inline_steps(const InlineSplit& split, LaneAttrs& a, std::vector<std::string>& lines) {
  const std::string who = "lane " + a.name + ": ";
  lines.push_back(who + "past its inline limit (" + std::to_string(a.max_short) +
                  " B with the header), fitted apart: PRTT(1,0,s) = " + describe(split.small.round_trip) +
                  " up to it, " + describe(split.large.round_trip) + " past it; o_s(s) = " +
                  describe(split.large.o_send) + " past it");
  if (set_inline_steps(a, split))
    lines.push_back(who + format("o_s and o_r of the messages that fit inline: %.4f and %.4f us (L %.4f us); "
                                 "from a payload of ",
                                 a.o_send * 1e6, a.o_recv * 1e6, a.latency * 1e6) +
                    std::to_string(split.from) +
                    format(" B: %.4f and %.4f us (o_r what PRTT(1,0,0)/2 past the limit leaves)",
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
  lines.push_back(who + "PRTT(1,0,s) = " + describe(f.round_trip) +
                  format("; noise, (p90 - p10)/median of its runs: %.1f %% (median over sizes), %.1f %% (worst)",
                         quantile(spreads, 0.5) * 100, quantile(spreads, 1) * 100));
  lines.push_back(who + "(PRTT(n,0,s) - PRTT(1,0,s))/(n-1) = g + G*s = " + describe(f.gap) +
                  format(", n = %.0f", m.messages));
  lines.push_back(who + "stream (PRTT(N,0,s) - PRTT(1,0,s))/(N-1) = " + describe(f.stream));
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
    lines.push_back(who + format("the stream's G (%.5f ns/B, R2 %.4f) is not within a round trip's time per byte "
                                 "(%.5f ns/B) or its line is not one (R2 below %.2f): the stream was disturbed, and "
                                 "the copies take the train's G (%.5f ns/B)",
                                 f.stream.m * 1e9, f.stream.r2, f.round_trip.m * 1e9, kSteadyStream, f.gap.m * 1e9));
  }
  lines.push_back(who + "o_s(s) = " + describe(f.o_send));
  lines.push_back(who + "o_r(s) = PRTT(n,d,s) - (n posts and delays, as timed) = " + describe(f.o_recv));
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
    out.notes.push_back(who + format("PRTT(1,0,0)/2 - o_s - o_r = %.4f us is negative: L set to 0 and "
                                     "o_send_after = %.4f us of o_s spent after the message has left",
                                     -excess * 1e6, a.o_send_after * 1e6) +
                        (excess > a.o_send_after
                             ? format("; that is all of o_s, and o_r is %.4f us less for the rest",
                                      (excess - a.o_send_after) * 1e6)
                             : std::string()));
  }
  if (split)
    add_inline_steps(*split, a, lines);
  if (f.gap.c < 0)
    out.notes.push_back(who + format("g fitted as %.4f us: set to 0", f.gap.c * 1e6));
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
  lines.push_back(who + "get(s), of bytes the target has just written, = " + describe(g));
  if (!(g.m > 0))
    throw std::invalid_argument(who + "the get time does not grow with the size: no bandwidth to fit");
  a.bandwidth = 1 / g.m;
  fitted.timed_gets = true;
  FittedLane rma = fitted;
  const double l = (g.c - (a.o_send - a.o_send_after) - a.o_recv - kGetHeader * g.m) / 2;
  rma.attrs.latency = std::max(0.0, l);
  if (l < 0)
    out.notes.push_back(who + "the get's intercept is below o_s + o_r: L of its gets set to 0");
  if (lm.am.empty())
    return {rma};
  lines.push_back(who + format("get(0) from the active-message figures, 2L + o_s - o_send_after + o_r: %.4f us; "
                               "measured %.4f us: its gets go on lane ",
                               (2 * a.latency + a.o_send - a.o_send_after + a.o_recv + kGetHeader * g.m) * 1e6,
                               g.c * 1e6) +
                  a.name + "-rma");
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

/// The lanes a measured lane becomes: itself, or, when it carries both
/// active messages and gets (TCP), two lanes. A get there is served by the
/// target's CPU (a request in, a reply out), not by a NIC as rndv_get.cpp's
/// get(n) = 2L + n/B + o_s + o_r assumes; one L cannot hold both a
/// message's flight and that service, so the gets get a lane of their own,
/// NAME-rma, whose L is fitted from the gets.
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
                        format(": one message's %.5f ns/B is all in the two copies at the copy bandwidth (%.5f "
                               "ns/B): the lane's own share is taken as 1 %% of it",
                               per_byte * 1e9, 2e9 / memcpy_bw));
}

/// `steps` with `extra` added to every step's value (none stay none).
SizeSteps plus(const SizeSteps& steps, Seconds extra) {
  std::vector<SizeStep> out = steps.steps();
  for (SizeStep& step : out)
    step.value += extra;
  return out.empty() ? SizeSteps() : SizeSteps(std::move(out));
}

/// The protocol core's own time per message (request, matching, progress)
/// on the lanes `curve` uses, which the transport's probes do not see: the
/// curve's sweep less its model on the lanes as they stand, median over the
/// sizes where the model's fixed part is at least its per-byte part, split
/// evenly between o_send and o_recv of those lanes. Lanes in `taken`
/// already carry another curve's figure and are left as they are.
void add_core_overhead(const Measurements& m, const std::string& curve, std::vector<std::size_t>& taken,
                       Calibration& out) {
  const std::vector<const Point*> points = curve_points(m.sweeps, curve);
  const Path path{"node0", "node1", out.draft.lanes, out.draft.memcpy_bw, out.draft.memcpy_bw};
  SelectConfig config;
  config.forced = {curve};
  const ThresholdTable table = ThresholdTable::build(path, config);
  const ProtoChoice* choice = points.empty() ? nullptr : table.lookup(points.front()->size);
  if (!choice) {
    out.notes.push_back("no " + curve + " sweep: the protocol core's own time on its lanes is not in o_send, o_recv");
    return;
  }
  const std::optional<Seconds> zero = model_time(table, points.front()->size);
  std::vector<double> extra;
  for (const Point* p : points) {
    const std::optional<Seconds> t = model_time(table, p->size);
    if (t && zero && *t <= 2 * *zero)
      extra.push_back(p->median() - *t);
  }
  const Seconds core = std::max(0.0, quantile(extra, 0.5));
  std::string names;
  const std::vector<LaneShare>& lanes =
      choice->protocol->family == ProtoFamily::Rndv ? table.bw_lanes("rndv/get") : choice->candidate.lanes;
  for (const LaneShare& share : lanes) {
    if (std::find(taken.begin(), taken.end(), share.lane) != taken.end()) {
      out.notes.push_back(curve + format(" runs %.4f us above its model on lane ", core * 1e6) +
                          out.draft.lanes[share.lane].name +
                          ", whose overheads already hold another protocol's: left out");
      continue;
    }
    LaneAttrs& lane = out.draft.lanes[share.lane];
    lane.o_send += core / 2;
    lane.o_recv += core / 2;
    lane.o_send_steps = plus(lane.o_send_steps, core / 2);
    lane.o_recv_steps = plus(lane.o_recv_steps, core / 2);
    if (core > 0) {
      add_fit_set_source(out.draft.sources, lane.name + ".o_send");
      add_fit_set_source(out.draft.sources, lane.name + ".o_recv");
    }
    taken.push_back(share.lane);
    names += (names.empty() ? "" : ", ") + lane.name;
  }
  if (!names.empty())
    out.draft.comments.push_back("lane " + names + ": the protocol core's own time per message, " + curve +
                                 format(" measured less its model on the probed lanes (median of %.0f sizes): "
                                        "%.4f us, half added to o_send and half to o_recv",
                                        static_cast<double>(extra.size()), core * 1e6));
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

/// The figures a probe identifies, by the record's key: every one whose
/// source is a probe of its own, not "transport" (a figure the transport
/// reports, which no probe here measured) nor the fit set alone. A probe's
/// figure with the protocol core's own time from the fit set on top
/// ("post+fit-set") is the probe's: the core's share is measured once, as
/// the eager/short sweep's excess over the probes' model, not fitted.
std::set<std::string> identified_figures(const std::map<std::string, std::string>& sources) {
  std::set<std::string> out;
  for (const auto& [key, source] : sources) {
    const std::string probe = source.substr(0, source.find('+'));
    if (!probe.empty() && probe != "transport" && probe != "fit-set")
      out.insert(key);
  }
  return out;
}

/// The figures no probe identifies fitted to every forced protocol's sweep
/// (refine.hpp); the probes' figures stay as they are.
void refine_to_sweeps(const Measurements& m, Calibration& out) {
  std::vector<SweepPoint> points;
  std::vector<double> excess;
  for (const Point* p : m.sweeps.points()) {
    if (p->curve == "auto" || p->samples.empty())
      continue;
    const auto it = m.simulated_excess.find({p->curve, p->size});
    const Seconds extra = it == m.simulated_excess.end() ? 0 : it->second;
    if (it != m.simulated_excess.end())
      excess.push_back(extra / p->median());
    if (p->median() - extra > 0)
      points.push_back({p->curve, p->size, p->median() - extra});
  }
  if (points.empty())
    return;
  if (!excess.empty())
    out.draft.comments.push_back(
        format("the simulation of the sweeps on the previous draft ran beyond their cost lines by %.1f %% of the "
               "measured time (median over %.0f points; worst %.1f %%): fitted to the measured times less that",
               quantile(excess, 0.5) * 100, static_cast<double>(excess.size()), quantile(excess, 1) * 100));
  const PlatformDraft before = out.draft;
  const std::set<std::string> identified = identified_figures(out.draft.sources);
  const RefineReport r = refine_lanes(out.draft, points, identified);
  set_refined_sources(before, out.draft, out.draft.sources);
  // The sweeps move o_s but not o_send_after, which must stay a part of it.
  for (LaneAttrs& lane : out.draft.lanes) {
    Seconds least = lane.o_send;
    for (const SizeStep& step : lane.o_send_steps.steps())
      least = std::min(least, step.value);
    if (lane.o_send_after > least) {
      out.notes.push_back("lane " + lane.name +
                          format(": o_send_after %.4f us is more than o_s %.4f us once fitted to the sweeps: "
                                 "set to o_s",
                                 lane.o_send_after * 1e6, least * 1e6));
      lane.o_send_after = least;
    }
  }
  std::string moved;
  for (const std::string& change : r.changes)
    moved += (moved.empty() ? "" : "; ") + change;
  out.draft.comments.push_back(
      format("figures no probe identifies fitted to the protocols' sweeps (the relative errors' Huber loss, 10 %%, "
             "over %.0f points, %.0f passes): relative RMS %.1f %% with the probes' figures, %.1f %% after; ",
             static_cast<double>(r.points), r.passes, r.rel_rms_before * 100, r.rel_rms_after * 100) +
      (moved.empty() ? "none moved" : moved) + "; left as the probes gave them: " + keys_text(identified));
  if (r.factor_from > 0)
    out.draft.comments.push_back("message factor written to the platform (xover:bw_factor): past " +
                                 format_size(r.factor_from) +
                                 format(" a message's every per-byte cost runs 1 + %.4f x log2(n / ", r.factor_slope) +
                                 format_size(r.factor_from) +
                                 ") times slower (its buffers outgrow the caches): " +
                                 out.draft.bw_factor.to_string([](double f) { return format("%.4f", f); }));
  for (const LaneAttrs& lane : out.draft.lanes)
    if (!lane.message_factor.empty())
      out.draft.comments.push_back("lane " + lane.name +
                                   ": its own message factor written on its link (xover:bw_factor), pacing its "
                                   "transfers in place of the nodes' (the copies keep theirs): " +
                                   lane.message_factor.to_string([](double f) { return format("%.4f", f); }));
}

void fit_protocols(const Measurements& m, const Path& path, Calibration& out) {
  std::vector<std::string> curves;
  for (const Point* p : m.sweeps.points())
    if (p->curve != "auto" && std::find(curves.begin(), curves.end(), p->curve) == curves.end())
      curves.push_back(p->curve);
  for (const std::string& curve : curves) {
    const std::vector<const Point*> points = curve_points(m.sweeps, curve);
    if (points.empty())
      continue;
    std::vector<double> x, y, errors;
    SelectConfig config;
    config.forced = {curve};
    const ThresholdTable table = ThresholdTable::build(path, config);
    for (const Point* p : points) {
      x.push_back(static_cast<double>(p->size));
      y.push_back(p->median());
      if (const std::optional<Seconds> t = model_time(table, p->size))
        errors.push_back(std::abs(*t - p->median()) / p->median());
    }
    ProtocolFit fit{curve, fit_line(x, y, Weighting::Relative), points.front()->size, points.back()->size, 0, 0};
    fit.model_median_error = quantile(errors, 0.5);
    fit.model_worst_error = quantile(errors, 1);
    out.draft.comments.push_back("protocol " + curve + " " + format_size(fit.from) + ".." + format_size(fit.to) +
                                 ": T(n) = " + describe(fit.line) +
                                 format("; the model on these lanes: median error %.1f %%, worst %.1f %%",
                                        fit.model_median_error * 100, fit.model_worst_error * 100));
    out.protocols.push_back(fit);
  }
}

void find_protocol_changes(const Measurements& m, Calibration& out) {
  const std::vector<const Point*> points = curve_points(m.sweeps, "auto");
  std::vector<double> x, y;
  for (const Point* p : points) {
    x.push_back(static_cast<double>(p->size));
    y.push_back(p->median());
  }
  for (std::size_t i : find_breakpoints(x, y)) {
    const Breakpoint b{points[i - 1]->size, points[i]->size, points[i - 1]->selected, points[i]->selected};
    out.breakpoints.push_back(b);
    out.draft.comments.push_back("auto changes line between " + format_size(b.before) + " (" + b.from + ") and " +
                                 format_size(b.after) + " (" + b.to + ")" +
                                 (b.from == b.to ? ": the same protocol, a change of the hardware's regime" : ""));
  }
  if (points.size() > 1 && out.breakpoints.empty())
    out.draft.comments.push_back("auto: one line fits the whole curve, no protocol change seen in it");
}

}  // namespace

Calibration calibrate(const Measurements& m, FitDepth depth) {
  Calibration out;
  out.draft.title = "Calibrated on " + m.host + " by xover calibrate with backend " + m.backend + ", " + m.date +
                    ". Measurements of that one machine, not typical values. Fits (least squares; sizes s and n in "
                    "bytes):";
  if (!m.sampling.empty())
    out.draft.comments.push_back("sampling: " + m.sampling);
  std::vector<FittedLane> lanes;
  for (const LaneMeasurement& lane : m.lanes)
    for (FittedLane& fitted : fit_lane(lane, m, out))
      lanes.push_back(std::move(fitted));

  // The copies the protocols make run at the pace of a large copied
  // transfer where the lane itself is a copy (shared memory: no get on the
  // active-message lane); elsewhere at the transport's memcpy figure.
  out.draft.memcpy_bw = m.memcpy_bw;
  out.draft.sources["memcpy"] = "memcpy-probe";
  std::string copy_source = "the transport's memcpy measurement at set-up";
  const LaneMeasurement* copy_lane = nullptr;
  for (std::size_t i = 0; i < lanes.size() && !copy_lane; ++i)
    if (lanes[i].copy_per_byte > 0 && !lanes[i].timed_gets) {
      out.draft.memcpy_bw = 1 / lanes[i].copy_per_byte;
      const std::string probe = lanes[i].copy_from_train ? "train" : "stream";
      copy_source = "the " + probe + "'s G on lane " + lanes[i].attrs.name;
      out.draft.sources["memcpy"] = probe;
      for (const LaneMeasurement& lm : m.lanes)
        if (rail_name(lm.hardware.name) == lanes[i].attrs.name && !lanes[i].copy_from_train)
          copy_lane = &lm;
    }
  out.draft.comments.push_back(format("memcpy bandwidth: %.4f GB/s, from ", out.draft.memcpy_bw / 1e9) + copy_source +
                               format(" (the transport's memcpy figure: %.4f GB/s)", m.memcpy_bw / 1e9));
  for (FittedLane& lane : lanes)
    if (lane.copy_per_byte > 0 && !lane.timed_gets)
      am_only_bandwidth(lane, out.draft.memcpy_bw, out);
  if (copy_lane)
    if (SizeSteps steps = stream_copy_steps(copy_lane->am, out.draft.memcpy_bw); !steps.empty()) {
      out.draft.comments.push_back("memcpy bandwidth by copy size, written to the platform (G per size range: the "
                                   "stream's time per message in segments by least squares): " +
                                   steps.to_string([](double v) { return format("%.4f GB/s", v / 1e9); }));
      out.draft.memcpy_steps = std::move(steps);
      out.draft.memcpy_bw = out.draft.memcpy_steps.steps().front().value;
      out.draft.sources["memcpy"] = "stream-segments";
    }
  for (const FittedLane& lane : lanes) {
    out.draft.lanes.push_back(lane.attrs);
    set_probe_sources(lane.attrs, lane.probed_am, lane.timed_gets, out.draft.sources);
  }
  add_socket_copies(m, out);
  out.draft.fit_set = pingpong_fit_set(m.sweeps);

  std::vector<std::size_t> taken;
  add_core_overhead(m, "eager/short", taken, out);
  add_core_overhead(m, "rndv/get", taken, out);
  if (depth == FitDepth::Sweeps)
    refine_to_sweeps(m, out);
  for (const LaneAttrs& a : out.draft.lanes)
    out.draft.comments.push_back("lane " + a.name +
                                 format(": L = %.4f us, B = %.4f GB/s, o_s = %.4f us, o_r = %.4f us, g = %.4f us",
                                        a.latency * 1e6, a.bandwidth / 1e9, a.o_send * 1e6, a.o_recv * 1e6,
                                        a.gap * 1e6) +
                                 (a.o_send_after > 0 ? format(", o_send_after = %.4f us", a.o_send_after * 1e6) : "") +
                                 (a.bcopy_copies ? "" : ", bcopy sent from the user's buffer (no sender copy)") +
                                 (a.cpu_moves ? ", the initiator's CPU moves the bytes" : ""));
  fit_protocols(m, draft_path(out.draft), out);
  find_protocol_changes(m, out);
  out.draft.device = m.device;
  out.draft.device_copy = m.device_copy;
  if (m.device_copy)
    out.draft.comments.push_back(format("device memory: a copy to or from the host %.4f us + n / %.3f GB/s, device to "
                                        "device %.1f GB/s (the least of seven, each rank alone)",
                                        m.device_copy->stage_o * 1e6, m.device_copy->stage_bw / 1e9,
                                        m.device_copy->ipc_bw / 1e9));
  out.device_o_burst = m.device_o_burst;
  if (m.device)
    out.draft.comments.push_back(format("alltoall device: o_device %.4f us per put_signal 20 us apart (%.4f us back to "
                                        "back), o_proxy %.4f us per command, wake-up %.4f us (medians; one posting "
                                        "thread and one proxy)",
                                        m.device->device_o * 1e6, m.device_o_burst * 1e6, m.device->proxy_o * 1e6,
                                        m.device->proxy_wake * 1e6));
  out.draft.comments.push_back("fit set (xover:fit_set), the workloads and curves the figures were fitted to: " +
                               (out.draft.fit_set.empty() ? std::string("none") : fit_set_text(out.draft.fit_set)));
  out.draft.comments.push_back("the probe of each figure (xover:sources; fit-set: fitted to the fit set): " +
                               sources_text(out.draft.sources));
  for (const std::string& note : out.notes)
    out.draft.comments.push_back("note: " + note);
  return out;
}

}  // namespace xover::calib
