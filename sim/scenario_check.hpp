// A scenario against the platform it runs on: the nodes it names or needs
// must be there. A problem is the scenario's, reported at its line (as
// every other problem of a scenario file is), with the platform named in
// the message: `scenario.xml:9: <platform from="node7">: ...`.
#pragma once

#include "protocols/workload/scenario.hpp"
#include "sim/platform_loader.hpp"

namespace xover::sim {

/// Checks that `platform` has the scenario's `from` and `to` nodes (its
/// first two nodes when it names none) with a route each way between them,
/// and, for an alltoall, at least `pes` nodes; for a payload in device
/// memory, device figures (`xover:stage_bw`) on both nodes.
/// @throws ScenarioError "FILE:LINE: what", at the line of <platform> for
/// the nodes and of <workload> for `pes`.
void check_scenario_nodes(const Scenario& scenario, const LogGPPlatform& platform);

}  // namespace xover::sim
