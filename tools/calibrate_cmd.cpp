// xover calibrate: measures this machine's lanes (any hardware backend) the way
// Netgauge measures a network, times every protocol's own ping-pong sweep,
// fits LogGP lanes and cost lines (calib/), and writes a SimGrid platform
// that the simulator then runs scenarios on.
//
// The command launches two ranks on this node, pinned like `xover run
// --backend`, each running the probes over the real Transport, in rounds
// until rank 0 finds the fits stable (calib/rounds.hpp) or the time limit
// near; rank 0 fits, writes the platform and prints the fits. Last, the
// alltoall's device figures (calib/device_probe.hpp; on a backend with an
// engine for device memory, that engine's: calib/engine_probe.hpp) go on
// the platform's nodes, and on a backend that offers device memory (its
// row's `memory`: the cuda backend's GPU), that memory's copies
// (xover:stage_o, stage_bw, ipc_bw).
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "base/clock.hpp"
#include "protocols/registry.hpp"
#include "protocols/workload/results.hpp"
#include "protocols/workload/workloads.hpp"
#include "runtime/backends.hpp"
#include "runtime/common.hpp"
#include "runtime/launch/launch.hpp"
#include "tools/calib/calibration.hpp"
#include "tools/calib/device_probe.hpp"
#include "tools/calib/engine_probe.hpp"
#include "tools/calib/rounds.hpp"
#include "tools/commands.hpp"

namespace po = boost::program_options;

