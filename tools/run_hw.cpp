// xover run --backend NAME (a hardware backend): the scenario on this machine's hardware.
//
// Started by a user, the command is the launcher: it starts the scenario's
// ranks on this node, each one this same command line again with a
// bootstrap socket in its environment (runtime/launch/launch.hpp), and watches
// over them. Started by mpirun, every process is a rank already and
// bootstraps through MPI. Either way, each rank runs its part of the
// workload over the chosen transport (an alltoall with the backend's engine
// for device memory where it has one: the cuda backend's GPU PEs), the
// ranks swap their findings through the bootstrap, and rank 0 prints the
// table and writes the CSV.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <iostream>

#include "protocols/workload/scenario.hpp"
#include "protocols/workload/workload.hpp"
#include "runtime/backends.hpp"
#include "runtime/common.hpp"
#include "runtime/fault.hpp"
#include "runtime/launch/launch.hpp"
#include "runtime/launch/mpi_bootstrap.hpp"
#include "tools/commands.hpp"

namespace po = boost::program_options;

namespace xover::tools {
namespace {

int launch(const Scenario& scenario, const RunContext& context, const std::vector<std::string>& args) {
  runtime::LaunchOptions options;
  options.command = {"/proc/self/exe", "run"};
  options.command.insert(options.command.end(), args.begin(), args.end());
  options.threads_per_rank = workload_threads(scenario, context);
  const std::string crowded =
      runtime::oversubscription(workload_ranks(scenario), options.threads_per_rank, runtime::node_cores());
  if (!crowded.empty())
    std::cout << "xover run: " << crowded << ": the times measure how they share the cores, not what they take"
              << std::endl;
  const runtime::LaunchResult result = runtime::launch_local(workload_ranks(scenario), options);
  if (result.ok)
    return 0;
  std::cerr << "xover run: the run failed: " << result.message << "\n";
  return 1;
}

/// The rank's device memory for a scenario whose payloads live there, or
/// null (made by the backend that offers that memory: the cuda backend's
/// gives the peers of its node its buffers through IPC, the others through
/// host fragments); rank 0 says what it measured. Collective over `boot`.
std::unique_ptr<DeviceMemory> payload_memory(const Scenario& scenario, runtime::Bootstrap& boot) {
  const runtime::Backend* holder = runtime::memory_backend(scenario.memory);
  if (!holder)
    return nullptr;
  std::unique_ptr<DeviceMemory> memory = holder->memory.make(boot);
  if (boot.rank() == 0) {
    const DeviceCopy f = memory->figures();
    std::fprintf(stderr,
                 "xover run: rank 0's device memory, measured: a copy to or from pinned host memory %.2f us + n / "
                 "%.2f GB/s, from pageable host memory %.2f us + n / %.2f GB/s, device to device %.1f GB/s\n",
                 f.stage_o * 1e6, f.stage_bw / 1e9, f.pageable_o * 1e6, f.pageable_bw / 1e9, f.ipc_bw / 1e9);
  }
  return memory;
}

int run_rank(const Scenario& scenario, const RunContext& context, const runtime::Backend& backend,
             const runtime::RuntimeOptions& options, runtime::Bootstrap& boot, const std::string& out,
             const std::string& plot) {
  const Rank need = workload_ranks(scenario);
  if (boot.size() != need) {
    if (boot.rank() == 0)
      std::cerr << "xover run: " << scenario.file << " needs " << need << " ranks, " << boot.size()
                << " were started (mpirun -np " << need << ")\n";
    return kExitBadInput;
  }
  std::unique_ptr<Transport> transport = backend.make(boot, options);
  const std::unique_ptr<DeviceMemory> device = payload_memory(scenario, boot);
  transport->attach_device_memory(device.get());
  Results mine;
  const bool terminal = boot.rank() == 0 && isatty(STDERR_FILENO) != 0;
  if (terminal) {
    mine.on_new_point = [&](const Point& p) {
      std::fprintf(stderr, "\r\033[K%s: %s at %s B", scenario.name.c_str(), p.curve.c_str(),
                   std::to_string(p.size).c_str());
    };
    mine.on_visit = [&](const Point& p, std::size_t index, std::size_t visits) {
      std::fprintf(stderr, "\r\033[K%s: visit %zu of %zu: %s at %s B", scenario.name.c_str(), index + 1, visits,
                   p.curve.c_str(), std::to_string(p.size).c_str());
    };
  }
  run_workload(scenario, boot.rank(), *transport, mine, context);
  if (terminal)
    std::fprintf(stderr, "\r\033[K");
  if (!transport->failure().empty()) {
    std::cerr << "xover: rank " << boot.rank() << ": " << transport->failure() << "\n";
    return runtime::kExitPeerLost;
  }
  const std::string text = mine.to_text();
  const std::vector<runtime::Blob> all = boot.allgather(std::as_bytes(std::span(text.data(), text.size())));
  transport.reset();
  if (boot.rank() != 0)
    return 0;
  Results merged;
  for (const runtime::Blob& blob : all)
    merged.merge_text(std::string_view(reinterpret_cast<const char*>(blob.data()), blob.size()));
  if (const std::string crowded =
          runtime::oversubscription(boot.size(), workload_threads(scenario, context), runtime::node_cores());
      !crowded.empty())
    merged.note_all(crowded);
  const int status = report_results(scenario, merged, std::string(backend.name), runtime::host_name(), out);
  return status == 0 && !plot.empty() ? plot_results("run", {out}, plot) : status;
}

}  // namespace

int run_on_hardware(const Scenario& given, const runtime::Backend& backend, const po::variables_map& vm,
                    const std::vector<std::string>& args, const std::string& out, const std::string& plot) {
  Scenario scenario = given;
  // The backend's engines, the platform's device figures for a workload
  // that prices with them, and, given --platform, the protocol the
  // platform's selection takes at each size for `auto` to run: no other
  // hardware run loads the platform.
  RunContext context{.backend = backend.name, .device_alltoall = backend.device_alltoall};
  const bool choose = vm.count("platform") > 0 && !scenario.workload->device_figures;
  if (scenario.workload->device_figures || choose) {
    try {
      if (const std::optional<HardwarePlatform> platform = platform_for_hardware(scenario.platform, scenario, choose)) {
        context.device = platform->device;
        context.platform_choices = platform->choices;
      } else if (choose) {
        std::cerr << "xover run: --platform " << scenario.platform
                  << ": this build has no platform loader (configured with -DXOVER_WITH_SIMGRID=OFF): leave "
                     "--platform out for auto to select with the transport's own figures, or use an xover built "
                     "with SimGrid\n";
        return kExitBadInput;
      }
    } catch (const std::runtime_error& e) {
      // A scenario's own platform only lends device figures, defaults in
      // its place; one given with --platform is what auto selects with.
      if (vm.count("platform")) {
        std::cerr << "xover run: " << e.what() << "\n";
        return kExitBadInput;
      }
    }
  }
  runtime::RuntimeOptions options;
  options.timeout = vm["timeout"].as<double>();
  options.reg_cache = scenario.select.reg_cache;
  scenario.sampling.rounds = vm["rounds"].as<std::size_t>();
  scenario.sampling.warm_bytes = kHardwareWarmBytes;
  if (!(options.timeout > 0) || !std::isfinite(options.timeout)) {
    std::cerr << "xover run: --timeout must be a positive number of seconds\n";
    return kExitBadInput;
  }
  if (scenario.sampling.rounds < 1) {
    std::cerr << "xover run: --rounds must be at least 1\n";
    return kExitBadInput;
  }
  const std::optional<std::any> settings = read_backend_options("run", backend, vm, runtime::BackendUse::Run);
  if (!settings)
    return kExitBadInput;
  options.backend = *settings;
  if (scenario.phantom) {
    std::cerr << "xover run: " << scenario.file << ": phantom payloads are for simulation; hardware moves real bytes "
              << "(use <payload mode=\"verify\"/>)\n";
    return kExitBadInput;
  }

  std::unique_ptr<runtime::Bootstrap> boot;
  try {
    boot = runtime::LocalBootstrap::from_environment();
    if (!boot && runtime::launched_by_mpi())
      boot = runtime::make_mpi_bootstrap();
    if (!boot)
      return launch(scenario, context, args);
    return run_rank(scenario, context, backend, options, *boot, out, plot);
  } catch (const runtime::RuntimeError& e) {
    std::cerr << "xover run: " << (boot ? "rank " + std::to_string(boot->rank()) + ": " : "") << e.what() << "\n";
    return 1;
  } catch (const std::invalid_argument& e) {
    std::cerr << "xover run: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace xover::tools
