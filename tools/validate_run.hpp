// The steps of `xover validate` once its options are checked
// (validate_cmd.cpp): calibrate, the hardware runs in interleaved rounds,
// the simulations, the verdict. Private to the xover command.
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
  std::size_t runs = 3;
  std::size_t calibrations = 2;  ///< calibrations at most, while none of the rounds finds the machine as calibrated
  ValidateLimits limits;
  std::string dir;
  std::string rounds;
  std::string time_limit;
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
