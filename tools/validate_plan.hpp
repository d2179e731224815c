// `xover validate`'s plan and its rounds' verdict, as pure functions: the
// wall-clock budget per backend, the measuring steps in time order (each
// round a calibration, then every case once, so that calibration and
// validation alternate and see the same machine), and which rounds can be
// judged together: the rounds grouped into machine states by their
// calibrations' sweeps, each round's drift (its ping-pong against its own
// calibration's sweeps) measured, and per state a verdict where two
// rounds of it agree with their calibration, or the reason why not.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "tools/results_csv.hpp"
#include "tools/validate.hpp"

namespace xover::tools {

/// The seconds a validation of the suite may take on `backend`: 120 on
/// shm, 240 on tcp; 0 (none) on another.
double validate_budget(const std::string& backend);

/// One measuring step: round `round`'s calibration, or its run of case
/// `case_index`.
struct MeasureStep {
  bool calibrate = false;
  std::size_t round = 0;       ///< from 0
  std::size_t case_index = 0;  ///< meaningless for a calibration
  bool operator==(const MeasureStep&) const = default;
};

/// The measuring steps in time order: per round, its calibration (when
/// `calibrate`), then every case once in the suite's order.
std::vector<MeasureStep> interleaved_steps(std::size_t rounds, std::size_t cases, bool calibrate);

/// One machine state of the rounds.
struct RoundState {
  std::vector<std::size_t> rounds;    ///< the state's rounds (from 0), in order
  std::vector<std::size_t> coherent;  ///< those whose ping-pong agreed with their own calibration
  bool judged = false;                ///< two coherent rounds or more: its cases are judged
  std::string reason;                 ///< why it is not judged
};

/// The rounds' states and drifts.
struct RoundsVerdict {
  /// Per round, the largest over the ping-pong's forced curves of the
  /// median |sweep − hw| / hw of its calibration's sweeps against its
  /// ping-pong run; negative where the round has no ping-pong run.
  std::vector<double> drift;
  std::vector<RoundState> states;  ///< slowest first
  /// The states judged (indices into `states`); none: INCONCLUSIVE, the
  /// states' reasons say why.
  std::vector<std::size_t> judged() const;
};

/// The rounds judged: `sweeps[r]` round r's calibration's sweeps,
/// `probes[r]` its ping-pong run (empty when the suite has none: a
/// round's drift is then unmeasured and taken as coherent). The rounds
/// are grouped into states by their sweeps (machine_states()); a round is
/// coherent when its drift is within the median limit; a state is judged
/// when two of its rounds are coherent.
/// @throws CompareError for fewer sweeps than probes, or none.
RoundsVerdict judge_rounds(const std::vector<ResultsFile>& sweeps, const std::vector<ResultsFile>& probes,
                           const ValidateLimits& limits);

/// Why a state's platform cannot be judged by its held-out curves, when
/// it cannot: its calibration does not meet the workload it was fitted to
/// (`probe`, the state's ping-pong case judged on that platform: an
/// in-sample curve whose median error is past even the worst-error limit;
/// a calibration whose figures come from probes rather than from a fit to
/// the ping-pong may miss it by more than the median limit). A held-out
/// miss then says the calibration failed on this machine, not that the
/// model is wrong.
std::optional<std::string> fit_unmet(const Validation& probe, const ValidateLimits& limits);

}  // namespace xover::tools
