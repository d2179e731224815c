// The figures by size beside the lanes' own (refine_steps.hpp).
#include "tools/calib/refine_steps.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace xover::calib {
namespace {

/// A figure by size that the fit adds (a step, a slope, a factor) is kept
/// only where it takes 1 % off the cost and at least this relative error's
/// square per point: less, and it would be fitting the sweeps' noise, or
/// the last per mille a coordinate descent leaves, not a change of the
/// machine's costs with size.
constexpr double kWorth = 0.01;

/// The cost a figure added to a fit of `current` must come under.
double to_beat(double current, const SweepsByCurve& by_curve) {
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
std::vector<Bytes> sweep_sizes(const SweepsByCurve& by_curve) {
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
                                const SweepsByCurve& by_curve,
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

}  // namespace

double factor_slope(const SizeSteps& factor) {
  return factor.steps().size() > 1 ? 1 / factor.steps()[1].value - 1 : 0;
}

void fit_message_factor(PlatformDraft& draft, const SweepsByCurve& by_curve, bool move_copy, double& current,
                        RefineReport& report) {
  const auto nodes = [](PlatformDraft& d) -> SizeSteps& { return d.bw_factor; };
  const std::vector<Knob> beside =
      move_copy && draft.memcpy_bw > 0 ? std::vector<Knob>{memcpy_knob(draft)} : std::vector<Knob>{};
  if (const std::optional<Bytes> n0 = fit_factor(draft, nodes, beside, by_curve, current)) {
    report.factor_from = *n0;
    report.factor_slope = factor_slope(draft.bw_factor);
  }
}

void fit_lane_message_factor(PlatformDraft& draft, std::size_t lane, const SweepsByCurve& by_curve,
                             bool move_bandwidth, double& current) {
  fit_factor(draft, [lane](PlatformDraft& d) -> SizeSteps& { return d.lanes[lane].message_factor; },
             move_bandwidth ? std::vector<Knob>{bandwidth_knob(lane, draft)} : std::vector<Knob>{}, by_curve,
             current);
}

bool fit_bandwidth_step(PlatformDraft& draft, std::size_t lane,
                        const SweepsByCurve& by_curve, double& current) {
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

bool fit_overhead_step(PlatformDraft& draft, std::size_t lane,
                       const SweepsByCurve& by_curve, double& current) {
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

}  // namespace xover::calib
