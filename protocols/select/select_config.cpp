#include "protocols/select/select_config.hpp"

#include <cmath>
#include <stdexcept>

#include "protocols/wire.hpp"

namespace xover {
namespace {

std::vector<std::string> split_list(std::string_view value) {
  std::vector<std::string> out;
  while (!value.empty()) {
    const auto comma = value.find(',');
    if (const auto item = value.substr(0, comma); !item.empty())
      out.emplace_back(item);
    if (comma == std::string_view::npos)
      break;
    value.remove_prefix(comma + 1);
  }
  return out;
}

bool parse_switch(std::string_view key, std::string_view value) {
  if (value == "on" || value == "yes" || value == "1" || value == "true")
    return true;
  if (value == "off" || value == "no" || value == "0" || value == "false")
    return false;
  throw std::invalid_argument(std::string(key) + ": expected on or off, got '" + std::string(value) + "'");
}

std::size_t parse_lanes(std::string_view key, std::string_view value) {
  const Bytes n = parse_size(value);
  if (n == 0 || n > wire::kMaxLanes)
    throw std::invalid_argument(std::string(key) + ": expected a count from 1 to " + std::to_string(wire::kMaxLanes) +
                                ", got '" + std::string(value) + "'");
  return static_cast<std::size_t>(n);
}

double parse_number(std::string_view key, std::string_view value, double lo, double hi) {
  std::size_t used = 0;
  double x = 0;
  try {
    x = std::stod(std::string(value), &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != value.size() || !std::isfinite(x) || x < lo || x > hi)
    throw std::invalid_argument(std::string(key) + ": expected a number from " + std::to_string(lo) + " to " +
                                std::to_string(hi) + ", got '" + std::string(value) + "'");
  return x;
}

}  // namespace

void SelectConfig::set(std::string_view key, std::string_view value) {
  if (key == "perf") {
    if (value == "latency")
      perf = PerfType::Latency;
    else if (value == "streaming")
      perf = PerfType::Streaming;
    else
      throw std::invalid_argument("perf: expected latency or streaming, got '" + std::string(value) + "'");
  } else if (key == "reg_cache") {
    reg_cache = parse_switch(key, value);
  } else if (key == "rndv_perf_diff") {
    rndv_perf_diff = parse_number(key, value, 0, 99);
  } else if (key == "direct_perf_diff") {
    direct_perf_diff = parse_number(key, value, 0, 1000);
  } else if (key == "eager_limit") {
    eager_limit = parse_size(value);
  } else if (key == "multi_eager_limit") {
    multi_eager_limit = parse_size(value);
  } else if (key == "rndv_thresh") {
    if (value == "auto")
      rndv_thresh.reset();
    else
      rndv_thresh = parse_size(value);
  } else if (key == "proto") {
    forced = split_list(value);
  } else if (key == "disable") {
    disabled = split_list(value);
  } else if (key == "max_eager_lanes") {
    lanes.max_eager_lanes = parse_lanes(key, value);
  } else if (key == "max_rndv_lanes") {
    lanes.max_rndv_lanes = parse_lanes(key, value);
  } else if (key == "min_bw_ratio") {
    lanes.min_bw_ratio = parse_number(key, value, 1, 1e9);
  } else {
    throw std::invalid_argument("unknown setting '" + std::string(key) + "' (known: " +
                                "perf, reg_cache, rndv_perf_diff, direct_perf_diff, eager_limit, multi_eager_limit, rndv_thresh, "
                                "proto, disable, max_eager_lanes, max_rndv_lanes, min_bw_ratio)");
  }
}

void SelectConfig::set(std::string_view assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string_view::npos || eq == 0)
    throw std::invalid_argument("'" + std::string(assignment) + "': expected key=value");
  set(assignment.substr(0, eq), assignment.substr(eq + 1));
}

std::string SelectConfig::help() {
  return "  perf=latency|streaming     optimise one message's latency (default) or a stream's rate\n"
         "  reg_cache=on|off           registration cache (default on): off charges every zcopy registration\n"
         "  rndv_perf_diff=PERCENT     rendezvous must win by this much (default 1, the seed's d = 0.99)\n"
         "  direct_perf_diff=PERCENT   the direct alltoall must beat the proxy by this much (default 5)\n"
         "  eager_limit=SIZE           largest single-message eager size\n"
         "  multi_eager_limit=SIZE     largest multi-eager size\n"
         "  rndv_thresh=SIZE|auto      sizes at or above use rendezvous, below eager\n"
         "  proto=NAME[,NAME]          use only these protocols (a name or a prefix: eager/multi)\n"
         "  disable=NAME[,NAME]        never use these protocols\n"
         "  max_eager_lanes=N          lanes for multi-eager (default 1)\n"
         "  max_rndv_lanes=N           lanes for rendezvous data (default 2)\n"
         "  min_bw_ratio=R             drop lanes slower than the fastest / R (default 4)\n";
}

}  // namespace xover