namespace xover::tools {
namespace {

struct Settings {
  const runtime::Backend* backend = nullptr;
  runtime::RuntimeOptions runtime;
  std::string out;
  std::string sweeps;  ///< where the protocol sweeps go as a results CSV; empty: nowhere
  bool quick = false;
  calib::RoundRule rule;  ///< when the rounds end
};

/// A round moves every fit by less than this once the fits are stable.
constexpr double kStable = 0.05;
/// Rounds before the fits may be called stable: enough that the sweeps the
/// figures are fitted to hold a spell of the machine's slow state.
constexpr std::size_t kMinRounds = 5;

/// Powers of `factor` from 8 up to `largest`, and `largest` itself.
std::vector<Bytes> probe_sizes(Bytes largest, double factor) {
  std::vector<Bytes> sizes = geometric_sizes(8, std::max<Bytes>(largest, 8), factor);
  if (sizes.back() != largest && largest > 8)
    sizes.push_back(largest);
  return sizes;
}

/// One round's protocol sweep: `auto` and every protocol the registry
/// holds, in a ping-pong from 8 B to 4 MiB (1 MiB when quick), its points
/// visited in two shuffled rounds drawn from `seed`, each visit's warm-up
/// cycling the receive ring; a protocol the lanes cannot carry runs no
/// sizes.
Scenario sweep_scenario(const Settings& s, std::uint64_t seed) {
  Scenario scenario;
  scenario.name = std::string("calibrate-") + std::string(s.backend->name);
  scenario.workload = &pingpong_workload;
  scenario.iterations = s.quick ? 4 : 10;
  scenario.warmup = s.quick ? 1 : 3;
  scenario.seed = seed;
  scenario.sampling = {.rounds = 2, .warm_bytes = kHardwareWarmBytes};
  scenario.sizes = geometric_sizes(8, s.quick ? Bytes{1} << 20 : Bytes{4} << 20, s.quick ? 4 : 2);
  scenario.curves = {"auto"};
  for (const Protocol* protocol : protocols_for(ProtoOp::TagSend))
    scenario.curves.emplace_back(protocol->name);
  return scenario;
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

void print(const calib::Calibration& c, const std::string& out) {
  for (const LaneAttrs& lane : c.draft.lanes) {
    std::printf("lane %-10s L %9.4f us  B %8.4f GB/s  o_s %8.4f us  o_r %8.4f us  g %8.4f us", lane.name.c_str(),
                lane.latency * 1e6, lane.bandwidth / 1e9, lane.o_send * 1e6, lane.o_recv * 1e6, lane.gap * 1e6);
    if (lane.o_send_after > 0)
      std::printf("  o_send_after %8.4f us", lane.o_send_after * 1e6);
    std::printf("%s\n", lane.bcopy_copies ? "" : "  bcopy_copy no");
  }
  std::printf("%-20s %-13s %12s %12s %9s %11s %11s\n", "protocol", "sizes", "c (us)", "m (ns/B)", "rel RMS",
              "model med", "model worst");
  for (const calib::ProtocolFit& p : c.protocols)
    std::printf("%-20s %-13s %12.4f %12.5f %8.2f%% %10.1f%% %10.1f%%\n", p.curve.c_str(),
                (format_size(p.from) + ".." + format_size(p.to)).c_str(), p.line.c * 1e6, p.line.m * 1e9,
                p.line.rel_rms * 100, p.model_median_error * 100, p.model_worst_error * 100);
  for (const calib::Breakpoint& b : c.breakpoints)
    std::printf("auto changes line between %s (%s) and %s (%s)\n", format_size(b.before).c_str(), b.from.c_str(),
                format_size(b.after).c_str(), b.to.c_str());
  if (c.draft.device)
    std::printf("alltoall device: o_device %.4f us (%.4f us back to back)  o_proxy %.4f us  wake-up %.4f us\n",
                c.draft.device->device_o * 1e6, c.device_o_burst * 1e6, c.draft.device->proxy_o * 1e6,
                c.draft.device->proxy_wake * 1e6);
  for (const std::string& note : c.notes)
    std::printf("note: %s\n", note.c_str());
  std::printf("platform: %s\n", out.c_str());
}

/// What the simulation of each point of `sweeps` (the forced curves) on
/// `draft` takes beyond the point's cost line; none when this build has no
/// simulator.
std::optional<calib::PointSeconds> simulated_excess(const calib::PlatformDraft& draft, const Results& sweeps,
                                                    const Settings& s) {
  Scenario scenario = sweep_scenario(s, 1);
  scenario.curves.clear();
  for (const Point* p : sweeps.points())
    if (p->curve != "auto" && std::find(scenario.curves.begin(), scenario.curves.end(), p->curve) == scenario.curves.end())
      scenario.curves.push_back(p->curve);
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("xover-calibrate-" + std::to_string(getpid()) + ".xml");
  std::ofstream(file) << calib::platform_xml(draft);
  scenario.platform = file.string();
  scenario.from = "node0";
  scenario.to = "node1";
  std::optional<Results> simulated;
  try {
    simulated = simulate_scenario(scenario, scenario.platform);
  } catch (...) {
    std::filesystem::remove(file);
    throw;
  }
  std::filesystem::remove(file);
  if (!simulated)
    return std::nullopt;
  const Path path = calib::draft_path(draft);
  calib::PointSeconds excess;
  for (const Point* p : simulated->points()) {
    if (p->samples.empty())
      continue;
    SelectConfig config;
    config.forced = {p->curve};
    if (const std::optional<Seconds> line = calib::model_time(ThresholdTable::build(path, config), p->size))
      excess[{p->curve, p->size}] = p->median() - *line;
  }
  return excess;
}

/// The probes of one round on every lane, sizes in an order drawn from `seed`.
void probe_round(Transport& t, const Path& path, std::size_t am_lane, const Settings& s, std::uint64_t seed,
                 std::vector<std::vector<std::vector<calib::PrttPoint>>>& am,
                 std::vector<std::vector<std::vector<calib::GetPoint>>>& get) {
  calib::ProbeOptions probe;
  probe.repeats = s.quick ? 5 : 10;
  probe.warmup = 2;
  probe.warm_bytes = kHardwareWarmBytes;
  probe.stream_bytes = s.quick ? Bytes{256} << 10 : Bytes{4} << 20;
  probe.stream_repeats = s.quick ? 1 : 2;
  const double factor = s.quick ? 4 : 2;
  for (std::size_t i = 0; i < path.lanes.size(); ++i) {
    const LaneAttrs& lane = path.lanes[i];
    if (lane.caps.has(LaneCap::AmBcopy))
      am[i].push_back(calib::probe_am(
          t, i,
          calib::shuffled(probe_sizes(std::min(lane.max_bcopy, lane.seg_size) - calib::kProbeHeader, factor), seed),
          probe));
    if (lane.caps.has(LaneCap::GetZcopy))
      get[i].push_back(calib::probe_get(
          t, am_lane, i, calib::shuffled(probe_sizes(s.quick ? Bytes{1} << 20 : Bytes{4} << 20, factor * 2), seed),
          probe));
  }
}

/// The lane the probes' active messages take: the first that carries
/// copied ones. Rank 0 says when no lane carries gets.
std::size_t probe_lane(const Path& path, const Settings& s, Rank rank) {
  std::optional<std::size_t> am_lane;
  for (std::size_t i = 0; i < path.lanes.size() && !am_lane; ++i)
    if (path.lanes[i].caps.has(LaneCap::AmBcopy))
      am_lane = i;
  if (!am_lane)
    throw runtime::RuntimeError("no lane to the peer carries copied active messages: nothing to calibrate with");
  if (rank == 0 && std::none_of(path.lanes.begin(), path.lanes.end(),
                                [](const LaneAttrs& lane) { return lane.caps.has(LaneCap::GetZcopy); }))
    std::fprintf(stderr, "xover calibrate: %s: no lane carries gets, so rndv/get is not calibrated\n",
                 std::string(s.backend->name).c_str());
  return *am_lane;
}

/// How the rounds went, as rank 0 saw them.
struct Rounds {
  std::size_t count = 0;
  calib::FitChange change{1, ""};
  std::optional<calib::RoundsEnd> end;
};

/// Rank 0's line on stderr after a round.
void say_round(const Settings& s, const Rounds& r, Seconds elapsed, bool stable) {
  if (s.rule.rounds > 0)
    std::fprintf(stderr, "xover calibrate: round %zu of %zu, %.0f s: ", r.count, s.rule.rounds, elapsed);
  else
    std::fprintf(stderr, "xover calibrate: round %zu, %.0f s of at most %.0f: ", r.count, elapsed,
                 s.rule.time_limit);
  if (r.count == 1)
    std::fprintf(stderr, "first fits\n");
  else
    std::fprintf(stderr, "the fits moved %.1f %% (%s)%s\n", r.change.relative * 100, r.change.what.c_str(),
                 stable ? ": stable" : "");
}

/// Round after round until the rule ends them: every lane's probes and the
/// protocol sweep (into `mine`); on rank 0 the probes' fits into `m`, and
/// whether another round is to come, told to rank 1 through the bootstrap.
Rounds measure_rounds(runtime::Bootstrap& boot, Transport& t, const Path& path, std::size_t am_lane,
                      const Settings& s, Seconds start, calib::Measurements& m, Results& mine) {
  std::vector<std::vector<std::vector<calib::PrttPoint>>> am(path.lanes.size());
  std::vector<std::vector<std::vector<calib::GetPoint>>> get(path.lanes.size());
  std::optional<calib::Calibration> last;
  Rounds r;
  for (bool more = true; more;) {
    ++r.count;
    probe_round(t, path, am_lane, s, r.count, am, get);
    run_workload(sweep_scenario(s, r.count), boot.rank(), t, mine);
    if (!t.failure().empty())
      throw std::runtime_error(t.failure());
    char go = 0;
    if (boot.rank() == 0) {
      m.lanes.clear();
      for (std::size_t i = 0; i < path.lanes.size(); ++i)
        m.lanes.push_back({path.lanes[i], calib::combine_prtt(am[i]), calib::combine_gets(get[i])});
      m.sweeps = mine;
      // Whether a round moved the figures, the probes' fits say: the fit to
      // the sweeps comes once, at the end.
      calib::Calibration now = calib::calibrate(m, calib::FitDepth::Probes);
      if (last)
        r.change = calib::fit_change(*last, now);
      last = std::move(now);
      const bool stable = r.count >= kMinRounds && r.change.relative < kStable;
      say_round(s, r, clock_now() - start, stable);
      r.end = calib::rounds_end(s.rule, r.count, clock_now() - start, stable);
      go = r.end ? 0 : 1;
    }
    const std::vector<runtime::Blob> said = boot.allgather(std::as_bytes(std::span(&go, 1)));
    more = !said.front().empty() && said.front().front() == std::byte{1};
  }
  return r;
}

/// The alltoall's device figures into `m`, and a GPU's copies where the
/// backend has an engine for device memory (for the memory-type protocols).
void measure_device(runtime::Bootstrap& boot, Transport& t, const Settings& s, calib::Measurements& m) {
  const std::size_t puts = s.quick ? 100 : 400;
  const calib::DeviceFigures device = s.backend->device_alltoall.make
                                          ? calib::probe_device_engine(s.backend->device_alltoall.make, t, boot, puts)
                                          : calib::probe_device(t, boot, puts);
  m.device = DeviceAttrs{device.device_o, 1, device.proxy_o, device.proxy_wake};
  m.device_o_burst = device.device_o_burst;
  // A backend that offers device memory: its copies, for the memory-type
  // protocols.
  if (s.backend->memory.make)
    m.device_copy = s.backend->memory.make(boot)->figures();
}

/// Rank 0, once both ranks' sweeps are in `m`: the fits (refitted twice
/// against the simulation of the sweeps on the draft, where this build has
/// the simulator: what it adds moves a little with the figures), the
/// platform and the sweeps written, the report printed. The exit status.
int fit_and_write(calib::Measurements& m, const Settings& s) {
  calib::Calibration c = calib::calibrate(m);
  for (int pass = 0; pass < 2; ++pass) {
    const std::optional<calib::PointSeconds> excess = simulated_excess(c.draft, m.sweeps, s);
    if (!excess) {
      std::fprintf(stderr, "xover calibrate: this build has no simulator: the figures answer to the cost lines "
                           "alone, not to what a simulation of the sweeps adds to them\n");
      break;
    }
    std::fprintf(stderr, "xover calibrate: simulated the sweeps on the draft (%d of 2)\n", pass + 1);
    m.simulated_excess = *excess;
    c = calib::calibrate(m);
  }
  std::ofstream file(s.out);
  file << calib::platform_xml(c.draft);
  if (!file.flush()) {
    std::fprintf(stderr, "xover calibrate: cannot write %s\n", s.out.c_str());
    return 1;
  }
  if (!s.sweeps.empty()) {
    std::ofstream csv(s.sweeps);
    write_csv(csv, m.sweeps, "calibrate-" + m.backend, m.backend, m.host, "pingpong");
    if (!csv.flush()) {
      std::fprintf(stderr, "xover calibrate: cannot write %s\n", s.sweeps.c_str());
      return 1;
    }
  }
  print(c, s.out);
  return 0;
}

int calibrate_rank(runtime::Bootstrap& boot, const Settings& s) {
  std::unique_ptr<Transport> transport = s.backend->make(boot, s.runtime);
  Transport& t = *transport;
  const Path path = t.path(boot.rank() == 0 ? 1 : 0);
  const std::size_t am_lane = probe_lane(path, s, boot.rank());
  calib::Measurements m;
  m.backend = std::string(s.backend->name);
  m.host = runtime::host_name();
  m.date = utc_now();
  m.memcpy_bw = path.memcpy_bw_local;
  m.messages = calib::ProbeOptions{}.messages;
  Results mine;
  const Seconds start = clock_now();
  const Rounds rounds = measure_rounds(boot, t, path, am_lane, s, start, m, mine);
  measure_device(boot, t, s, m);
  const std::string text = mine.to_text();
  const std::vector<runtime::Blob> all = boot.allgather(std::as_bytes(std::span(text.data(), text.size())));
  transport.reset();
  if (boot.rank() != 0)
    return 0;
  m.sweeps = Results();
  for (const runtime::Blob& blob : all)
    m.sweeps.merge_text(std::string_view(reinterpret_cast<const char*>(blob.data()), blob.size()));
  if (m.sweeps.errors() > 0) {
    std::fprintf(stderr, "xover calibrate: %zu corrupt or missing messages in the protocol sweeps\n",
                 m.sweeps.errors());
    return 1;
  }
  m.sampling = calib::rounds_note(rounds.count, clock_now() - start, rounds.change, kStable,
                                  rounds.end.value_or(calib::RoundsEnd::Count));
  // The core's own time, in this rank alone once the transport is closed.
  m.core = calib::probe_core();
  return fit_and_write(m, s);
}

/// Why `out`, given as `option`, cannot be written, or nothing.
std::optional<std::string> unwritable(const std::string& option, const std::string& out) {
  namespace fs = std::filesystem;
  const fs::path path(out);
  const fs::path dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  std::error_code ec;
  if (out.empty() || path.filename().empty() || fs::is_directory(path, ec))
    return option + " " + out + ": names a directory, not a file";
  if (!fs::is_directory(dir, ec))
    return option + " " + out + ": no directory " + dir.string();
  if (access(dir.c_str(), W_OK) != 0 || (fs::exists(path, ec) && access(path.c_str(), W_OK) != 0))
    return option + " " + out + ": not writable";
  return std::nullopt;
}

}  // namespace

int calibrate_command(const std::vector<std::string>& args) {
  po::options_description opts(
      "usage: xover calibrate --backend NAME [--out FILE.xml] [--quick] [--time-limit S] [--rounds R]\n\n"
      "Measures this machine's lanes as Netgauge does (parametrised round trips: L, o_s, o_r, g, G),\n"
      "times every protocol's own ping-pong from 8 B to 4 MiB, fits LogGP lanes and cost lines,\n"
      "fits the lane figures to those sweeps (least squares, the probes' figures the start; with the\n"
      "simulator, against what the simulation of the sweeps adds to the cost lines), finds where the\n"
      "auto curve changes protocol, and writes a SimGrid platform (nodes node0 and node1)\n"
      "whose comment block lists every fit. It measures in rounds, each visiting every size and\n"
      "protocol in a shuffled order, folds the rounds together and refits after each (a line on\n"
      "stderr says by how much the fits moved), and stops once a round moves no fit by 5 % or more\n"
      "(at least 5 rounds), or before a round would end past --time-limit; --rounds R measures R rounds.\n"
      "Run a scenario on it with xover run SCENARIO --platform FILE.\n\n"
      "backends (every one but the simulator):\n" +
      backends_help() + "\noptions");
  opts.add_options()("help,h", "this help")("backend,b", po::value<std::string>(), "the hardware backend to measure (see above)")(
      "out,o", po::value<std::string>(), "platform file to write (default platforms/BACKEND-calibrated.xml)")(
      "sweeps", po::value<std::string>(),
      "also write every protocol's measured sweep, the figures were fitted to, to this results CSV")(
      "quick", "a short run (a few seconds): fewer sizes and repetitions, sizes up to 1 MiB")(
      "time-limit", po::value<double>(),
      "seconds of measuring rounds at most (default 120; 10 with --quick); rounds stop earlier once one moves "
      "no fit by 5 % or more")(
      "rounds", po::value<std::size_t>(),
      "measure exactly this many rounds: neither stable fits nor --time-limit end them earlier")(
      "timeout", po::value<double>()->default_value(10.0),
      "seconds a rank waits with nothing moving before it gives up on its peer");
  add_backend_options(opts);
  po::variables_map vm;
  if (const auto status = parse_options("calibrate", args, opts, {}, vm))
    return *status;
  if (!vm.count("backend")) {
    std::cerr << "xover calibrate: no --backend given (see xover calibrate --help)\n";
    return kExitBadInput;
  }
  Settings s;
  const std::string backend = vm["backend"].as<std::string>();
  s.backend = usable_backend("calibrate", backend);
  if (!s.backend)
    return kExitBadInput;
  if (s.backend->simulated()) {
    std::cerr << "xover calibrate: backend " << backend << " is the simulator; calibrate measures hardware\n";
    return kExitBadInput;
  }
  s.out = vm.count("out") ? vm["out"].as<std::string>() : "platforms/" + backend + "-calibrated.xml";
  s.quick = vm.count("quick") > 0;
  s.rule.time_limit = vm.count("time-limit") ? vm["time-limit"].as<double>() : s.quick ? 10 : 120;
  if (!(s.rule.time_limit > 0) || !std::isfinite(s.rule.time_limit)) {
    std::cerr << "xover calibrate: --time-limit must be a positive number of seconds\n";
    return kExitBadInput;
  }
  if (vm.count("rounds")) {
    s.rule.rounds = vm["rounds"].as<std::size_t>();
    if (s.rule.rounds < 1) {
      std::cerr << "xover calibrate: --rounds must be at least 1\n";
      return kExitBadInput;
    }
  }
  s.runtime.timeout = vm["timeout"].as<double>();
  if (!(s.runtime.timeout > 0) || !std::isfinite(s.runtime.timeout)) {
    std::cerr << "xover calibrate: --timeout must be a positive number of seconds\n";
    return kExitBadInput;
  }
  const std::optional<std::any> settings =
      read_backend_options("calibrate", *s.backend, vm, runtime::BackendUse::Calibrate);
  if (!settings)
    return kExitBadInput;
  s.runtime.backend = *settings;
  if (const std::optional<std::string> why = unwritable("--out", s.out)) {
    std::cerr << "xover calibrate: " << *why << "\n";
    return kExitBadInput;
  }
  if (vm.count("sweeps")) {
    s.sweeps = vm["sweeps"].as<std::string>();
    if (const std::optional<std::string> why = unwritable("--sweeps", s.sweeps)) {
      std::cerr << "xover calibrate: " << *why << "\n";
      return kExitBadInput;
    }
  }
  std::cout << std::flush;
  try {
    const runtime::LaunchResult result = runtime::launch_local(2, {}, [&](runtime::LocalBootstrap& boot) {
      try {
        return calibrate_rank(boot, s);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "xover calibrate: rank %u: %s\n", boot.rank(), e.what());
        return 1;
      }
    });
    if (result.ok)
      return 0;
    std::cerr << "xover calibrate: the calibration failed: " << result.message << "\n";
  } catch (const runtime::RuntimeError& e) {
    std::cerr << "xover calibrate: " << e.what() << "\n";
  }
  return 1;
}

}  // namespace xover::tools
