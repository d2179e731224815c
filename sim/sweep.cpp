#include "sim/sweep.hpp"

#include <simgrid/s4u/Engine.hpp>
#include <stdexcept>

#include "base/child.hpp"
#include "sim/simulate.hpp"

namespace xover::sim {

std::vector<SweepPoint> sweep_points(const Scenario& scenario) {
  std::vector<SweepPoint> points;
  for (const std::string& curve : scenario.curves)
    for (const Bytes size : scenario.sizes)
      points.push_back({curve, size});
  return points;
}

std::string simulate_point(const Scenario& scenario, const LogGPPlatform& platform, const SweepPoint& point) {
  if (const double now = simgrid::s4u::Engine::get_clock(); now != 0)
    throw std::logic_error("simulate_point: this process has simulated already (the clock is at " +
                           std::to_string(now) + " s), so a point would not start from time 0");
  Scenario one = scenario;
  one.curves = {point.curve};
  one.sizes = {point.size};
  const std::string text = in_child([&] { return simulate(one, platform).to_text(); });
  if (const std::optional<std::string> error = child_error(text))
    throw std::runtime_error(*error);
  return text;
}

}  // namespace xover::sim
