// Harness: the scenario reader (formats/scenario_xml.*), with the workload
// attributes it hands to the workload a file names
// (protocols/workload/attributes.*), and the thresholds table the
// scenario's <select> settings then shape.
//
// Input: a scenario file. Its <platform file=> is resolved against the
// shipped scenarios/ folder, so that the shipped scenarios load whole.
// Checks: every refusal is a ScenarioError naming the file and a line;
// an accepted scenario has a name, a platform, at least one iteration,
// sizes strictly increasing and at least one curve, none twice; its
// settings give a sound table.
#include <algorithm>
#include <string>

#include "formats/scenario_xml.hpp"
#include "fuzz/harness.hpp"
#include "fuzz/table_check.hpp"

namespace {

using namespace xover;
using xover::fuzz::check;

const std::string kFile = "fuzz.xml";

Path one_rail() {
  Path path;
  path.from = "node0";
  path.to = "node1";
  path.lanes.push_back(LaneAttrs{});
  path.lanes.back().name = "r0";
  path.lanes.back().latency = 1e-6;
  path.lanes.back().bandwidth = 12.5e9;
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  Scenario scenario;
  try {
    scenario = parse_scenario(text, kFile, XOVER_SOURCE_DIR "/scenarios");
  } catch (const ScenarioError& e) {
    check(std::string_view(e.what()).starts_with(kFile + ":"), "a scenario error names the file");
    return 0;
  }
  check(!scenario.name.empty() && !scenario.platform.empty() && scenario.workload,
        "a scenario names itself, its platform and its workload");
  check(scenario.iterations >= 1, "at least one timed iteration");
  const auto not_increasing = [](Bytes a, Bytes b) { return a >= b; };
  check(!scenario.sizes.empty() &&
            std::adjacent_find(scenario.sizes.begin(), scenario.sizes.end(), not_increasing) == scenario.sizes.end(),
        "sizes are given and strictly increasing");
  check(!scenario.curves.empty(), "at least one curve");
  std::vector<std::string> curves = scenario.curves;
  std::sort(curves.begin(), curves.end());
  check(std::adjacent_find(curves.begin(), curves.end()) == curves.end(), "no curve twice");
  xover::fuzz::check_table(one_rail(), scenario.select);
  return 0;
}
