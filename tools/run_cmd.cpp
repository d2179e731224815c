// xover run: a scenario in simulation or on this machine's hardware, a
// table on the terminal and the results CSV on disk.
#include <boost/program_options.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "formats/scenario_xml.hpp"
#include "protocols/registry.hpp"
#include "protocols/workload/workload.hpp"
#include "runtime/backends.hpp"
#include "tools/commands.hpp"
#include "tools/results_table.hpp"

namespace po = boost::program_options;

namespace xover::tools {
namespace {

/// Whether the scenario's buffers can live where <payload memory=> says:
/// on hardware, the backend that offers that memory must run here (its row
/// says why not: a cuda payload needs a GPU); anywhere, a protocol that
/// serves the memory type. Returns the exit status when not, 0 when they can.
int check_payload_memory(const Scenario& scenario, const runtime::Backend& backend) {
  if (scenario.memory == MemType::Host)
    return 0;
  const std::string memory(mem_type_name(scenario.memory));
  if (!backend.simulated()) {
    const runtime::Backend* holder = runtime::memory_backend(scenario.memory);
    if (!holder) {
      std::cerr << "xover run: " << scenario.file << ": no backend offers " << memory << " memory\n";
      return kExitBadInput;
    }
    if (const std::string why = holder->unavailable(); !why.empty()) {
      std::cerr << "xover run: " << scenario.file << ": a " << memory << " payload needs " << holder->memory.on
                << ": " << why << "\n";
      return kExitBadInput;
    }
  }
  if (!protocols_serve(scenario.memory)) {
    std::cerr << "xover run: " << scenario.file << ": no protocol serves " << memory
              << " memory (xover proto-info --mem " << memory << " shows its empty table)\n";
    return kExitBadInput;
  }
  return 0;
}

}  // namespace

int run_command(const std::vector<std::string>& args) {
  po::options_description opts(
      "usage: xover run SCENARIO [--out FILE.csv] [--plot FILE.png|svg] [--platform FILE] [--backend NAME]\n\n"
      "Runs a scenario file: every protocol curve at every size, on the simulated platform the\n"
      "scenario names (or --platform), or on this machine's hardware. Prints a table and writes\n"
      "the results CSV. On hardware, xover starts the scenario's ranks on this node; started by\n"
      "mpirun (mpirun -np 2 xover run SCENARIO --backend tcp --tcp-if eth0), the ranks bootstrap\n"
      "through MPI and rank 0 writes the results. In simulation, every (curve, size) point is\n"
      "simulated on its own from time 0; started by mpirun or srun (mpirun -np 8 xover run\n"
      "SCENARIO), the ranks share the points and rank 0 writes what a serial run writes.\n\nbackends:\n" +
      backends_help() + "\noptions");
  opts.add_options()("help,h", "this help")("scenario", po::value<std::string>(), "scenario file")(
      "out,o", po::value<std::string>(), "results CSV (default results/NAME.csv)")(
      "plot", po::value<std::string>(), "also draw the results into this .png or .svg (as xover plot)")(
      "platform,p", po::value<std::string>(), "run on this platform instead of the scenario's")(
      "backend,b", po::value<std::string>()->default_value(std::string(runtime::backends().front()->name)),
      "the backend (see above)")(
      "timeout", po::value<double>()->default_value(10.0),
      "hardware: seconds a rank waits with nothing moving before it gives up on its peers")(
      "rounds", po::value<std::size_t>()->default_value(kHardwareRounds),
      "hardware: rounds over every (curve, size) point, each round in a shuffled order taking its share of the "
      "iterations (1: each point once, in order)");
  add_backend_options(opts);
  po::positional_options_description positional;
  positional.add("scenario", 1);
  po::variables_map vm;
  if (const auto status = parse_options("run", args, opts, positional, vm))
    return *status;
  if (!vm.count("scenario")) {
    std::cerr << "xover run: no scenario file given (see xover run --help)\n";
    return kExitBadInput;
  }
  const runtime::Backend* backend = usable_backend("run", vm["backend"].as<std::string>());
  if (!backend)
    return kExitBadInput;

  Scenario scenario;
  try {
    scenario = load_scenario(vm["scenario"].as<std::string>());
  } catch (const ScenarioError& e) {
    std::cerr << "xover run: " << e.what() << "\n";
    return kExitBadInput;
  }
  if (vm.count("platform"))
    scenario.platform = vm["platform"].as<std::string>();
  const std::string out = vm.count("out") ? vm["out"].as<std::string>() : "results/" + scenario.name + ".csv";
  const std::string plot = vm.count("plot") ? vm["plot"].as<std::string>() : "";
  if (!plot.empty() && !check_plot_output("run", plot))
    return kExitBadInput;
  if (!backend->simulated() && !scenario.workload->run) {
    std::cerr << "xover run: " << scenario.file << ": the " << scenario.workload->name
              << " runs in simulation only (--backend sim): it does not run over a hardware transport\n";
    return kExitBadInput;
  }
  if (const int status = check_payload_memory(scenario, *backend))
    return status;
  // What the backend offers the workload (its engines), asked of the workload
  // before any rank starts or any device is touched.
  const RunContext context{.backend = backend->name, .device_alltoall = backend->device_alltoall};
  if (scenario.workload->context_error)
    if (const std::optional<std::string> why = scenario.workload->context_error(scenario, context)) {
      std::cerr << "xover run: " << scenario.file << ":" << scenario.workload_line << ": " << *why << "\n";
      return kExitBadInput;
    }
  if (!backend->simulated())
    return run_on_hardware(scenario, *backend, vm, args, out, plot);
  return run_in_simulation(scenario, *backend, out, plot);
}

int report_results(const Scenario& scenario, const Results& results, const std::string& backend,
                   const std::string& platform, const std::string& out) {
  std::cout << format_results_table(scenario, results, backend, platform);
  const std::filesystem::path dir = std::filesystem::path(out).parent_path();
  std::error_code ec;
  if (!dir.empty())
    std::filesystem::create_directories(dir, ec);
  std::ofstream csv(out);
  if (!csv) {
    std::cerr << "xover run: cannot write " << out << "\n";
    return 1;
  }
  write_csv(csv, results, scenario.name, backend, platform, std::string(scenario.workload->name));
  std::cout << "results: " << out << "\n";
  if (results.errors() > 0) {
    std::cerr << "xover run: " << results.errors() << " corrupt or missing messages\n";
    return 1;
  }
  return 0;
}

}  // namespace xover::tools
