// A scenario: what to run (a workload over a sweep of message sizes, with the
// protocols to compare as curves) on which platform. It is read from a
// scenario file (formats/scenario_xml.hpp, format in scenarios/README.md) or
// built in code; either way the values below are already checked and
// expanded.
#pragma once

#include <any>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "protocols/lanes/lane.hpp"
#include "protocols/proto.hpp"
#include "protocols/select/select_config.hpp"
#include "protocols/units.hpp"

namespace xover {

/// A scenario file that is wrong: "FILE:LINE: what is wrong" ("FILE: what
/// is wrong" when no line applies, as for a missing file). what() is the
/// whole message.
class ScenarioError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Workload;
/// The ping-pong (pingpong.cpp): a Scenario's workload unless it names another.
extern const Workload pingpong_workload;

/// The most sizes geometric_sizes() gives before it refuses.
inline constexpr std::size_t kMaxSweepSizes = 10000;

/// The sizes from, from·factor, from·factor², ... up to and including `to`,
/// each rounded to a whole number of bytes, duplicates removed (a fractional
/// factor repeats small sizes). `to` is included only when the sequence
/// reaches it.
/// @throws std::invalid_argument when from is 0, from > to, factor is not a
/// finite number greater than 1, or the sweep has more than kMaxSweepSizes sizes.
std::vector<Bytes> geometric_sizes(Bytes from, Bytes to, double factor);

/// How the points of a sweep are sampled on a machine whose speed drifts.
struct Sampling {
  /// Rounds of visits: each round visits every (curve, size) point once,
  /// in an order shuffled with the scenario's seed, and takes its share of
  /// the point's iterations (a slow spell of the machine then spreads over
  /// every point, as SMPI's calibration does). 1: one visit per point, in
  /// curve then size order.
  std::size_t rounds = 1;
  /// Each visit's warm-up sends messages until they add up to at least
  /// this many bytes, each counted as max(size, kWarmCell), beyond the
  /// scenario's `warmup`: enough to cycle through every cell of a
  /// transport's receive ring, which a run of large messages left cold.
  /// 0: the scenario's warm-up alone.
  Bytes warm_bytes = 0;
};

/// The receive cell a warm-up counts a small message as filling: the
/// largest of the backends' (shm and the default platforms' seg_size).
inline constexpr Bytes kWarmCell = 8192;

/// A scenario file, read (formats/scenario_xml.cpp) or built in code.
struct Scenario {
  std::string name;         ///< <scenario name="...">, required, [A-Za-z0-9._-]+
  std::string description;  ///< text of <description>, whitespace collapsed; may be empty
  std::string file;         ///< the scenario file as given (empty when built in code)
  /// <platform file="...">, resolved against the scenario file's directory.
  std::string platform;
  int platform_line = 0;  ///< line of <platform>, for later errors about the platform
  /// <platform from= to=>: the two nodes; both empty means the platform's first two nodes.
  std::string from, to;
  /// What the ranks do with each size (workload.hpp, listed in workloads.cpp); never null.
  const Workload* workload = &pingpong_workload;
  int workload_line = 0;  ///< line of <workload>, for later errors about its attributes (pes)
  /// The workload's own settings, as its parse read them from <workload>'s
  /// attributes: its own struct (StreamSettings, AlltoallSettings, ...; read
  /// them with workload_settings()). Empty for a workload that takes none,
  /// or for a scenario built in code that keeps its workload's defaults.
  std::any settings;
  std::size_t iterations = 100;  ///< timed iterations per size, at least 1
  std::size_t warmup = 10;       ///< untimed iterations per size before them
  std::vector<Bytes> sizes;         ///< message sizes, strictly increasing
  std::vector<std::string> curves;  ///< one curve each: "auto" or a protocol name or prefix
  SelectConfig select;              ///< selection settings from <select key="value"/>
  std::uint64_t seed = 1;           ///< <scenario seed=>: the run's random seed
  /// How a hardware run samples (pair_driver.hpp; `xover run --backend`,
  /// calibrate and validate set it; a simulation keeps the defaults, which
  /// visit every point once, in curve then size order).
  Sampling sampling;
  /// <payload mode="phantom">: move no real bytes. False (mode="verify", the
  /// default): real buffers whose content the receiver checks.
  bool phantom = false;
  /// <payload memory="cuda">: where the buffers live (host, the default).
  MemType memory = MemType::Host;
};

/// `scenario`'s workload settings as its workload's own struct `S`: those
/// its parse read, or S's defaults when the scenario holds none.
/// @throws std::bad_any_cast when it holds another workload's.
template <class S>
const S& workload_settings(const Scenario& scenario) {
  static const S defaults{};
  return scenario.settings.has_value() ? std::any_cast<const S&>(scenario.settings) : defaults;
}

}  // namespace xover
