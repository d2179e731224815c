#include "sim/simulate.hpp"

#include <array>
#include <stdexcept>

#include "protocols/workload/workloads.hpp"
#include "sim/alltoall_sim.hpp"
#include "sim/sim_transport.hpp"

namespace xover::sim {
namespace {

/// A workload the simulator runs its own way, not over a Transport.
struct NativeRunner {
  const Workload* workload;
  Results (*simulate)(const Scenario& scenario, const LogGPPlatform& platform,
                      const std::function<void(const Point&)>& on_new_point);
};

/// The simulator's own runners, one line per workload. Every other
/// workload runs over SimTransport, through its Workload::run.
const std::array kNativeRunners{
    NativeRunner{&alltoall_workload, simulate_alltoall_scenario},
};

const NativeRunner* native_runner(const Workload& workload) {
  for (const NativeRunner& runner : kNativeRunners)
    if (runner.workload == &workload)
      return &runner;
  return nullptr;
}

}  // namespace

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

bool simulates(const Workload& workload) {
  return native_runner(workload) != nullptr || workload.run != nullptr;
}

Results simulate(const Scenario& scenario, const LogGPPlatform& platform,
                 const std::function<void(const Point&)>& on_new_point) {
  if (const NativeRunner* runner = native_runner(*scenario.workload))
    return runner->simulate(scenario, platform, on_new_point);
  if (!scenario.workload->run)
    throw std::invalid_argument("scenario '" + scenario.name + "': the " + std::string(scenario.workload->name) +
                                " workload has no runner in simulation");
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
