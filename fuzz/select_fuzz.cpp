// Harness: the `--set key=value` and `<select key=value>` parser
// (protocols/select/select_config.*), the unit strings under it
// (protocols/units.*), and the thresholds table the settings then shape.
//
// Input: text, one `key=value` per line. Each line goes to
// SelectConfig::set; its value also goes through every unit parser. The
// settings that were taken then build the thresholds table of a fixed
// two-rail path, which is looked up at the edges of its ranges.
// Checks: a bad line throws std::invalid_argument and nothing else; what a
// parser accepts is in the range it promises; the table's ranges are in
// order, and lookup gives each range's own protocol.
#include <cmath>
#include <stdexcept>
#include <string>

#include "fuzz/harness.hpp"
#include "fuzz/table_check.hpp"
#include "protocols/select/select_config.hpp"
#include "protocols/units.hpp"

namespace {

using namespace xover;
using xover::fuzz::check;

void parse_units(std::string_view text) {
  try {
    const Seconds t = parse_time(text);
    check(std::isfinite(t), "parse_time gives a finite time");
    format_time(t);
  } catch (const std::invalid_argument&) {
  }
  try {
    format_size(parse_size(text));
  } catch (const std::invalid_argument&) {
  }
  try {
    const BytesPerSecond rate = parse_bandwidth(text);
    check(rate > 0, "parse_bandwidth gives a positive rate");
  } catch (const std::invalid_argument&) {
  }
}

Path two_rails() {
  Path path;
  path.from = "a";
  path.to = "b";
  for (const char* name : {"r0", "r1"}) {
    LaneAttrs lane;
    lane.name = name;
    lane.latency = 1e-6;
    lane.bandwidth = 12.5e9;
    lane.reg_cost = 1e-6;
    lane.reg_growth = 0.05e-9;
    path.lanes.push_back(lane);
  }
  return path;
}

void check_config(const SelectConfig& config) {
  check(config.rndv_perf_diff >= 0 && config.rndv_perf_diff <= 99, "rndv_perf_diff in 0..99");
  check(config.direct_perf_diff >= 0 && config.direct_perf_diff <= 1000, "direct_perf_diff in 0..1000");
  check(config.lanes.max_eager_lanes >= 1 && config.lanes.max_eager_lanes <= 64, "max_eager_lanes in 1..64");
  check(config.lanes.max_rndv_lanes >= 1 && config.lanes.max_rndv_lanes <= 64, "max_rndv_lanes in 1..64");
  check(config.lanes.min_bw_ratio >= 1 && config.lanes.min_bw_ratio <= 1e9, "min_bw_ratio in 1..1e9");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  SelectConfig config;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view line = text.substr(at, end - at);
    at = end + 1;
    if (const auto eq = line.find('='); eq != std::string_view::npos)
      parse_units(line.substr(eq + 1));
    try {
      config.set(line);
    } catch (const std::invalid_argument&) {
    }
    check_config(config);
  }
  xover::fuzz::check_table(two_rails(), config);
  return 0;
}
