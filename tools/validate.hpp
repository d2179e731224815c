// `xover validate`'s verdict, as pure functions of results files: a
// simulated run against K ≥ 2 hardware runs of the same scenario.
//
// - The hardware's reference is, per (protocol, size), the median over the
//   runs of their medians (the median of an even count: the mean of the
//   middle two), with the widest of their confidence intervals' ends
//   (hardware_reference()).
// - Per curve: the median and worst |sim − hw| / hw against that reference
//   (compare.hpp's errors), and the machine's own reproducibility, the same
//   figures of each hardware run against each other one, the largest over
//   the pairs. And the errors again over the steady points alone: those
//   where the runs' medians agree within max_worst_error (the largest over
//   the smallest, less one), so that a model error shows apart from the
//   machine's noise.
// - `auto`: where the hardware's own selection ran another protocol than
//   the simulation's, the hardware's time of the simulation's protocol at
//   that size (another curve's point), and a line that says so.
// - Crossovers: the forced curves' crossings (crossovers.hpp) in the
//   simulation and in the reference, paired by the two protocols; each
//   hardware crossing takes the simulated crossing of the same pair nearest
//   to it by size ratio. The factor is max(s/h, h/s); a crossing found on
//   one side only has none and misses.
// - The verdict holds when every curve's median error is at most
//   max_median_error, its worst at most max_worst_error, and every
//   crossing is on both sides within max_threshold_factor.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tools/compare.hpp"
#include "tools/results_csv.hpp"

namespace xover::tools {

/// The limits of a verdict (fractions: 0.1 for 10 %).
struct ValidateLimits {
  double max_median_error = 0.10;
  double max_worst_error = 0.25;
  double max_threshold_factor = 1.25;
};

/// One curve's errors.
struct CurveValidation {
  std::string protocol;
  std::size_t matched = 0;       ///< sizes in the simulation and the reference
  double median = 0;             ///< median |sim − hw| / hw
  double worst = 0;              ///< worst |sim − hw| / hw
  double worst_rel = 0;          ///< its sign kept
  Bytes worst_size = 0;
  double hw_median = 0;          ///< the largest median |hw_j − hw_i| / hw_i over the pairs of runs
  double hw_worst = 0;           ///< the largest worst |hw_j − hw_i| / hw_i over the pairs
  std::size_t steady = 0;        ///< points where the runs' medians agree within max_worst_error
  double steady_median = 0;      ///< median |sim − hw| / hw over the steady points (0 when none)
  double steady_worst = 0;       ///< worst |sim − hw| / hw over them, its sign kept
  Bytes steady_worst_size = 0;
  bool within = false;           ///< median and worst within the limits
};

/// One crossing of two forced curves, in simulation and on hardware.
struct CrossoverValidation {
  std::string faster_below, faster_above;
  std::optional<double> sim;     ///< interpolated size, bytes
  std::optional<double> hw;      ///< in the hardware reference
  std::vector<std::optional<double>> hw_runs;  ///< the same pair's crossing nearest `hw` (or `sim`) in each run
  std::optional<double> factor;  ///< max(sim/hw, hw/sim) when both
  bool within = false;
};

struct Validation {
  ValidateLimits limits;
  std::vector<CurveValidation> curves;            ///< the simulation's curve order
  std::vector<CrossoverValidation> crossovers;    ///< the reference's crossings, then the simulation's unmatched
  std::vector<std::string> misses;                ///< one line per limit missed; empty when the verdict holds
  /// One line per `auto` point where the hardware's own selection ran
  /// another protocol than the simulation's, which is judged by the
  /// hardware's time of its own protocol there (with_simulated_choice()).
  std::vector<std::string> auto_choices;
  bool passed() const { return misses.empty(); }
};

/// Per (protocol, size) the median over `runs` of their medians, in the
/// first run's row order; a point missing from a run is left out.
/// @throws CompareError for fewer than one run, or runs of different
/// scenarios or workloads.
ResultsFile hardware_reference(const std::vector<ResultsFile>& runs);

/// How far the sweeps a calibration measured lie from the hardware runs of
/// a validation, per forced curve of the runs: the machine then against the
/// machine now. A simulation can only be as close to the runs as the
/// sweeps its platform was fitted to.
struct CalibrationDrift {
  std::string curve;         ///< the runs' curve
  std::size_t matched = 0;   ///< its sizes that a sweep of the protocol it ran also holds
  double median = 0;         ///< median |sweep − hw| / hw
  double worst_rel = 0;      ///< the largest, its sign kept (sweep slower +)
  Bytes worst_size = 0;
};

/// Per forced curve of `reference` (not `auto`), each point against the
/// point of `sweeps` of the protocol it ran (its `selected`) at its size;
/// a curve none of whose points a sweep holds is left out.
std::vector<CalibrationDrift> calibration_drift(const ResultsFile& sweeps, const ResultsFile& reference);

/// `run` with each `auto` point whose protocol is not the one the
/// simulation's `auto` ran at that size replaced by the run's point of
/// another curve that ran the simulation's protocol there (renamed `auto`),
/// where one did. The hardware's own selection takes its transport's
/// figures, the simulation's the platform's: `auto` then asks whether the
/// protocol the simulation chooses costs on the hardware what it predicts.
ResultsFile with_simulated_choice(const ResultsFile& run, const ResultsFile& sim);

/// The verdict on `sim` against `runs` (at least two), each taken
/// with_simulated_choice().
/// @throws CompareError for fewer than two runs, or files that cannot be
/// compared (compare_results()).
Validation validate_results(const ResultsFile& sim, const std::vector<ResultsFile>& runs,
                            const ValidateLimits& limits);

}  // namespace xover::tools
