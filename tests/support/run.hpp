// Runs a command line and captures what it printed and how it exited, for
// tests that drive the xover binary as a user would.
#pragma once

#include <string>
#include <vector>

namespace xover::test {

struct CommandResult {
  int status = -1;     ///< exit status, or -1 when killed by a signal
  std::string out;     ///< standard output
  std::string err;     ///< standard error
};

/// Runs `command` through /bin/sh, its output captured in files under
/// temp_dir().
CommandResult run_command(const std::string& command);

/// Where tests write scratch files: $TMPDIR, else /tmp.
std::string temp_dir();

/// True when `python` runs and imports `module` (for tests that need
/// matplotlib to skip with a reason where it is missing).
bool python_imports(const std::string& python, const std::string& module);

/// The cells of a CSV file (a results CSV), row by row; quoted cells unquoted.
std::vector<std::vector<std::string>> read_csv(const std::string& file);

}  // namespace xover::test
