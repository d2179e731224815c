// xover run: a scenario in simulation, a table on the terminal and the
// results CSV on disk.
#include <unistd.h>

#include <boost/program_options.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "protocols/workload/scenario_xml.hpp"
#include "sim/simulate.hpp"
#include "tools/commands.hpp"
#include "tools/results_table.hpp"

namespace po = boost::program_options;

namespace xover::tools {

int run_command(const std::vector<std::string>& args) {
  po::options_description opts(
      "usage: xover run SCENARIO [--out FILE.csv] [--platform FILE] [--backend sim]\n\n"
      "Runs a scenario file: every protocol curve at every size, on the simulated platform the\n"
      "scenario names (or --platform). Prints a table and writes the results CSV.\n\noptions");
  opts.add_options()("help,h", "this help")("scenario", po::value<std::string>(), "scenario file")(
      "out,o", po::value<std::string>(), "results CSV (default results/NAME.csv)")(
      "platform,p", po::value<std::string>(), "run on this platform instead of the scenario's")(
      "backend,b", po::value<std::string>()->default_value("sim"), "sim (the simulator)");
  po::positional_options_description positional;
  positional.add("scenario", 1);
  po::variables_map vm;
  if (const auto status = parse_options("run", args, opts, positional, vm))
    return *status;
  if (!vm.count("scenario")) {
    std::cerr << "xover run: no scenario file given (see xover run --help)\n";
    return kExitBadInput;
  }
  if (vm["backend"].as<std::string>() != "sim") {
    std::cerr << "xover run: unknown backend '" << vm["backend"].as<std::string>() << "' (this build has: sim)\n";
    return kExitBadInput;
  }

  Scenario scenario;
  try {
    scenario = load_scenario(vm["scenario"].as<std::string>());
  } catch (const ScenarioError& e) {
    std::cerr << "xover run: " << e.what() << "\n";
    return kExitBadInput;
  }
  if (vm.count("platform"))
    scenario.platform = vm["platform"].as<std::string>();

  const bool terminal = isatty(STDERR_FILENO) != 0;
  Results results;
  try {
    const sim::LogGPPlatform platform = sim::LogGPPlatform::load(scenario.platform);
    results = sim::simulate(scenario, platform, [&](const Point& p) {
      if (terminal)
        std::fprintf(stderr, "\r\033[K%s: %s at %s B", scenario.name.c_str(), p.curve.c_str(),
                     std::to_string(p.size).c_str());
    });
    if (terminal)
      std::fprintf(stderr, "\r\033[K");
  } catch (const sim::PlatformError& e) {
    std::cerr << "xover run: " << e.what() << "\n";
    return kExitBadInput;
  }

  std::cout << format_results_table(scenario, results);
  const std::string out = vm.count("out") ? vm["out"].as<std::string>() : "results/" + scenario.name + ".csv";
  const std::filesystem::path dir = std::filesystem::path(out).parent_path();
  std::error_code ec;
  if (!dir.empty())
    std::filesystem::create_directories(dir, ec);
  std::ofstream csv(out);
  if (!csv) {
    std::cerr << "xover run: cannot write " << out << "\n";
    return 1;
  }
  write_csv(csv, results, scenario.name, "sim", scenario.platform, std::string(workload_name(scenario.workload)));
  std::cout << "results: " << out << "\n";
  if (results.errors() > 0) {
    std::cerr << "xover run: " << results.errors() << " corrupt or missing messages\n";
    return 1;
  }
  return 0;
}

}  // namespace xover::tools
