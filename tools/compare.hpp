// Simulation against hardware: `xover compare`'s numbers, computed from two
// results files of the same scenario.
//
// - Rows are matched on (protocol, size). The relative error of a matched
//   point is (sim − hw) / hw on t_median_us; per protocol, the median and
//   the worst of its absolute value (the median of an even count is the
//   mean of the middle two). Sizes and protocols present in only one file
//   are listed, not dropped.
// - Thresholds are where the simulation's `auto` curve changes protocol
//   (crossovers.hpp); each is checked against the hardware's measured
//   crossover of the same two protocols (the `to` protocol's curve dropping
//   below the `from` one's). When hardware crosses that way more than once,
//   the crossing nearest the threshold's estimate, by size ratio, is used.
//   The factor is max(e/x, x/e) for the estimate e and the crossing x; the
//   threshold holds when the factor is at most the limit (1.25 by default).
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "tools/crossovers.hpp"
#include "tools/results_csv.hpp"

namespace xover::tools {

/// Two results files that cannot be compared: different scenarios or
/// workloads, or no (protocol, size) in common.
class CompareError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// One (protocol, size) found in both files.
struct PointError {
  std::string protocol;
  Bytes size = 0;
  double sim_us = 0;
  double hw_us = 0;
  std::string sim_selected;  ///< differs from hw_selected only on `auto`
  std::string hw_selected;
  double rel = 0;  ///< (sim_us − hw_us) / hw_us
};

/// The errors of one protocol curve, and its sizes found in one file only.
struct ProtocolErrors {
  std::string protocol;
  std::size_t matched = 0;        ///< points in both files
  double median_abs_rel = 0;      ///< 0 when none matched
  double worst_abs_rel = 0;       ///< 0 when none matched
  double worst_rel = 0;           ///< the signed error at worst_size
  Bytes worst_size = 0;
  std::vector<Bytes> only_sim;    ///< sizes the hardware file lacks
  std::vector<Bytes> only_hw;     ///< sizes the simulation file lacks
};

/// A simulated threshold against the hardware's measured crossover.
struct ThresholdCheck {
  SelectionThreshold sim;
  std::optional<Crossover> hw;   ///< empty when hardware shows none
  std::size_t hw_crossings = 0;  ///< hardware crossings from `from` to `to`
  std::optional<double> factor;  ///< max(e/x, x/e); empty without a crossing
  bool within = false;           ///< factor ≤ the limit
  std::string unmeasured;        ///< why there is no crossing, when none
};

struct Comparison {
  std::vector<PointError> points;         ///< by protocol (simulation's order, then hardware's), then size
  std::vector<ProtocolErrors> protocols;  ///< every protocol of either file, same order
  std::vector<Crossover> sim_crossovers;
  std::vector<Crossover> hw_crossovers;
  std::vector<ThresholdCheck> thresholds;  ///< the simulation's, by size
  double max_factor = 1.25;
};

/// Compares `sim` (the prediction) with `hw` (the measurement).
/// @throws CompareError when the scenario or workload differ, or when no
/// (protocol, size) is in both.
Comparison compare_results(const ResultsFile& sim, const ResultsFile& hw, double max_factor = 1.25);

}  // namespace xover::tools
