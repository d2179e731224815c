// The commands that need the simulator or its platform loader, in a build
// without SimGrid (configured with -DXOVER_WITH_SIMGRID=OFF, for the compute
// nodes of a cluster that run hardware backends only): each says so and
// exits 2. `xover run --backend sim` never gets here: the backend table's
// sim row says it is not compiled in.
#include <iostream>

#include "runtime/backends.hpp"
#include "tools/commands.hpp"

namespace xover::tools {
namespace {

int needs_simulator(const std::string& what) {
  std::cerr << "xover " << what << " needs the simulator and its platform loader, and this build has none "
            << "(configured with -DXOVER_WITH_SIMGRID=OFF): use an xover built with SimGrid\n";
  return kExitBadInput;
}

}  // namespace

int proto_info_command(const std::vector<std::string>&) {
  return needs_simulator("proto-info");
}

int crossover_command(const std::vector<std::string>&) {
  return needs_simulator("crossover");
}

int tune_command(const std::vector<std::string>&) {
  return needs_simulator("tune");
}

int run_in_simulation(const Scenario&, const runtime::Backend& backend, const std::string&, const std::string&) {
  return needs_simulator("run --backend " + std::string(backend.name));
}

std::optional<Results> simulate_scenario(const Scenario&, const std::string&) {
  return std::nullopt;
}

std::optional<HardwarePlatform> platform_for_hardware(const std::string&, const Scenario&, bool) {
  return std::nullopt;
}

}  // namespace xover::tools
