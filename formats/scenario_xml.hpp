// Reading a scenario file: XML (format in scenarios/README.md, schema in
// scenarios/scenario.xsd) into a checked, expanded Scenario. Every problem
// is a ScenarioError (protocols/workload/scenario.hpp) naming the file and
// the line of the offending element.
#pragma once

#include <string>

#include "protocols/workload/scenario.hpp"

namespace xover {

/// Reads and checks the scenario file `file`; its <platform file=> is
/// resolved against the directory of `file`, and must exist.
/// @throws ScenarioError for every problem, the file's absence included.
Scenario load_scenario(const std::string& file);

/// The same from `text`, for tests and for callers that hold the text:
/// `file` names it in messages and in Scenario::file, `base_dir` is the
/// directory a relative platform path is resolved against (empty: the
/// working directory).
/// @throws ScenarioError for every problem.
Scenario parse_scenario(const std::string& text, const std::string& file, const std::string& base_dir);

}  // namespace xover
