#include "sim/simulate.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

#include "protocols/workload/workloads.hpp"
#include "sim/alltoall_sim.hpp"
#include "sim/sim_transport.hpp"

namespace xover::sim {
namespace {

/// A workload the simulator may run its own way rather than over a
/// Transport: at scales where one transfer per message costs too much.
struct NativeRunner {
  const Workload* workload;
  /// Whether it takes `scenario` on `platform`; if not, Workload::run does, over SimTransport.
  bool (*takes)(const Scenario& scenario, const LogGPPlatform& platform);
  Results (*simulate)(const Scenario& scenario, const LogGPPlatform& platform,
                      const std::function<void(const Point&)>& on_new_point);
};

/// The simulator's own runners, one line per workload. Every other
/// workload, and every scenario a runner does not take, runs over
/// SimTransport through its Workload::run.
const std::array kNativeRunners{
    NativeRunner{&alltoall_workload, alltoall_batched, simulate_alltoall_scenario},
};

const NativeRunner* native_runner(const Scenario& scenario, const LogGPPlatform& platform) {
  for (const NativeRunner& runner : kNativeRunners)
    if (runner.workload == scenario.workload && runner.takes(scenario, platform))
      return &runner;
  return nullptr;
}

}  // namespace

std::vector<std::string> rank_nodes(const Scenario& scenario, const LogGPPlatform& platform) {
  if (scenario.workload->placement == RankPlacement::OnePerNode)
    return alltoall_nodes(platform, workload_ranks(scenario));
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
  return workload.run != nullptr ||
         std::any_of(kNativeRunners.begin(), kNativeRunners.end(),
                     [&](const NativeRunner& runner) { return runner.workload == &workload; });
}

Results simulate(const Scenario& scenario, const LogGPPlatform& platform,
                 const std::function<void(const Point&)>& on_new_point) {
  if (const NativeRunner* runner = native_runner(scenario, platform))
    return runner->simulate(scenario, platform, on_new_point);
  if (!scenario.workload->run)
    throw std::invalid_argument("scenario '" + scenario.name + "': the " + std::string(scenario.workload->name) +
                                " workload has no runner in simulation");
  SimNetwork network(platform, rank_nodes(scenario, platform));
  // Every route the ranks take has its lanes before any actor starts.
  for (Rank from = 0; from < network.size(); ++from)
    for (Rank to = 0; to < network.size(); ++to)
      if (from != to && (scenario.workload->placement == RankPlacement::OnePerNode || from + to == 1))
        network.route(from, to);
  Results results;
  results.on_new_point = on_new_point;
  run_ranks(network, [&](Rank rank, Transport& transport) { run_workload(scenario, rank, transport, results); });
  return results;
}

}  // namespace xover::sim
