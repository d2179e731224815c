// Reads an installed scenario through xover::formats, lists the backend
// table of xover::runtime and, where the package has xover::sim, loads the
// scenario's platform and prints the thresholds table xover::protocols
// builds for it.
#include <iostream>

#include "formats/scenario_xml.hpp"
#include "protocols/select/threshold_table.hpp"
#include "runtime/backends.hpp"
#ifdef CONSUMER_WITH_SIM
#include "sim/platform_loader.hpp"
#endif

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: consumer SCENARIO.xml\n";
    return 2;
  }
  const xover::Scenario scenario = xover::load_scenario(argv[1]);
  std::cout << "scenario " << scenario.name << " on " << scenario.platform << "\n";
  std::cout << "backends " << xover::runtime::backend_names() << "\n";
#ifdef CONSUMER_WITH_SIM
  const auto platform = xover::sim::LogGPPlatform::load(scenario.platform);
  const auto table = xover::ThresholdTable::build(platform.path(scenario.from, scenario.to), scenario.select);
  for (const xover::ThresholdRange& range : table.ranges())
    std::cout << range.from << " " << table.choices()[range.choice].protocol->name << "\n";
#endif
  return 0;
}
