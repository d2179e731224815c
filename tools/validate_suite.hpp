// The validation suite: the scenarios `xover validate` runs when given
// none, listed in a small text file (scenarios/validate/suite.txt), one case
// a line:
//
//   SCENARIO [only=BACKEND] [--OPTION VALUE]...
//
// SCENARIO is relative to the suite file's folder; `only=` keeps the case
// to one backend (two TCP connections striped: tcp only); the options are
// the case's own backend options (`--tcp-conns 2`), given to its hardware
// runs beside validate's own. '#' starts a comment; blank lines are
// skipped.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace xover::tools {

struct SuiteCase {
  std::string scenario;               ///< the scenario file, as a path from the current directory
  std::string name;                   ///< its file name without `.xml`: the case's folder
  std::optional<std::string> only;    ///< the one backend it runs on; none: every one
  std::vector<std::string> options;   ///< its own backend options: {"--tcp-conns", "2"}
};

/// The cases of the suite file `file`.
/// @throws std::invalid_argument "FILE:LINE: what is wrong" for a file that
/// cannot be read, an option without its value, a word that is neither
/// `only=` nor an option, two cases of one name, or a suite of no case.
std::vector<SuiteCase> read_suite(const std::string& file);

/// The cases of `cases` that run on `backend`.
std::vector<SuiteCase> cases_for(const std::vector<SuiteCase>& cases, const std::string& backend);

}  // namespace xover::tools
