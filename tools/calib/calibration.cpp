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
// On a lane whose gets the target serves, the core's part of o_send and
// o_recv is the core probe's (core_probe.hpp) and that sweep's excess, for
// the served get's target, which runs no core code: the excess is the
// initiator's alone, as it was measured.
// Each figure comes from the probe that identifies it, and stays as that
// probe gave it. Last, what no probe identifies (a lane's figures the
// transport reports rather than a probe measures, such as a lane of gets'
// overheads and gap; the message factors past the caches) is fitted to the
// protocols' own sweeps (refine.hpp), and the record says which.
#include "tools/calib/calibration.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

#include "protocols/perf/envelope.hpp"
#include "protocols/select/threshold_table.hpp"
#include "tools/calib/lane_fit.hpp"
#include "tools/calib/provenance.hpp"
#include "tools/calib/refine.hpp"
#include "tools/calib/socket_copies.hpp"

namespace xover::calib {
namespace {

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
/// already carry another curve's figure and are left as they are. On a
/// lane whose gets the target serves (LaneAttrs::get_served), the excess
/// is the core's part of the overheads too (o_core_send, o_core_recv): the
/// target, which runs no core code, does not pay it, and the model of the
/// sweep meets the sweep (charged at both ends, it ran the excess above).
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
      out.notes.push_back(curve + printf_text(" runs %.4f us above its model on lane ", core * 1e6) +
                          out.draft.lanes[share.lane].name +
                          ", whose overheads already hold another protocol's: left out");
      continue;
    }
    LaneAttrs& lane = out.draft.lanes[share.lane];
    lane.o_send += core / 2;
    lane.o_recv += core / 2;
    lane.o_send_steps = plus(lane.o_send_steps, core / 2);
    lane.o_recv_steps = plus(lane.o_recv_steps, core / 2);
    if (lane.get_served && !lane.cpu_moves) {
      lane.o_core_send += core / 2;
      lane.o_core_recv += core / 2;
    }
    if (core > 0) {
      add_fit_set_source(out.draft.sources, lane.name + ".o_send");
      add_fit_set_source(out.draft.sources, lane.name + ".o_recv");
    }
    taken.push_back(share.lane);
    names += (names.empty() ? "" : ", ") + lane.name;
  }
  if (!names.empty())
    out.draft.comments.push_back("lane " + names + ": the protocol core's own time per message, " + curve +
                                 printf_text(" measured less its model on the probed lanes (median of %.0f sizes): "
                                        "%.4f us, half added to o_send and half to o_recv",
                                        static_cast<double>(extra.size()), core * 1e6));
}

