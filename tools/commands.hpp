// The subcommands of the xover command line. Each takes the arguments after
// its name and returns the process exit status: 0 on success, 2 on bad input
// (with `file: what is wrong` on stderr), 1 when the work itself failed.
#pragma once

#include <string>
#include <vector>

namespace xover::tools {

/// Exit status for bad input: a file, an option or a setting.
inline constexpr int kExitBadInput = 2;

int proto_info_command(const std::vector<std::string>& args);
int run_command(const std::vector<std::string>& args);
int crossover_command(const std::vector<std::string>& args);

}  // namespace xover::tools
