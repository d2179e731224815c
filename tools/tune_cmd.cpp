// xover tune: the settings that make UCX or Open MPI hand over from eager
// to rendezvous where *their own* protocols cross on a calibrated
// platform's path (tools/tune/), as a shell file to source, JSON or a table.
#include <boost/program_options.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "base/spawn.hpp"
#include "runtime/backends.hpp"
#include "sim/platform_loader.hpp"
#include "tools/commands.hpp"
#include "tools/tune/library_model.hpp"
#include "tools/tune/probes.hpp"
#include "tools/tune/report.hpp"
#include "tools/tune/settings.hpp"

namespace po = boost::program_options;

namespace xover::tools {
namespace {

/// The backends whose paths a library runs over: the hardware ones UCX
/// and Open MPI have transports for.
bool tunable(const std::string& backend) {
  return backend == "shm" || backend == "tcp" || backend == "verbs";
}

/// Calibrates `backend` into `platform` with this xover (its log beside
/// it); false after saying why on stderr.
bool calibrate(const std::string& backend, const std::string& platform, double time_limit) {
  const runtime::Backend* row = usable_backend("tune", backend);
  if (!row)
    return false;
  const std::filesystem::path dir = std::filesystem::path(platform).parent_path();
  std::error_code ec;
  if (!dir.empty())
    std::filesystem::create_directories(dir, ec);
  const std::string log = platform + ".log";
  std::cerr << "xover tune: no --platform: calibrating " << backend << " into " << platform << " (log " << log
            << ")\n";
  const int status = spawn_and_wait("/proc/self/exe",
                                    {"xover", "calibrate", "--backend", backend, "--out", platform, "--time-limit",
                                     std::to_string(time_limit)},
                                    log);
  if (status != 0)
    std::cerr << "xover tune: calibrating " << backend << " failed (status " << status << "): see " << log << "\n";
  return status == 0;
}

/// The path a library's rank on the first node takes to the second.
Path platform_path(const std::string& file) {
  const sim::LogGPPlatform platform = sim::LogGPPlatform::load(file);
  const auto& nodes = platform.nodes();
  if (nodes.size() < 2)
    throw sim::PlatformError(file + ": no path to tune: needs two nodes, has " + std::to_string(nodes.size()));
  return platform.path(nodes[0].name, nodes[1].name);
}

}  // namespace

int tune_command(const std::vector<std::string>& args) {
  po::options_description opts(
      "usage: xover tune --backend shm|tcp|verbs --for ucx|ompi [--platform CAL.xml] [--probes FILE] [--out FILE]\n"
      "                  [--json]\n\n"
      "The settings that make UCX (its environment) or Open MPI's ob1 (the MCA parameters of the BTL\n"
      "in use) hand over where that library's own protocols cross on the platform's path from the\n"
      "first node to the second, each with the size it comes from and why; beside each, what the\n"
      "installed library does (ucx_info, ompi_info) and what xover predicts that costs. Writes a\n"
      "shell file to source (--out, default results/tune-LIB-BACKEND.sh) and prints a table, or\n"
      "the same as JSON with --json. Without --platform, calibrates the backend first.\n\noptions");
  opts.add_options()("help,h", "this help")("backend,b", po::value<std::string>(), "shm, tcp or verbs")(
      "for", po::value<std::string>(), "the library: ucx or ompi")(
      "platform,p", po::value<std::string>(), "a calibrated platform (default: calibrate now)")(
      "out,o", po::value<std::string>(), "the shell file (default results/tune-LIB-BACKEND.sh)")(
      "time-limit", po::value<double>()->default_value(60), "seconds calibrating may take, without --platform")(
      "probes", po::value<std::string>(),
      "the installed library's own times at a few sizes (bench/tune_probe.py writes them): its per-message and "
      "per-fragment costs added to its lines")(
      "no-installed", "leave the installed library out: its defaults as this xover knows them (settings for another machine)")(
      "json", "print JSON for scripts instead of the table");
  po::variables_map vm;
  if (const auto status = parse_options("tune", args, opts, {}, vm))
    return *status;
  if (!vm.count("backend") || !vm.count("for")) {
    std::cerr << "xover tune: --backend and --for are required (xover tune --help)\n";
    return kExitBadInput;
  }
  const std::string backend = vm["backend"].as<std::string>();
  if (!tunable(backend)) {
    std::cerr << "xover tune: --backend: '" << backend << "' is not a path a library runs over (shm, tcp, verbs)\n";
    return kExitBadInput;
  }
  const std::optional<tune::Library> library = tune::library_named(vm["for"].as<std::string>());
  if (!library) {
    std::cerr << "xover tune: --for: unknown library '" << vm["for"].as<std::string>() << "' (known: ucx, ompi)\n";
    return kExitBadInput;
  }
  const std::string lib = std::string(tune::library_name(*library));
  const std::string out = vm.count("out") ? vm["out"].as<std::string>() : "results/tune-" + lib + "-" + backend + ".sh";
  std::string platform;
  if (vm.count("platform")) {
    platform = vm["platform"].as<std::string>();
  } else {
    platform = "results/tune-" + backend + "-platform.xml";
    if (!calibrate(backend, platform, vm["time-limit"].as<double>()))
      return 1;
  }

  tune::TuneResult result;
  try {
    const Path path = platform_path(platform);
    tune::Installed installed;
    installed.library = *library;
    installed.absent_reason = "left out (--no-installed)";
    if (!vm.count("no-installed"))
      installed = tune::probe_installed(*library, tune::ucx_env(backend));
    std::optional<tune::Probes> probes;
    if (vm.count("probes"))
      probes = tune::load_probes(vm["probes"].as<std::string>());
    const tune::Probes* measured = probes ? &*probes : nullptr;
    result = *library == tune::Library::Ucx ? tune::tune_ucx(path, backend, installed, measured)
                                            : tune::tune_ompi(path, backend, installed, measured);
  } catch (const sim::PlatformError& e) {
    std::cerr << "xover tune: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const tune::ProbeError& e) {
    std::cerr << "xover tune: --probes: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const tune::PathError& e) {
    std::cerr << "xover tune: " << platform << ": " << e.what() << "\n";
    return kExitBadInput;
  }
  result.platform = platform;

  std::filesystem::path dir = std::filesystem::path(out).parent_path();
  std::error_code ec;
  if (!dir.empty())
    std::filesystem::create_directories(dir, ec);
  std::ofstream file(out);
  if (!(file << tune::format_shell(result))) {
    std::cerr << "xover tune: --out: cannot write " << out << "\n";
    return kExitBadInput;
  }
  std::cout << (vm.count("json") ? tune::format_json(result) : tune::format_table(result));
  if (!vm.count("json"))
    std::cout << "\nsettings: " << out << " (source it: . " << out << ")\n";
  return 0;
}

}  // namespace xover::tools
