// The lanes' figures fitted to the protocols' sweeps (refine.hpp).
#include "tools/calib/refine.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>

#include "protocols/perf/envelope.hpp"

namespace xover::calib {
namespace {

/// One figure of the draft that the fit moves, searched over [lo, hi]: the
/// value itself (times) or its logarithm (bandwidths).
struct Knob {
  std::string name;
  bool log_scale = false;
  double lo = 0, hi = 0;
  std::function<double(const PlatformDraft&)> get;
  std::function<void(PlatformDraft&, double)> set;
  std::string unit;  ///< "us" or "GB/s"
  double shown = 1;  ///< what a value is multiplied by to show it in `unit`
};

/// Every value of `steps` multiplied by `ratio`.
SizeSteps scaled(const SizeSteps& steps, double ratio) {
  if (steps.empty())
    return steps;
  std::vector<SizeStep> out = steps.steps();
  for (SizeStep& step : out)
    step.value *= ratio;
  return SizeSteps(std::move(out));
}

/// A lane's time from a quarter to four times the probes' (a ping-pong
/// sees o_s + L + o_r, not how the probes split them: the split stays
/// theirs within that), or from 0 to `ceiling` where they measured none.
/// A figure with steps by size (`steps`) moves them all in proportion (from
/// 0, where they would stay 0, to one value).
Knob time_knob(std::size_t lane, const char* what, Seconds LaneAttrs::*field, Seconds ceiling,
               const PlatformDraft& draft, SizeSteps LaneAttrs::*steps = nullptr) {
  Knob k;
  k.name = "lane " + draft.lanes[lane].name + ": " + what;
  const Seconds v = draft.lanes[lane].*field;
  k.log_scale = v > 0;
  k.lo = v > 0 ? std::log(v / 4) : 0;
  k.hi = v > 0 ? std::log(4 * v) : ceiling;
  k.get = [lane, field](const PlatformDraft& d) { return d.lanes[lane].*field; };
  k.set = [lane, field, steps](PlatformDraft& d, double v) {
    LaneAttrs& a = d.lanes[lane];
    if (steps && !(a.*steps).empty())
      a.*steps = a.*field > 0 ? scaled(a.*steps, v / (a.*field)) : SizeSteps({{0, v}});
    a.*field = v;
  };
  k.unit = "us";
  k.shown = 1e6;
  return k;
}

Knob bandwidth_knob(std::size_t lane, const PlatformDraft& draft) {
  Knob k;
  k.name = "lane " + draft.lanes[lane].name + ": bandwidth";
  k.log_scale = true;
  k.lo = std::log(draft.lanes[lane].bandwidth / 8);
  k.hi = std::log(draft.lanes[lane].bandwidth * 8);
  k.get = [lane](const PlatformDraft& d) { return d.lanes[lane].bandwidth; };
  k.set = [lane](PlatformDraft& d, double v) {
    LaneAttrs& a = d.lanes[lane];
    a.bandwidth_steps = scaled(a.bandwidth_steps, v / a.bandwidth);
    a.bandwidth = v;
  };
  k.unit = "GB/s";
  k.shown = 1e-9;
  return k;
}

Knob memcpy_knob(const PlatformDraft& draft) {
  Knob k;
  k.name = "memcpy bandwidth";
  k.log_scale = true;
  k.lo = std::log(draft.memcpy_bw / 8);
  k.hi = std::log(draft.memcpy_bw * 8);
  k.get = [](const PlatformDraft& d) { return d.memcpy_bw; };
  k.set = [](PlatformDraft& d, double v) {
    d.memcpy_steps = scaled(d.memcpy_steps, v / d.memcpy_bw);
    d.memcpy_bw = v;
  };
  k.unit = "GB/s";
  k.shown = 1e-9;
  return k;
}

/// Relative errors past this count linearly in the fit (Huber's loss): a
/// point the machine spoiled pulls no harder than a miss of this size.
constexpr double kHuber = 0.1;

/// Σ over `points` of the relative error's square (`squares`) or its
/// Huber loss, a point no protocol carries an error of 1.
double cost(const PlatformDraft& draft, const std::map<std::string, std::vector<const SweepPoint*>>& by_curve,
            bool squares = false) {
  const Path path = draft_path(draft);
  double sum = 0;
  for (const auto& [curve, points] : by_curve) {
    SelectConfig config;
    config.forced = {curve};
    const ThresholdTable table = ThresholdTable::build(path, config);
    for (const SweepPoint* p : points) {
      const std::optional<Seconds> t = model_time(table, p->size);
      const double e = std::abs(t ? (*t - p->measured) / p->measured : 1.0);
      sum += squares || e <= kHuber ? e * e : kHuber * (2 * e - kHuber);
    }
  }
  return sum;
}

/// The knob's value (in its search scale) with the least cost: 17 points
/// over its range, then golden section within the best one's neighbours;
/// the current value unless another is better by more than a millionth.
void search(PlatformDraft& draft, const Knob& knob,
            const std::map<std::string, std::vector<const SweepPoint*>>& by_curve, double& current) {
  const double start = knob.get(draft);
  auto at = [&](double x) {
    knob.set(draft, knob.log_scale ? std::exp(x) : x);
    return cost(draft, by_curve);
  };
  constexpr int kGrid = 16;
  const double step = (knob.hi - knob.lo) / kGrid;
  double best_x = knob.log_scale ? std::log(start) : start;
  double best = current;
  for (int i = 0; i <= kGrid; ++i) {
    const double x = knob.lo + i * step;
    if (const double c = at(x); c < best * (1 - 1e-6)) {
      best = c;
      best_x = x;
    }
  }
  const double golden = (std::sqrt(5.0) - 1) / 2;
  double a = std::max(knob.lo, best_x - step), b = std::min(knob.hi, best_x + step);
  double x1 = b - golden * (b - a), x2 = a + golden * (b - a);
  double c1 = at(x1), c2 = at(x2);
  for (int i = 0; i < 30; ++i) {
    if (c1 < c2) {
      b = x2;
      x2 = x1;
      c2 = c1;
      x1 = b - golden * (b - a);
      c1 = at(x1);
    } else {
      a = x1;
      x1 = x2;
      c1 = c2;
      x2 = a + golden * (b - a);
      c2 = at(x2);
    }
  }
  const double x = c1 < c2 ? x1 : x2;
  if (const double c = std::min(c1, c2); c < best * (1 - 1e-6)) {
    best = c;
    best_x = x;
  }
  knob.set(draft, knob.log_scale ? std::exp(best_x) : best_x);
  current = best;
}

/// A figure by size that the fit adds (a step, a slope, a factor) is kept
/// only where it takes 1 % off the cost and at least this relative error's
/// square per point: less, and it would be fitting the sweeps' noise, or
/// the last per mille a coordinate descent leaves, not a change of the
/// machine's costs with size.
constexpr double kWorth = 0.01;

/// The cost a figure added to a fit of `current` must come under.
double to_beat(double current, const std::map<std::string, std::vector<const SweepPoint*>>& by_curve) {
  std::size_t points = 0;
  for (const auto& [curve, of_curve] : by_curve)
    points += of_curve.size();
  return current - std::max(0.01 * current, static_cast<double>(points) * kWorth * kWorth);
}

/// 1 / (1 + a·log2(n / n0)) at n0·2, n0·4, ... up to `largest`, 1 below.
SizeSteps factor_steps(Bytes n0, double a, Bytes largest) {
  std::vector<SizeStep> steps{{0, 1}};
  for (Bytes n = 2 * n0; n <= largest; n *= 2)
    steps.push_back({n, 1 / (1 + a * std::log2(static_cast<double>(n) / static_cast<double>(n0)))});
  return SizeSteps(std::move(steps));
}

/// The sweep sizes, ascending, each once.
std::vector<Bytes> sweep_sizes(const std::map<std::string, std::vector<const SweepPoint*>>& by_curve) {
  std::vector<Bytes> sizes;
  for (const auto& [curve, points] : by_curve)
    for (const SweepPoint* p : points)
      sizes.push_back(p->size);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

/// A message factor in `slot` of the draft (the nodes' or one lane's)
/// that slows the per-byte costs it paces, for messages past n0, by a per
/// doubling of their size, where their buffers outgrow the caches: n0 each
/// sweep size from 64 KiB below the largest, a from 0 to 4 (a grid, then
/// golden section), then each of `beside` (the figures whose pace the
/// factor multiplies: below n0 they must hold alone what they shared with
/// a factor that started elsewhere), then a again. A first factor is kept
/// when it gains as to_beat says, a later one when it gains at all over
/// the one in place. The n0 of the one found; none when the one in place
/// (or none) stays, and the draft as it was.
std::optional<Bytes> fit_factor(PlatformDraft& draft, const std::function<SizeSteps&(PlatformDraft&)>& slot,
                                const std::vector<Knob>& beside,
                                const std::map<std::string, std::vector<const SweepPoint*>>& by_curve,
                                double& current) {
  const std::vector<Bytes> sizes = sweep_sizes(by_curve);
  if (sizes.empty())
    return std::nullopt;
  const Bytes largest = sizes.back();
  const PlatformDraft in_place = draft;
  double best = slot(draft).empty() ? to_beat(current, by_curve) : current;
  std::optional<std::pair<Bytes, PlatformDraft>> found;
  for (Bytes n0 : sizes) {
    if (n0 < 65536 || n0 >= largest)
      continue;
    const auto a_now = std::make_shared<double>(0);
    Knob slope;
    slope.hi = 4;
    slope.get = [a_now](const PlatformDraft&) { return *a_now; };
    slope.set = [n0, largest, &slot, a_now](PlatformDraft& d, double a) {
      *a_now = a;
      slot(d) = factor_steps(n0, a, largest);
    };
    draft = in_place;
    slot(draft) = {};
    double cost_here = cost(draft, by_curve);
    search(draft, slope, by_curve, cost_here);
    for (const Knob& knob : beside)
      search(draft, knob, by_curve, cost_here);
    if (!beside.empty())
      search(draft, slope, by_curve, cost_here);
    if (cost_here < best) {
      best = cost_here;
      found = {n0, draft};
    }
  }
  draft = found ? found->second : in_place;
  if (!found)
    return std::nullopt;
  current = best;
  return found->first;
}

/// The slope a of a factor factor_steps() made: 1 / its first step past 1, less 1.
double factor_slope(const SizeSteps& factor) {
  return factor.steps().size() > 1 ? 1 / factor.steps()[1].value - 1 : 0;
}

/// The message factor every lane and copy sees (Path::message_factor,
/// draft.bw_factor), by fit_factor.
void fit_message_factor(PlatformDraft& draft, const std::map<std::string, std::vector<const SweepPoint*>>& by_curve,
                        double& current, RefineReport& report) {
  const auto nodes = [](PlatformDraft& d) -> SizeSteps& { return d.bw_factor; };
  const std::vector<Knob> beside = draft.memcpy_bw > 0 ? std::vector<Knob>{memcpy_knob(draft)} : std::vector<Knob>{};
  if (const std::optional<Bytes> n0 = fit_factor(draft, nodes, beside, by_curve, current)) {
    report.factor_from = *n0;
    report.factor_slope = factor_slope(draft.bw_factor);
  }
}

/// One lane's own message factor (LaneAttrs::message_factor), which paces
/// its transfers in place of the nodes' while the copies keep theirs (a
/// cma get bends past the caches otherwise than shared memory's copies),
/// by fit_factor.
void fit_lane_message_factor(PlatformDraft& draft, std::size_t lane,
                             const std::map<std::string, std::vector<const SweepPoint*>>& by_curve,
                             double& current) {
  fit_factor(draft, [lane](PlatformDraft& d) -> SizeSteps& { return d.lanes[lane].message_factor; },
             {bandwidth_knob(lane, draft)}, by_curve, current);
}

/// One lane's bandwidth for operations of b bytes and more (a TCP stream of
/// 64 KiB fragments paces far slower per byte than one 32 KiB message,
/// which the socket takes whole), slower again by 1 + a·log2(n / b) past b
/// in steps at b's doublings (a get of a ping-pong's buffers past the
/// caches): b just past each sweep size from 1 KiB, the bandwidth
/// from b from an eighth of the lane's up to it, the one below b from an
/// eighth to eight times (each a grid on a log scale, then golden section),
/// a from 0 to 4. A first step is kept when it gains
/// as to_beat says, a later one when it gains over the one in place; the lane
/// keeps its own steps otherwise. True when the lane has a step at the end.
bool fit_bandwidth_step(PlatformDraft& draft, std::size_t lane,
                        const std::map<std::string, std::vector<const SweepPoint*>>& by_curve, double& current) {
  const std::vector<Bytes> sizes = sweep_sizes(by_curve);
  if (sizes.empty())
    return false;
  const SizeSteps in_place = draft.lanes[lane].bandwidth_steps;
  const BytesPerSecond below = in_place.empty() ? draft.lanes[lane].bandwidth : in_place.steps().front().value;
  double best = in_place.empty() ? to_beat(current, by_curve) : current;
  std::optional<SizeSteps> found;
  // Just past each sweep size: the size itself below the step, and a
  // fragment a header short of the next size above it.
  for (Bytes size : sizes) {
    const Bytes b = size + 1;
    if (size < 1024 || b >= sizes.back())
      continue;
    // The bandwidth from b on, then the one below it (which the lanes' own
    // fit may have bent to stand in for the step), then how much slower
    // each doubling past b runs (a get of a ping-pong's buffers past the
    // caches), then the first again.
    struct Shape {
      BytesPerSecond lower, upper;
      double slope = 0;
    };
    const auto shape = std::make_shared<Shape>(Shape{below, below});
    const Bytes largest = sizes.back();
    const auto apply = [lane, b, largest, shape](PlatformDraft& d) {
      std::vector<SizeStep> steps{{0, shape->lower}, {b, shape->upper}};
      if (shape->slope > 0)
        for (Bytes n = 2 * b; n <= largest; n *= 2)
          steps.push_back(
              {n, shape->upper / (1 + shape->slope * std::log2(static_cast<double>(n) / static_cast<double>(b)))});
      d.lanes[lane].bandwidth = shape->lower;
      d.lanes[lane].bandwidth_steps = SizeSteps(std::move(steps));
    };
    const auto knob = [&apply, shape](double Shape::*field, bool log_scale, double lo, double hi) {
      Knob k;
      k.log_scale = log_scale;
      k.lo = lo;
      k.hi = hi;
      k.get = [shape, field](const PlatformDraft&) { return shape.get()->*field; };
      k.set = [apply, shape, field](PlatformDraft& d, double v) {
        shape.get()->*field = v;
        apply(d);
      };
      return k;
    };
    const Knob upper = knob(&Shape::upper, true, std::log(below / 8), std::log(below));
    const Knob lower = knob(&Shape::lower, true, std::log(below / 8), std::log(below * 8));
    const Knob slope = knob(&Shape::slope, false, 0, 4);
    apply(draft);
    double cost_here = cost(draft, by_curve);
    for (const Knob* k : {&upper, &lower, &slope, &upper})
      search(draft, *k, by_curve, cost_here);
    if (shape->slope > 0) {
      const double sloped = shape->slope;
      slope.set(draft, 0);
      if (const double flat = cost(draft, by_curve); cost_here < to_beat(flat, by_curve)) {
        slope.set(draft, sloped);
      } else {
        cost_here = flat;
      }
    }
    if (cost_here < best) {
      best = cost_here;
      found = draft.lanes[lane].bandwidth_steps;
    }
  }
  draft.lanes[lane].bandwidth_steps = found ? *found : in_place;
  draft.lanes[lane].bandwidth = found ? found->steps().front().value : below;
  if (found)
    current = best;
  return !draft.lanes[lane].bandwidth_steps.empty();
}

/// One lane's overheads below s bytes and from s bytes on, o_send and
/// o_recv each times one ratio below and another from s (a ping-pong sees
/// their sum, not the split): the fixed costs of small messages change with
/// size by more than a line follows (SMPI's `smpi/os` sections; shared
/// memory's 32 B messages take less time on this project's machine than
/// its 8 B ones). s each sweep size but the smallest up to 64 KiB (past
/// it, fixed costs are a few per cent of a point, and the bandwidth's
/// steps hold what changes there), the
/// ratios from a quarter to four times (each a grid on a log scale, then
/// golden section; the one from s, the one below, the one from s again).
/// A first step is kept when it gains as to_beat says, a later one when it
/// gains over the one in place; the lane keeps its own figures otherwise.
/// True when the lane has steps at the end.
bool fit_overhead_step(PlatformDraft& draft, std::size_t lane,
                       const std::map<std::string, std::vector<const SweepPoint*>>& by_curve, double& current) {
  const std::vector<Bytes> sizes = sweep_sizes(by_curve);
  const LaneAttrs in_place = draft.lanes[lane];
  const bool had_steps = !in_place.o_send_steps.empty() || !in_place.o_recv_steps.empty();
  const Seconds o_send = in_place.o_send_steps.empty() ? in_place.o_send : in_place.o_send_steps.steps().front().value;
  const Seconds o_recv = in_place.o_recv_steps.empty() ? in_place.o_recv : in_place.o_recv_steps.steps().front().value;
  double best = had_steps ? current : to_beat(current, by_curve);
  std::optional<LaneAttrs> found;
  for (std::size_t i = 1; i + 1 < sizes.size() && sizes[i] <= 65536; ++i) {
    const Bytes from = sizes[i];
    struct Shape {
      double below = 1, above = 1;
    };
    const auto shape = std::make_shared<Shape>();
    const auto knob = [lane, from, o_send, o_recv, shape](double Shape::*field) {
      Knob k;
      k.log_scale = true;
      k.lo = std::log(0.25);
      k.hi = std::log(4.0);
      k.get = [shape, field](const PlatformDraft&) { return shape.get()->*field; };
      k.set = [lane, from, o_send, o_recv, shape, field](PlatformDraft& d, double ratio) {
        shape.get()->*field = ratio;
        LaneAttrs& l = d.lanes[lane];
        l.o_send = o_send * shape->below;
        l.o_recv = o_recv * shape->below;
        l.o_send_steps = SizeSteps({{0, l.o_send}, {from, o_send * shape->above}});
        l.o_recv_steps = SizeSteps({{0, l.o_recv}, {from, o_recv * shape->above}});
      };
      return k;
    };
    const Knob above = knob(&Shape::above);
    const Knob below = knob(&Shape::below);
    above.set(draft, 1.0);
    double cost_here = cost(draft, by_curve);
    for (const Knob* k : {&above, &below, &above})
      search(draft, *k, by_curve, cost_here);
    if (cost_here < best) {
      best = cost_here;
      found = draft.lanes[lane];
    }
  }
  draft.lanes[lane] = found ? *found : in_place;
  if (found)
    current = best;
  return !draft.lanes[lane].o_send_steps.empty();
}

std::string describe_change(const Knob& knob, double before, double after) {
  char buf[160];
  std::snprintf(buf, sizeof buf, " %.4f -> %.4f %s", before * knob.shown, after * knob.shown, knob.unit.c_str());
  return knob.name + buf;
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
  std::map<std::string, std::vector<const SweepPoint*>> by_curve;
  for (const SweepPoint& p : points)
    by_curve[p.curve].push_back(&p);
  return std::sqrt(cost(draft, by_curve, true) / static_cast<double>(points.size()));
}

RefineReport refine_lanes(PlatformDraft& draft, const std::vector<SweepPoint>& points) {
  RefineReport report;
  report.points = points.size();
  std::map<std::string, std::vector<const SweepPoint*>> by_curve;
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

  std::vector<Knob> knobs;
  for (std::size_t i = 0; i < draft.lanes.size(); ++i) {
    const LaneAttrs& lane = draft.lanes[i];
    knobs.push_back(time_knob(i, "o_send", &LaneAttrs::o_send, fastest, draft, &LaneAttrs::o_send_steps));
    knobs.push_back(time_knob(i, "o_recv", &LaneAttrs::o_recv, fastest, draft, &LaneAttrs::o_recv_steps));
    // The part of o_s after the message has left (overheads that overlap
    // in time): a ping-pong sees o_s less it, a pipeline's sender all of o_s.
    if (lane.o_send_after > 0) {
      Knob after = time_knob(i, "o_send_after", &LaneAttrs::o_send_after, fastest, draft);
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

  std::vector<double> before;
  for (const Knob& knob : knobs)
    before.push_back(knob.get(draft));
  double current = cost(draft, by_curve);
  // Every figure in turn until a pass gains less than 0.1 %.
  const auto passes = [&](PlatformDraft& d, double& c, RefineReport& r) {
    for (int pass = 0; pass < 8; ++pass) {
      ++r.passes;
      const double start = c;
      for (const Knob& knob : knobs)
        search(d, knob, by_curve, c);
      if (c > start * (1 - 1e-3))
        return;
    }
  };
  passes(draft, current, report);
  // Then the figures by size beside them, and the lanes again, in turn;
  // in either order (the factor every lane sees first, or each lane's own
  // step first: whichever comes first takes what the other could have
  // held), the better kept.
  const auto by_size = [&](bool factor_first, PlatformDraft& d, double& c, RefineReport& r) {
    for (int round = 0; round < 4; ++round) {
      const double start = c;
      if (factor_first)
        fit_message_factor(d, by_curve, c, r);
      for (std::size_t i = 0; i < d.lanes.size(); ++i) {
        // The lane's own factor before its bandwidth step: on a get the
        // step's slope can stand in for it, and whichever comes first takes
        // the bend, which is the message's size, not the operation's.
        if (d.lanes[i].bandwidth > 0) {
          fit_lane_message_factor(d, i, by_curve, c);
          fit_bandwidth_step(d, i, by_curve, c);
        }
        fit_overhead_step(d, i, by_curve, c);
      }
      if (!factor_first)
        fit_message_factor(d, by_curve, c, r);
      passes(d, c, r);
      if (c > start * (1 - 1e-3))
        break;
    }
  };
  PlatformDraft lanes_first = draft;
  double lanes_first_cost = current;
  RefineReport lanes_first_report = report;
  by_size(true, draft, current, report);
  by_size(false, lanes_first, lanes_first_cost, lanes_first_report);
  if (lanes_first_cost < current) {
    draft = lanes_first;
    current = lanes_first_cost;
    report = lanes_first_report;
  }
  for (std::size_t i = 0; i < knobs.size(); ++i)
    if (const double after = knobs[i].get(draft); after != before[i])
      report.changes.push_back(describe_change(knobs[i], before[i], after));
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
  report.rel_rms_after = model_rel_rms(draft, points);
  return report;
}

}  // namespace xover::calib
