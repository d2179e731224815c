// The subcommands of the xover command line. Each takes the arguments after
// its name and returns the process exit status: 0 on success, 2 on bad input
// (with `file: what is wrong` on stderr), 1 when the work itself failed.
#pragma once

#include <boost/program_options.hpp>
#include <optional>
#include <string>
#include <vector>

namespace xover {
struct Scenario;
class Results;
}  // namespace xover

namespace xover::tools {

/// Exit status for bad input: a file, an option or a setting.
inline constexpr int kExitBadInput = 2;

/// Parses `args` for `command` into `vm`. Returns an exit status when the
/// command should stop here: 0 after printing --help, kExitBadInput after
/// printing what was wrong.
std::optional<int> parse_options(const std::string& command, const std::vector<std::string>& args,
                                 const boost::program_options::options_description& opts,
                                 const boost::program_options::positional_options_description& positional,
                                 boost::program_options::variables_map& vm);

/// Prints the results table, writes the results CSV to `out` and says
/// where; returns 1 when a message was corrupt or missing (or the CSV could
/// not be written), 0 otherwise.
int report_results(const Scenario& scenario, const Results& results, const std::string& backend,
                   const std::string& platform, const std::string& out);

/// The hardware part of `xover run` (run_hw.cpp): starts the ranks on this
/// node, or, in a rank (started by this command or by mpirun), runs its
/// part; rank 0 reports. `args` are run's own, to start the ranks with.
int run_on_hardware(const Scenario& scenario, const std::string& backend,
                    const boost::program_options::variables_map& vm, const std::vector<std::string>& args,
                    const std::string& out);

int proto_info_command(const std::vector<std::string>& args);
int run_command(const std::vector<std::string>& args);
int crossover_command(const std::vector<std::string>& args);
int calibrate_command(const std::vector<std::string>& args);

}  // namespace xover::tools
