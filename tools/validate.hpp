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
// - In-sample or held-out: a curve of the platform's fit set (its
//   calibration fitted the figures to that workload's curve) is in-sample,
//   shown and never judged; a crossing of two in-sample curves likewise.
//   The verdict is taken on the held-out curves alone.
// - Machine states: the runs grouped so that every run lies within
//   max_median_error (median |ln(t_j / t_i)| over their common points) of
//   another of its group (machine_states()). Several groups: the machine
//   was in several states (this one flips between a fast and a slow one).
//   Where it is known which runs found the machine as it was calibrated
//   (JudgeContext::as_calibrated), the verdict is taken on those runs
//   alone; where it is not, or none did, it is INCONCLUSIVE, with the
//   reason.
// - The verdict: PASS when every held-out curve's median error is at most
//   max_median_error, its worst at most max_worst_error, and every
//   held-out crossing is on both sides within max_threshold_factor; FAIL
//   when one misses (the model is wrong); INCONCLUSIVE when the runs
//   cannot say (several machine states, or no held-out curve).
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
  bool in_sample = false;        ///< in the platform's fit set: shown, not judged
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
  bool in_sample = false;        ///< both curves in the fit set: shown, not judged
};

enum class Verdict {
  Pass,          ///< every held-out curve and crossing within the limits
  Fail,          ///< a held-out curve or crossing missed: the model is wrong
  Inconclusive,  ///< the runs cannot say (Validation::inconclusive has why)
};

/// "PASS", "FAIL", "INCONCLUSIVE".
const char* verdict_name(Verdict v);

/// What the verdict knows beside the results files.
struct JudgeContext {
  /// The curves of the scenario's workload that the platform's fit set
  /// holds (formats/calibration_record.hpp).
  std::vector<std::string> in_sample;
  /// Per run, whether it found the machine as it was calibrated (its
  /// round's check against the calibration's own measurements), where that
  /// is known; empty when it is not.
  std::vector<bool> as_calibrated;
};

struct Validation {
  ValidateLimits limits;
  /// The machine's states: the runs (indices) of each, the slowest state
  /// first; one state when the runs agree.
  std::vector<std::vector<std::size_t>> states;
  /// The runs the curves were judged against: all of them, or, across
  /// several states, those of the state the machine was calibrated in.
  std::vector<std::size_t> judged_runs;
  std::vector<CurveValidation> curves;            ///< the simulation's curve order
  std::vector<CrossoverValidation> crossovers;    ///< the reference's crossings, then the simulation's unmatched
  std::vector<std::string> misses;                ///< one line per limit missed; empty when the verdict holds
  /// One line per `auto` point where the hardware's own selection ran
  /// another protocol than the simulation's, which is judged by the
  /// hardware's time of its own protocol there (with_simulated_choice()).
  std::vector<std::string> auto_choices;
  /// Why the runs cannot say, one line each; empty when they can.
  std::vector<std::string> inconclusive;
  /// Held-out curves judged.
  std::size_t held_out() const;
  Verdict verdict() const;
  bool passed() const { return verdict() == Verdict::Pass; }
};

/// A suite's verdict from its cases': the cases with a held-out curve
/// count (a case of in-sample curves alone predicted nothing); FAIL when
/// one fails, else INCONCLUSIVE when one is, else PASS; INCONCLUSIVE when
/// no case counts.
Verdict suite_verdict(const std::vector<Validation>& cases);

/// The runs grouped into machine states: single linkage, two runs linked
/// when the median over their common (protocol, size) points of
/// |ln(t_j / t_i)| is at most ln(1 + max_median_error); each group's runs
/// in order, the groups slowest first (by their first run against the
/// others' first).
std::vector<std::vector<std::size_t>> machine_states(const std::vector<ResultsFile>& runs, double max_median_error);

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
/// with_simulated_choice(), the curves of `context.in_sample` shown and not
/// judged, across several machine states on the runs of the calibrated
/// one (or INCONCLUSIVE).
/// @throws CompareError for fewer than two runs, a context's as_calibrated
/// of another length than the runs, or files that cannot be compared
/// (compare_results()).
Validation validate_results(const ResultsFile& sim, const std::vector<ResultsFile>& runs,
                            const ValidateLimits& limits, const JudgeContext& context = {});

}  // namespace xover::tools
