// Runs a scenario's workload in simulation: one actor per rank on the
// platform's nodes, every curve and size, and the measured points back.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "protocols/workload/results.hpp"
#include "protocols/workload/scenario.hpp"
#include "sim/platform_loader.hpp"

namespace xover::sim {

/// The node of each rank: even ranks on the scenario's `from` node, odd
/// ones on `to` (the platform's first two nodes when it names none).
/// Throws PlatformError when the platform has fewer than two nodes.
std::vector<std::string> rank_nodes(const Scenario& scenario, const LogGPPlatform& platform);

/// Simulates the scenario on `platform`. May be called many times in one
/// process: simulated time goes on from run to run. `on_new_point` sees
/// each point as the run reaches it.
Results simulate(const Scenario& scenario, const LogGPPlatform& platform,
                 const std::function<void(const Point&)>& on_new_point = {});

}  // namespace xover::sim
