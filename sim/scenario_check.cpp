#include "sim/scenario_check.hpp"

#include <algorithm>

#include "protocols/workload/workload.hpp"

namespace xover::sim {
namespace {

/// At most the first eight node names, for a message.
std::string some_nodes(const LogGPPlatform& platform) {
  const auto& nodes = platform.nodes();
  std::string out;
  for (std::size_t i = 0; i < std::min<std::size_t>(nodes.size(), 8); ++i)
    out += (i ? ", " : "") + nodes[i].name;
  if (nodes.size() > 8)
    out += ", ... (" + std::to_string(nodes.size()) + " in all)";
  return out.empty() ? "none" : out;
}

[[noreturn]] void fail(const Scenario& scenario, int line, const std::string& what) {
  throw ScenarioError(scenario.file + ":" + std::to_string(line) + ": " + what);
}

}  // namespace

void check_scenario_nodes(const Scenario& scenario, const LogGPPlatform& platform) {
  const auto& nodes = platform.nodes();
  if (scenario.workload->placement == RankPlacement::OnePerNode) {
    if (scenario.workload->nodes_error)
      if (const auto why = scenario.workload->nodes_error(scenario, nodes.size(), platform.file()))
        fail(scenario, scenario.workload_line, *why);
    if (workload_ranks(scenario) > nodes.size())
      fail(scenario, scenario.workload_line,
           "the " + std::string(scenario.workload->name) + " puts a rank on each node: " +
               std::to_string(workload_ranks(scenario)) + " ranks need as many nodes, and " + platform.file() +
               " has " + std::to_string(nodes.size()));
    return;
  }
  const bool named = !scenario.from.empty();
  if (!named && nodes.size() < 2)
    fail(scenario, scenario.platform_line,
         platform.file() + " has " + std::to_string(nodes.size()) +
             " node(s); a scenario needs two (<platform from= to=>, or the platform's first two)");
  const std::string from = named ? scenario.from : nodes[0].name;
  const std::string to = named ? scenario.to : nodes[1].name;
  for (const auto& end : {std::pair{"from", from}, std::pair{"to", to}}) {
    const char* const attribute = end.first;
    const std::string& node = end.second;  // named, not bound: clang 14 refuses a binding in a lambda's capture
    const bool known = std::any_of(nodes.begin(), nodes.end(), [&](const PlatformNode& n) { return n.name == node; });
    if (!known)
      fail(scenario, scenario.platform_line,
           std::string("<platform ") + attribute + "=\"" + node + "\">: " + platform.file() + " has no node '" +
               node + "' (nodes: " + some_nodes(platform) + ")");
  }
  try {
    platform.path(from, to);
    platform.path(to, from);
  } catch (const PlatformError& e) {
    fail(scenario, scenario.platform_line, "<platform from=\"" + from + "\" to=\"" + to + "\">: " + e.what());
  }
  if (scenario.memory != MemType::Host)
    for (const std::string& node : {from, to})
      if (!(platform.node(node).device_copy.stage_bw > 0))
        fail(scenario, scenario.platform_line,
             "a " + std::string(mem_type_name(scenario.memory)) + " payload: node '" + node + "' of " +
                 platform.file() +
                 " has no device memory (give it the host properties xover:stage_o and xover:stage_bw, and "
                 "xover:ipc_bw where its ranks map each other's buffers; platforms/README.md)");
}

}  // namespace xover::sim
