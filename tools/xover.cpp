// xover: which protocol should carry a message of each size, over which
// lanes, and does the answer hold on hardware. This file only dispatches.
#include <iostream>
#include <string>
#include <vector>

#include "tools/commands.hpp"
#include "tools/version.hpp"

namespace {

constexpr const char* kUsage =
    "usage: xover COMMAND [options]\n"
    "\n"
    "commands:\n"
    "  run          run a scenario in simulation or on hardware: a table and the results CSV (xover run --help)\n"
    "  crossover    where two protocols' simulated times cross (xover crossover --help)\n"
    "  proto-info   the protocol thresholds table of a platform path (xover proto-info --help)\n"
    "  plot         draw results CSVs: time against size, thresholds and crossovers (xover plot --help)\n"
    "  compare      a simulated run against a hardware run: errors and thresholds (xover compare --help)\n"
    "  calibrate    measure this machine's lanes and write a calibrated platform (xover calibrate --help)\n"
    "  validate     does the simulation predict the hardware: calibrate, run both, a verdict (xover validate --help)\n"
    "  tune         UCX or Open MPI settings from a calibrated platform: the library's own crossovers (xover tune --help)\n"
    "  info         this build, and what each backend finds on this machine (xover info --help)\n"
    "\n"
    "xover --help prints this, xover --version the version, commit and backends; every command takes --help.\n";

std::string usage() {
  return std::string(kUsage) + "\nbackends (--backend NAME):\n" + xover::tools::backends_help();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << usage();
    return xover::tools::kExitBadInput;
  }
  const std::string command = argv[1];
  const std::vector<std::string> args(argv + 2, argv + argc);
  if (command == "--help" || command == "-h" || command == "help") {
    std::cout << usage();
    return 0;
  }
  if (command == "--version") {
    std::cout << xover::tools::version_text();
    return 0;
  }
  if (command == "proto-info")
    return xover::tools::proto_info_command(args);
  if (command == "run")
    return xover::tools::run_command(args);
  if (command == "crossover")
    return xover::tools::crossover_command(args);
  if (command == "plot")
    return xover::tools::plot_command(args);
  if (command == "compare")
    return xover::tools::compare_command(args);
  if (command == "calibrate")
    return xover::tools::calibrate_command(args);
  if (command == "validate")
    return xover::tools::validate_command(args);
  if (command == "tune")
    return xover::tools::tune_command(args);
  if (command == "info")
    return xover::tools::info_command(args);
  std::cerr << "xover: unknown command '" << command << "'\n" << usage();
  return xover::tools::kExitBadInput;
}
