// The steps of `xover validate` once its options are checked
// (validate_cmd.cpp): rounds of a calibration and a hardware run of every
// case, the simulations, the verdict. Private to the xover command.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "protocols/workload/scenario.hpp"
#include "runtime/backends.hpp"
#include "tools/validate.hpp"
#include "tools/validate_suite.hpp"

namespace xover::tools {

struct ValidateOptions {
  std::vector<SuiteCase> cases;         ///< one, or the suite's for this backend
  std::vector<Scenario> scenarios;      ///< each case's, read
  std::optional<std::string> suite;     ///< the suite file, when validating a suite
  std::string backend;
  const runtime::Backend* row = nullptr;  ///< the backend's row
  std::optional<std::string> platform;  ///< given: no calibration
  std::size_t runs = 3;          ///< rounds: each a calibration (unless a platform was given) and every case once
  bool full_calibration = false;  ///< each round's calibration a full one (`calibrate --rounds 1`), not --quick
  ValidateLimits limits;
  std::string dir;
  std::string rounds;  ///< shuffled rounds within each hardware run
  /// The backend's own options (--tcp-if, ...), given or default, passed
  /// on to calibrate and to every run.
  runtime::OptionValues backend_options;
  bool json = false;
};

/// Runs the validation `o` describes and prints its report; the exit
/// status: 0 PASS, 1 FAIL or a step failed, kExitInconclusive, or
/// kExitBadInput.
int run_validation(const ValidateOptions& o);

}  // namespace xover::tools
