// The lanes' figures fitted to the protocols' sweeps (refine.hpp): the
// figures to move, the passes over them, and the figures by size in turn
// (refine_search.hpp, refine_steps.hpp).
#include "tools/calib/refine.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "protocols/perf/envelope.hpp"
#include "tools/calib/refine_search.hpp"
#include "tools/calib/refine_steps.hpp"

namespace xover::calib {
namespace {

std::string describe_change(const Knob& knob, double before, double after) {
  char buf[160];
  std::snprintf(buf, sizeof buf, " %.4f -> %.4f %s", before * knob.shown, after * knob.shown, knob.unit.c_str());
  return knob.name + buf;
}

/// The figures the coordinate descent moves: each lane's overheads,
/// latency, gap and bandwidth, and the copy bandwidth, but those a probe
/// identifies; `fastest` the quickest measured time, which bounds the time
/// figures' search.
std::vector<Knob> lane_knobs(const PlatformDraft& draft, Seconds fastest, const std::set<std::string>& identified) {
  std::vector<Knob> knobs;
  for (std::size_t i = 0; i < draft.lanes.size(); ++i) {
    const LaneAttrs& lane = draft.lanes[i];
    knobs.push_back(time_knob(i, "o_send", &LaneAttrs::o_send, fastest, draft, &LaneAttrs::o_send_steps));
    knobs.push_back(time_knob(i, "o_recv", &LaneAttrs::o_recv, fastest, draft, &LaneAttrs::o_recv_steps));
    // The part of o_s after the message has left (overheads that overlap
    // in time): a ping-pong sees o_s less it, a pipeline's sender all of o_s.
    if (lane.o_send_after > 0) {
      Knob after = time_knob(i, "o_send_after", &LaneAttrs::o_send_after, fastest, draft);
      after.key = lane.name + ".o_send";
      after.log_scale = false;
      after.lo = 0;
      after.hi = lane.o_send;
      knobs.push_back(after);
    }
    knobs.push_back(time_knob(i, "latency", &LaneAttrs::latency, fastest, draft));
    // A gap past a round trip would hold back a ping-pong's next message in
    // the simulator, which the cost lines of one message do not see.
    Knob gap = time_knob(i, "gap", &LaneAttrs::gap, 2 * fastest, draft);
    const double round_trip = gap.log_scale ? std::log(2 * fastest) : 2 * fastest;
    gap.hi = std::max(gap.lo, std::min(gap.hi, std::max(round_trip, gap.log_scale ? std::log(gap.get(draft)) : 0.0)));
    knobs.push_back(gap);
    if (lane.bandwidth > 0)
      knobs.push_back(bandwidth_knob(i, draft));
  }
  if (draft.memcpy_bw > 0)
    knobs.push_back(memcpy_knob(draft));
  std::erase_if(knobs, [&identified](const Knob& k) { return identified.contains(k.key); });
  return knobs;
}

/// Every figure in turn until a pass gains less than 0.1 % (8 at most).
void refine_passes(PlatformDraft& d, const std::vector<Knob>& knobs,
                   const SweepsByCurve& by_curve, double& c, RefineReport& r) {
  for (int pass = 0; pass < 8; ++pass) {
    ++r.passes;
    const double start = c;
    for (const Knob& knob : knobs)
      search(d, knob, by_curve, c);
    if (c > start * (1 - 1e-3))
      return;
  }
}

/// The figures by size beside the lanes' — the message factor every lane
/// sees (first when `factor_first`, else last), each lane's own factor,
/// bandwidth step and overhead step — then the lanes again, in rounds until
/// one gains less than 0.1 % (4 at most).
void refine_by_size(bool factor_first, PlatformDraft& d, const std::vector<Knob>& knobs,
                    const SweepsByCurve& by_curve, const std::set<std::string>& identified, double& c,
                    RefineReport& r) {
  const bool copy_free = !identified.contains("memcpy");
  for (int round = 0; round < 4; ++round) {
    const double start = c;
    if (factor_first)
      fit_message_factor(d, by_curve, copy_free, c, r);
    for (std::size_t i = 0; i < d.lanes.size(); ++i) {
      const std::string lane = d.lanes[i].name + ".";
      const bool bandwidth_free = !identified.contains(lane + "bandwidth");
      // The lane's own factor before its bandwidth step: on a get the
      // step's slope can stand in for it, and whichever comes first takes
      // the bend, which is the message's size, not the operation's.
      if (d.lanes[i].bandwidth > 0) {
        fit_lane_message_factor(d, i, by_curve, bandwidth_free, c);
        if (bandwidth_free)
          fit_bandwidth_step(d, i, by_curve, c);
      }
      if (!identified.contains(lane + "o_send") || !identified.contains(lane + "o_recv"))
        fit_overhead_step(d, i, by_curve, c);
    }
    if (!factor_first)
      fit_message_factor(d, by_curve, copy_free, c, r);
    refine_passes(d, knobs, by_curve, c, r);
    if (c > start * (1 - 1e-3))
      break;
  }
}

/// The report's lines for the figures by size the fit left on each lane:
/// bandwidth steps, overhead steps, the lane's own message factor.
void report_size_steps(const PlatformDraft& draft, RefineReport& report) {
  for (const LaneAttrs& lane : draft.lanes)
    for (std::size_t k = 1; k < lane.bandwidth_steps.steps().size(); ++k) {
      char buf[160];
      std::snprintf(buf, sizeof buf, ": bandwidth from %s B: %.4f GB/s",
                    std::to_string(lane.bandwidth_steps.steps()[k].from).c_str(),
                    lane.bandwidth_steps.steps()[k].value * 1e-9);
      report.changes.push_back("lane " + lane.name + buf);
    }
  for (const LaneAttrs& lane : draft.lanes)
    for (std::size_t k = 1; k < lane.o_send_steps.steps().size() && k < lane.o_recv_steps.steps().size(); ++k) {
      char buf[200];
      std::snprintf(buf, sizeof buf, ": o_send, o_recv from %s B: %.4f, %.4f us",
                    std::to_string(lane.o_send_steps.steps()[k].from).c_str(),
                    lane.o_send_steps.steps()[k].value * 1e6, lane.o_recv_steps.steps()[k].value * 1e6);
      report.changes.push_back("lane " + lane.name + buf);
    }
  for (const LaneAttrs& lane : draft.lanes)
    if (lane.message_factor.steps().size() > 1) {
      char buf[160];
      std::snprintf(buf, sizeof buf, ": message factor from %s B: slope %.4f",
                    std::to_string(lane.message_factor.steps()[1].from / 2).c_str(), factor_slope(lane.message_factor));
      report.changes.push_back("lane " + lane.name + buf);
    }
}

}  // namespace

Path draft_path(const PlatformDraft& draft) {
  Path path{"node0", "node1", draft.lanes, draft.memcpy_bw, draft.memcpy_bw, draft.memcpy_steps, draft.memcpy_steps};
  path.message_factor = draft.bw_factor;
  return path;
}

std::optional<Seconds> model_time(const ThresholdTable& table, Bytes n) {
  const ProtoChoice* choice = table.lookup(n);
  if (!choice)
    return std::nullopt;
  for (const PerfRange& range : choice->candidate.ranges) {
    if (n < range.from || n > range.to)
      continue;
    Seconds t = 0;
    if (evaluate(range.factors.cost(PerfType::Latency, n, n), n, t))
      return t;
  }
  return std::nullopt;
}

double model_rel_rms(const PlatformDraft& draft, const std::vector<SweepPoint>& points) {
  if (points.empty())
    return 0;
  SweepsByCurve by_curve;
  for (const SweepPoint& p : points)
    by_curve[p.curve].push_back(&p);
  return std::sqrt(cost(draft, by_curve, true) / static_cast<double>(points.size()));
}

RefineReport refine_lanes(PlatformDraft& draft, const std::vector<SweepPoint>& points,
                          const std::set<std::string>& identified) {
  RefineReport report;
  report.points = points.size();
  SweepsByCurve by_curve;
  Seconds fastest = 0;
  for (const SweepPoint& p : points) {
    if (!(p.measured > 0))
      continue;
    by_curve[p.curve].push_back(&p);
    fastest = fastest == 0 ? p.measured : std::min(fastest, p.measured);
  }
  report.rel_rms_before = model_rel_rms(draft, points);
  report.rel_rms_after = report.rel_rms_before;
  if (by_curve.empty())
    return report;

  const std::vector<Knob> knobs = lane_knobs(draft, fastest, identified);
  std::vector<double> before;
  for (const Knob& knob : knobs)
    before.push_back(knob.get(draft));
  double current = cost(draft, by_curve);
  refine_passes(draft, knobs, by_curve, current, report);
  // Then the figures by size beside them, and the lanes again, in turn;
  // in either order (the factor every lane sees first, or each lane's own
  // step first: whichever comes first takes what the other could have
  // held), the better kept.
  PlatformDraft lanes_first = draft;
  double lanes_first_cost = current;
  RefineReport lanes_first_report = report;
  refine_by_size(true, draft, knobs, by_curve, identified, current, report);
  refine_by_size(false, lanes_first, knobs, by_curve, identified, lanes_first_cost, lanes_first_report);
  if (lanes_first_cost < current) {
    draft = lanes_first;
    current = lanes_first_cost;
    report = lanes_first_report;
  }
  for (std::size_t i = 0; i < knobs.size(); ++i)
    if (const double after = knobs[i].get(draft); after != before[i])
      report.changes.push_back(describe_change(knobs[i], before[i], after));
  report_size_steps(draft, report);
  report.rel_rms_after = model_rel_rms(draft, points);
  return report;
}

}  // namespace xover::calib