/// The protocol core's part of o_send and o_recv (core_probe.hpp) on the
/// lanes whose gets the target's transport serves without the core
/// (LaneAttrs::get_served), added to the sweep's excess already there
/// (add_core_overhead), at most the lane's own figure at its smallest size
/// step; the other lanes' operations all run the core, and carry none.
void add_core_part(const Measurements& m, Calibration& out) {
  for (LaneAttrs& lane : out.draft.lanes) {
    if (!lane.get_served || lane.cpu_moves)
      continue;
    const Seconds excess_send = lane.o_core_send, excess_recv = lane.o_core_recv;
    const bool probed = m.core.trains > 0;
    if (!probed && excess_send == 0 && excess_recv == 0)
      continue;
    Seconds o_send = lane.o_send, o_recv = lane.o_recv;
    for (const SizeStep& step : lane.o_send_steps.steps())
      o_send = std::min(o_send, step.value);
    for (const SizeStep& step : lane.o_recv_steps.steps())
      o_recv = std::min(o_recv, step.value);
    const Seconds want_send = excess_send + (probed ? m.core.send : 0);
    const Seconds want_recv = excess_recv + (probed ? m.core.recv : 0);
    lane.o_core_send = std::min(want_send, o_send);
    lane.o_core_recv = std::min(want_recv, o_recv);
    const std::string source = probed ? (excess_send > 0 ? "core-probe+fit-set" : "core-probe") : "fit-set";
    out.draft.sources[lane.name + ".o_core_send"] = source;
    out.draft.sources[lane.name + ".o_core_recv"] = source;
    std::string text = "lane " + lane.name + ": the protocol core's own time per message";
    if (probed)
      text += printf_text(", from the core probe (a Worker pair over an in-process loop whose sends cost nothing, "
                          "eager/short, median of %.0f trains of %.0f): send %.4f us, receive %.4f us",
                          m.core.trains, m.core.messages, m.core.send * 1e6, m.core.recv * 1e6);
    if (excess_send > 0 || excess_recv > 0)
      text += std::string(probed ? ", and" : ",") +
              printf_text(" the rndv/get sweep's excess over its model (send %.4f us, receive %.4f us)",
                          excess_send * 1e6, excess_recv * 1e6);
    out.draft.comments.push_back(
        text + printf_text("; its part of o_send and o_recv (xover:o_core_send %.4f us, xover:o_core_recv %.4f us), "
                           "which the target serving a get does not pay",
                           lane.o_core_send * 1e6, lane.o_core_recv * 1e6));
    if (lane.o_core_send < want_send || lane.o_core_recv < want_recv)
      out.notes.push_back("lane " + lane.name +
                          ": the protocol core's time is more than the lane's own o_send or o_recv: its part "
                          "clipped at the lane's figure");
  }
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
        printf_text("the simulation of the sweeps on the previous draft ran beyond their cost lines by %.1f %% of the "
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
                          printf_text(": o_send_after %.4f us is more than o_s %.4f us once fitted to the sweeps: "
                                 "set to o_s",
                                 lane.o_send_after * 1e6, least * 1e6));
      lane.o_send_after = least;
    }
  }
  std::string moved;
  for (const std::string& change : r.changes)
    moved += (moved.empty() ? "" : "; ") + change;
  out.draft.comments.push_back(
      printf_text("figures no probe identifies fitted to the protocols' sweeps (the relative errors' Huber loss, 10 %%, "
             "over %.0f points, %.0f passes): relative RMS %.1f %% with the probes' figures, %.1f %% after; ",
             static_cast<double>(r.points), r.passes, r.rel_rms_before * 100, r.rel_rms_after * 100) +
      (moved.empty() ? "none moved" : moved) + "; left as the probes gave them: " + keys_text(identified));
  if (r.factor_from > 0)
    out.draft.comments.push_back("message factor written to the platform (xover:bw_factor): past " +
                                 format_size(r.factor_from) +
                                 printf_text(" a message's every per-byte cost runs 1 + %.4f x log2(n / ", r.factor_slope) +
                                 format_size(r.factor_from) +
                                 ") times slower (its buffers outgrow the caches): " +
                                 out.draft.bw_factor.to_string([](double f) { return printf_text("%.4f", f); }));
  for (const LaneAttrs& lane : out.draft.lanes)
    if (!lane.message_factor.empty())
      out.draft.comments.push_back("lane " + lane.name +
                                   ": its own message factor written on its link (xover:bw_factor), pacing its "
                                   "transfers in place of the nodes' (the copies keep theirs): " +
                                   lane.message_factor.to_string([](double f) { return printf_text("%.4f", f); }));
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
                                 ": T(n) = " + describe_line(fit.line) +
                                 printf_text("; the model on these lanes: median error %.1f %%, worst %.1f %%",
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
  out.draft.comments.push_back(printf_text("memcpy bandwidth: %.4f GB/s, from ", out.draft.memcpy_bw / 1e9) + copy_source +
                               printf_text(" (the transport's memcpy figure: %.4f GB/s)", m.memcpy_bw / 1e9));
  for (FittedLane& lane : lanes)
    if (lane.copy_per_byte > 0 && !lane.timed_gets)
      am_only_bandwidth(lane, out.draft.memcpy_bw, out);
  if (copy_lane)
    if (SizeSteps steps = stream_copy_steps(copy_lane->am, out.draft.memcpy_bw); !steps.empty()) {
      out.draft.comments.push_back("memcpy bandwidth by copy size, written to the platform (G per size range: the "
                                   "stream's time per message in segments by least squares): " +
                                   steps.to_string([](double v) { return printf_text("%.4f GB/s", v / 1e9); }));
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
  add_core_part(m, out);
  for (const LaneAttrs& a : out.draft.lanes)
    out.draft.comments.push_back("lane " + a.name +
                                 printf_text(": L = %.4f us, B = %.4f GB/s, o_s = %.4f us, o_r = %.4f us, g = %.4f us",
                                        a.latency * 1e6, a.bandwidth / 1e9, a.o_send * 1e6, a.o_recv * 1e6,
                                        a.gap * 1e6) +
                                 (a.o_send_after > 0 ? printf_text(", o_send_after = %.4f us", a.o_send_after * 1e6) : "") +
                                 (a.bcopy_copies ? "" : ", bcopy sent from the user's buffer (no sender copy)") +
                                 (a.cpu_moves ? ", the initiator's CPU moves the bytes" : ""));
  fit_protocols(m, draft_path(out.draft), out);
  find_protocol_changes(m, out);
  out.draft.device = m.device;
  out.draft.device_copy = m.device_copy;
  if (m.device_copy)
    out.draft.comments.push_back(printf_text("device memory: a copy to or from the host %.4f us + n / %.3f GB/s, device to "
                                        "device %.1f GB/s (the least of seven, each rank alone)",
                                        m.device_copy->stage_o * 1e6, m.device_copy->stage_bw / 1e9,
                                        m.device_copy->ipc_bw / 1e9));
  out.device_o_burst = m.device_o_burst;
  if (m.device)
    out.draft.comments.push_back(printf_text("alltoall device: o_device %.4f us per put_signal 20 us apart (%.4f us back to "
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
