// Starting a program and waiting for it: the plotting script, xover
// running itself for validate's steps, and the shell commands whose output
// validate and tune read (ucx_info, ompi_info).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace xover {

/// Runs `program` with `argv` (argv[0] included) and this process's
/// environment, its standard output and error both into `log` (created or
/// truncated) when one is given, and waits for it. Returns its exit status,
/// or -1 when it could not be started or did not exit of its own (a signal).
int spawn_and_wait(const std::string& program, const std::vector<std::string>& argv,
                   const std::optional<std::string>& log = std::nullopt);

/// The output of the shell command `command`, its standard error included,
/// or none when it could not run or did not exit 0.
std::optional<std::string> shell_output(const std::string& command);

}  // namespace xover
