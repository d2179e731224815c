// What the simulator's exactness tests share: a ping-pong or a stream of
// every curve at every size simulated in a child process, and its points
// checked against their cost lines.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "protocols/select/select_config.hpp"
#include "protocols/workload/workloads.hpp"

namespace xover::exactness {

inline const std::string kData = XOVER_SOURCE_DIR "/tests/data/platforms/";

struct Measured {
  std::string protocol;
  Bytes size = 0;
  double time = 0;
  double model = 0;
};

// Simulates a ping-pong of every curve at every size on `platform` (one
// iteration after one warm-up: the simulation is deterministic), once per
// settings block, in a child process, and reads back (settings, curve) →
// points.
std::map<std::string, std::vector<Measured>> simulate(const std::string& platform_file,
                                                      const std::vector<std::string>& curves,
                                                      const std::vector<Bytes>& sizes,
                                                      const std::vector<std::pair<std::string, SelectConfig>>& settings,
                                                      MemType memory = MemType::Host,
                                                      const Workload* workload = &pingpong_workload);

/// A selection configuration with one key set.
SelectConfig with(const char* key, const char* value);

// tests/data/platforms/one_rail_exact.xml: segment 4 KiB, so a multi-eager
// fragment carries 4064 B and an rndv/am fragment 4080 B.
inline constexpr Bytes kMultiFragment = 4064;
inline constexpr Bytes kRndvAmFragment = 4080;

struct Tally {
  int exact = 0;
  int bounded = 0;
};

// Every host protocol's point against its cost line: within 1e-9 relative
// where the line is exact; for a fragmented message whose last fragment is
// short, within `slack` (one fragment's slowest stage): past 8 fragments
// the line spreads it over the bytes while the simulation pays it whole,
// and below, where multi-eager's line holds it, these points are simulated
// one after the other in one simulation, where a sender-bound one runs
// t_s − t_r (0.1 us here) slower than in a fresh simulation (the test
// above simulates each point fresh, as `xover run` does).
Tally check_against_models(const std::map<std::string, std::vector<Measured>>& results, Seconds slack);

// The difference between two runs' points, curve by curve and size by
// size, at the sizes where both are exact (see check_against_models):
// `minus` less `plus`, keyed "curve size".
std::map<std::string, double> exact_differences(const std::map<std::string, std::vector<Measured>>& minus,
                                                const std::map<std::string, std::vector<Measured>>& plus);

}  // namespace xover::exactness
