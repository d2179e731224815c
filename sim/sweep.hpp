// A scenario's sweep as separate points, each simulated on its own from
// simulated time 0, so that a point's numbers depend neither on the points
// simulated before it nor on the process that simulates it: a serial
// `xover run` and one whose points mpirun's ranks share write the same
// numbers. SimGrid's clock cannot be set back and a process holds one
// platform, so each point runs in a forked child of a process that has
// loaded the platform and simulated nothing; the child hands its results
// back as Results::to_text(), which round-trips them bit for bit.
//
//   const LogGPPlatform platform = LogGPPlatform::load(scenario.platform);
//   Results results;
//   for (const SweepPoint& p : sweep_points(scenario))
//     results.merge_text(simulate_point(scenario, platform, p));
#pragma once

#include <string>
#include <vector>

#include "protocols/units.hpp"
#include "protocols/workload/scenario.hpp"
#include "sim/platform_loader.hpp"

namespace xover::sim {

/// One point of a sweep: a curve at a size.
struct SweepPoint {
  std::string curve;
  Bytes size = 0;
};

/// The points of `scenario` in the order a serial run takes them: curve by
/// curve, each size by size. Results merged in this order list their
/// points as a whole run does.
std::vector<SweepPoint> sweep_points(const Scenario& scenario);

/// Simulates `point` alone (the scenario with that one curve and size:
/// warm-up, then the timed iterations) in a forked child, from simulated
/// time 0, and returns its results as Results::to_text().
/// @throws std::logic_error when this process has simulated already (its
/// children would not start from time 0); std::runtime_error, with the
/// child's message, when the simulation fails.
std::string simulate_point(const Scenario& scenario, const LogGPPlatform& platform, const SweepPoint& point);

}  // namespace xover::sim
