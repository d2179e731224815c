// Runs a scenario's workload in simulation: one actor per rank on the
// platform's nodes, every curve and size, and the measured points back. A
// workload runs over SimTransport through its own Workload::run, unless the
// simulator has a runner of its own that takes the scenario (simulate.cpp
// lists them: the alltoall at large P, batched, in alltoall_sim.hpp).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "protocols/workload/results.hpp"
#include "protocols/workload/scenario.hpp"
#include "protocols/workload/workload.hpp"
#include "sim/platform_loader.hpp"

namespace xover::sim {

/// The node of each rank: as its workload's placement says, even ranks on
/// the scenario's `from` node and odd ones on `to` (the platform's first
/// two nodes when it names none), or one rank per node.
/// Throws PlatformError when the platform has too few nodes.
std::vector<std::string> rank_nodes(const Scenario& scenario, const LogGPPlatform& platform);

/// True when simulate() runs `workload`: over SimTransport, or with a
/// runner of the simulator's own.
bool simulates(const Workload& workload);

/// Simulates the scenario on `platform`. May be called many times in one
/// process: simulated time goes on from run to run. `on_new_point` sees
/// each point as the run reaches it.
/// @throws std::invalid_argument when simulates() says no.
Results simulate(const Scenario& scenario, const LogGPPlatform& platform,
                 const std::function<void(const Point&)>& on_new_point = {});

}  // namespace xover::sim
