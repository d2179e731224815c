// What a user may set about protocol selection, in UCX's terms: a forced or
// disabled protocol, explicit limits, the rendezvous bias, lane limits, the
// registration cache, and whether to optimise latency or streaming rate.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocols/lanes/lane_select.hpp"
#include "protocols/perf/perf_factors.hpp"
#include "protocols/units.hpp"

namespace xover {

struct SelectConfig {
  PerfType perf = PerfType::Latency;
  /// With the cache on (UCX's default) a buffer is registered once and every
  /// later use is free; off, every zero-copy send pays reg_cost + n·reg_growth.
  bool reg_cache = true;
  /// Percent by which rendezvous must beat eager (UCX_RNDV_PERF_DIFF); the
  /// seed's `d` is 1 − rndv_perf_diff/100.
  double rndv_perf_diff = 1.0;
  /// Percent by which the direct alltoall must beat the proxy one to be
  /// chosen: it keeps the device's threads busy posting.
  double direct_perf_diff = 5.0;
  std::optional<Bytes> eager_limit;        ///< largest size for single-message eager
  std::optional<Bytes> multi_eager_limit;  ///< largest size for multi-eager
  std::optional<Bytes> rndv_thresh;        ///< sizes at or above use rendezvous, below eager
  std::vector<std::string> forced;         ///< only these protocols (names or name prefixes)
  std::vector<std::string> disabled;       ///< never these protocols
  LaneConfig lanes;

  bool operator==(const SelectConfig&) const = default;

  /// The seed's d factor.
  double rndv_bias() const { return 1.0 - rndv_perf_diff / 100.0; }

  /// Sets one key from a "key=value" command line or scenario attribute.
  /// Throws std::invalid_argument naming the key and what it accepts.
  void set(std::string_view key, std::string_view value);
  /// Parses "key=value".
  void set(std::string_view assignment);

  /// One line per key, for --help.
  static std::string help();
};

}  // namespace xover
