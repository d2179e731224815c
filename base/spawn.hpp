// Starting a program and waiting for it: the plotting script, and xover
// running itself for validate's steps.
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

}  // namespace xover
