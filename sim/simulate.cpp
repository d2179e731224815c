#include "sim/simulate.hpp"

#include "protocols/workload/workload.hpp"
#include "sim/alltoall_sim.hpp"
#include "sim/sim_transport.hpp"

namespace xover::sim {

std::vector<std::string> rank_nodes(const Scenario& scenario, const LogGPPlatform& platform) {
  std::string from = scenario.from;
  std::string to = scenario.to;
  if (from.empty() || to.empty()) {
    const auto& nodes = platform.nodes();
    if (nodes.size() < 2)
      throw PlatformError(platform.file() + ": a scenario needs two nodes, the platform has " +
                          std::to_string(nodes.size()));
    from = nodes[0].name;
    to = nodes[1].name;
  }
  std::vector<std::string> out;
  for (Rank r = 0; r < workload_ranks(scenario); ++r)
    out.push_back(r % 2 == 0 ? from : to);
  return out;
}

Results simulate(const Scenario& scenario, const LogGPPlatform& platform,
                 const std::function<void(const Point&)>& on_new_point) {
  if (scenario.workload == WorkloadKind::Alltoall)
    return simulate_alltoall_scenario(scenario, platform, on_new_point);
  SimNetwork network(platform, rank_nodes(scenario, platform));
  // Both directions must have lanes before any actor starts.
  network.route(0, 1);
  network.route(1, 0);
  Results results;
  results.on_new_point = on_new_point;
  run_ranks(network, [&](Rank rank, Transport& transport) { run_workload(scenario, rank, transport, results); });
  return results;
}

}  // namespace xover::sim
