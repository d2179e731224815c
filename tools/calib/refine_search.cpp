// The coordinate descent under refine_lanes (refine_search.hpp).
#include "tools/calib/refine_search.hpp"

#include <algorithm>
#include <cmath>

namespace xover::calib {

SizeSteps scaled(const SizeSteps& steps, double ratio) {
  if (steps.empty())
    return steps;
  std::vector<SizeStep> out = steps.steps();
  for (SizeStep& step : out)
    step.value *= ratio;
  return SizeSteps(std::move(out));
}

Knob time_knob(std::size_t lane, const char* what, Seconds LaneAttrs::*field, Seconds ceiling,
               const PlatformDraft& draft, SizeSteps LaneAttrs::*steps) {
  Knob k;
  k.name = "lane " + draft.lanes[lane].name + ": " + what;
  k.key = draft.lanes[lane].name + "." + what;
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
  k.key = draft.lanes[lane].name + ".bandwidth";
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
  k.key = "memcpy";
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

namespace {

/// Relative errors past this count linearly in the fit (Huber's loss): a
/// point the machine spoiled pulls no harder than a miss of this size.
constexpr double kHuber = 0.1;

}  // namespace

double cost(const PlatformDraft& draft, const SweepsByCurve& by_curve, bool squares) {
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

void search(PlatformDraft& draft, const Knob& knob, const SweepsByCurve& by_curve, double& current) {
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

}  // namespace xover::calib
