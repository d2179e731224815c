// The readable table `xover run` prints: one row per size, one column per
// curve (median time, and which protocol `auto` chose).
#pragma once

#include <string>

#include "protocols/workload/results.hpp"
#include "protocols/workload/scenario.hpp"

namespace xover::tools {

std::string format_results_table(const Scenario& scenario, const Results& results, const std::string& backend,
                                 const std::string& platform);

}  // namespace xover::tools
