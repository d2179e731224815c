// What `xover validate` prints: the verdict of validate.hpp with the runs
// it came from, the `auto` hand-overs, and UCX's own hand-over, as a table
// or as JSON.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "formats/calibration_record.hpp"
#include "tools/crossovers.hpp"
#include "tools/ucx_proto.hpp"
#include "tools/validate.hpp"
#include "tools/validate_plan.hpp"

namespace xover::tools {

/// UCX's own picks on the transports the backend uses.
struct UcxReport {
  std::string version;     ///< "1.13.1", or empty when ucx_info did not say
  std::string transports;  ///< the UCX_TLS it was asked about: "posix,cma"
  UcxHandover handover;
};

struct ValidateReport {
  std::string scenario;
  std::string backend;
  std::string platform;                 ///< the simulated platform
  bool calibrated = false;              ///< the platform was written by this run's calibrate
  /// Calibrations made: more than one when the first drifted from its
  /// hardware runs past the median limit (the machine changed between them).
  std::size_t calibrations = 0;
  std::vector<std::string> runs;        ///< the hardware CSVs
  std::string sim;                      ///< the simulated CSV
  Validation validation;
  std::vector<SelectionThreshold> sim_handovers;  ///< the simulation's `auto` hand-overs
  std::vector<SelectionThreshold> hw_handovers;   ///< the hardware reference's
  /// The 1-minute load average before the first hardware run and after
  /// the last, and the cores: above the cores, the runs shared them with
  /// other work, and their times include waiting for one.
  double load_before = 0, load_after = 0;
  unsigned cores = 1;
  /// The calibration's own sweeps against the hardware runs, per forced
  /// curve; empty when the platform was given.
  std::vector<CalibrationDrift> drift;
  std::optional<UcxReport> ucx;         ///< none where ucx_info is not installed
  std::string plot;                     ///< the plot, or empty when none was drawn
};

void print_validation_text(std::ostream& os, const ValidateReport& r);
void print_validation_json(std::ostream& os, const ValidateReport& r);

/// A validation suite's run: every case's report and the verdict over them.
struct SuiteReport {
  std::string suite;                   ///< the suite file
  std::string backend;
  std::string platform;
  bool calibrated = false;
  std::size_t calibrations = 0;        ///< one per round when calibrated, interleaved with the rounds' runs
  /// Per round, its ping-pong's drift from its own calibration's sweeps
  /// (negative: unmeasured); and the rounds' machine states, which of them
  /// were judged, and why the others were not (validate_plan.hpp).
  std::vector<double> drift;
  std::vector<RoundState> states;
  bool recorded = false;               ///< the platform records its fit set
  std::vector<FitEntry> fit_set;       ///< what it records
  std::vector<std::string> names;      ///< the cases' names
  std::vector<ValidateReport> cases;   ///< in the suite's order
  double seconds = 0;                  ///< the whole validation's wall time
  double measured_seconds = 0;         ///< of which the calibrations and hardware runs
  double budget = 0;                   ///< the seconds it should take at most (validate_budget()); 0: none
  Verdict verdict() const;             ///< suite_verdict() of the cases
};

/// Each case's report (print_validation_text), then a summary: a line per
/// case with its held-out and in-sample curves and its verdict, and the
/// suite's verdict with the reasons of every case that is not PASS.
void print_suite_text(std::ostream& os, const SuiteReport& r);
/// The same as one object: `suite`, `backend`, `platform`, `calibrated`,
/// `calibrations`, `fit_set` (null where the platform records none),
/// `seconds`, `cases` (`name` and the case's report, as
/// print_validation_json writes it), `verdict`.
void print_suite_json(std::ostream& os, const SuiteReport& r);

}  // namespace xover::tools
