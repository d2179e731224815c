// The subcommands of the xover command line. Each takes the arguments after
// its name and returns the process exit status: 0 on success, 2 on bad input
// (with `file: what is wrong` on stderr), 1 when the work itself failed.
#pragma once

#include <any>
#include <boost/program_options.hpp>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "protocols/coll/alltoall.hpp"
#include "protocols/workload/results.hpp"
#include "runtime/backend_options.hpp"

namespace xover {
struct Scenario;
class Results;
}  // namespace xover

namespace xover::runtime {
struct Backend;
}  // namespace xover::runtime

namespace xover::tools {

/// Exit status for bad input: a file, an option or a setting.
inline constexpr int kExitBadInput = 2;
/// Exit status of `xover validate` when the runs cannot say whether the
/// model holds (INCONCLUSIVE: the machine in several states, or nothing
/// held out), as distinct from 1, the model is wrong.
inline constexpr int kExitInconclusive = 3;

/// Shuffled rounds of a hardware run unless --rounds says otherwise
/// (Sampling::rounds).
inline constexpr std::size_t kHardwareRounds = 5;
/// A hardware run's warm-up at each visit (Sampling::warm_bytes): the
/// shared-memory receive ring, 256 cells of 8 KiB, the deepest of the
/// backends'.
inline constexpr Bytes kHardwareWarmBytes = Bytes{2} << 20;

/// Parses `args` for `command` into `vm`. Returns an exit status when the
/// command should stop here: 0 after printing --help, kExitBadInput after
/// printing what was wrong.
std::optional<int> parse_options(const std::string& command, const std::vector<std::string>& args,
                                 const boost::program_options::options_description& opts,
                                 const boost::program_options::positional_options_description& positional,
                                 boost::program_options::variables_map& vm);

/// The backend called `name` when this build and this machine can run it;
/// otherwise null, after saying on stderr (as `xover COMMAND: ...`) that
/// the name is unknown or why the backend cannot run here.
const runtime::Backend* usable_backend(const std::string& command, const std::string& name);

/// The backends table for --help: a line each, name and summary.
std::string backends_help();

/// Declares every backend's own options (their rows': --tcp-if, --ib-dev,
/// ...), each with its default, as "--NAME VALUE: BACKEND: what it does".
void add_backend_options(boost::program_options::options_description& opts);

/// The option values of `backend` in `vm` (every one of its row's, given
/// or default), by name.
runtime::OptionValues backend_option_values(const runtime::Backend& backend,
                                            const boost::program_options::variables_map& vm);

/// `backend`'s settings from its options in `vm`, read by its row for
/// `use`; none after saying on stderr (as `xover COMMAND: ...`) what is
/// wrong with them.
std::optional<std::any> read_backend_options(const std::string& command, const runtime::Backend& backend,
                                             const boost::program_options::variables_map& vm,
                                             runtime::BackendUse use);

/// Prints the results table, writes the results CSV to `out` and says
/// where; returns 1 when a message was corrupt or missing (or the CSV could
/// not be written), 0 otherwise.
int report_results(const Scenario& scenario, const Results& results, const std::string& backend,
                   const std::string& platform, const std::string& out);

/// True when `file` names a plot xover can write (.png or .svg); otherwise
/// says so on stderr, as `xover COMMAND: ...`.
bool check_plot_output(const std::string& command, const std::string& file);

/// Draws the results CSVs `csvs` into `out` (plot_cmd.cpp) and says where;
/// returns kExitBadInput for a bad file (`file:line: what is wrong`), 1
/// when python3 or matplotlib is missing or drawing failed, 0 otherwise.
int plot_results(const std::string& command, const std::vector<std::string>& csvs, const std::string& out);

/// The hardware part of `xover run` (run_hw.cpp): starts the ranks on this
/// node, or, in a rank (started by this command or by mpirun), runs its
/// part; rank 0 reports, and plots into `plot` when it is not empty.
/// `args` are run's own, to start the ranks with.
int run_on_hardware(const Scenario& scenario, const runtime::Backend& backend,
                    const boost::program_options::variables_map& vm, const std::vector<std::string>& args,
                    const std::string& out, const std::string& plot);

/// What a hardware run takes from a platform file.
struct HardwarePlatform {
  /// Its first node's device figures: what an alltoall prices and selects with.
  DeviceAttrs device;
  /// Where asked: the protocol its selection takes at each of the
  /// scenario's sizes between the scenario's two nodes (the platform's
  /// first two when it names none), which `auto` then runs
  /// (RunContext::platform_choices).
  std::map<Bytes, std::string> choices;
};

/// The platform `file` as a hardware run of `scenario` takes it, with the
/// choices when `choose`. None when this build has no platform loader (no
/// SimGrid).
/// @throws std::runtime_error (sim::PlatformError) when the platform does
/// not load or lacks the scenario's nodes.
std::optional<HardwarePlatform> platform_for_hardware(const std::string& file, const Scenario& scenario, bool choose);

/// `scenario` simulated point by point on the platform file `platform` in
/// this process (each point in a forked child, as a serial run does); none
/// when this build has no simulator.
/// @throws sim::PlatformError, ScenarioError or std::runtime_error as
/// `xover run` reports them.
std::optional<Results> simulate_scenario(const Scenario& scenario, const std::string& platform);

/// The simulated part of `xover run` (run_sim.cpp): every point of the
/// sweep in a fresh simulation, shared among the ranks when mpirun or srun
/// started this process; rank 0 (or the only process) reports, and plots
/// into `plot` when it is not empty.
int run_in_simulation(const Scenario& scenario, const runtime::Backend& backend, const std::string& out,
                      const std::string& plot);

int proto_info_command(const std::vector<std::string>& args);
int run_command(const std::vector<std::string>& args);
int crossover_command(const std::vector<std::string>& args);
int plot_command(const std::vector<std::string>& args);
int compare_command(const std::vector<std::string>& args);
int calibrate_command(const std::vector<std::string>& args);
int validate_command(const std::vector<std::string>& args);
int info_command(const std::vector<std::string>& args);
int tune_command(const std::vector<std::string>& args);

}  // namespace xover::tools
