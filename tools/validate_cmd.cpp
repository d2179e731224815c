// xover validate: does a simulation predict this machine's hardware?
// Calibrates (unless given a platform), runs the scenario on the hardware
// K ≥ 2 times and once in simulation, each as its own `xover` process
// whose output goes to a log beside its CSV, then judges (validate.hpp),
// draws the simulation over the hardware runs with their confidence bands,
// and sets UCX's own hand-over beside the measured one where ucx_info is
// installed.
#include <boost/program_options.hpp>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "base/spawn.hpp"
#include "formats/scenario_xml.hpp"
#include "protocols/workload/workload.hpp"
#include "runtime/backends.hpp"
#include "runtime/common.hpp"
#include "tools/commands.hpp"
#include "tools/validate_report.hpp"

namespace po = boost::program_options;

namespace xover::tools {
namespace {

/// Runs this xover again with `args`, its output (both streams) into
/// `log`; returns its exit status, or -1 when it could not be started or
/// was killed.
int run_self(const std::vector<std::string>& args, const std::string& log) {
  std::vector<std::string> argv{"xover"};
  argv.insert(argv.end(), args.begin(), args.end());
  return spawn_and_wait("/proc/self/exe", argv, log);
}

/// The last `count` lines of `file`, indented, for a failure's message.
std::string tail(const std::string& file, std::size_t count = 8) {
  std::ifstream in(file);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  std::string out;
  for (std::size_t i = lines.size() > count ? lines.size() - count : 0; i < lines.size(); ++i)
    out += "  " + lines[i] + "\n";
  return out;
}

/// The output of the shell command `command` (stderr included), or none
/// when it could not run.
std::optional<std::string> capture(const std::string& command) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe)
    return std::nullopt;
  std::string out;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;)
    out.append(buf, n);
  return pclose(pipe) == 0 ? std::optional<std::string>(out) : std::nullopt;
}

/// UCX's own picks on the transports that do what `backend` does (its
/// row's), on the hardware `options` name, when ucx_info runs.
std::optional<UcxReport> ucx_report(const runtime::Backend& backend, const runtime::OptionValues& options) {
  if (!backend.ucx || !capture("command -v ucx_info"))
    return std::nullopt;
  const runtime::UcxTransports transports = backend.ucx(options);
  UcxReport r;
  r.transports = transports.name;
  const std::string query = "env UCX_PROTO_INFO=y " + transports.env + " timeout 20 ucx_info -e -u t";
  const std::optional<std::string> v1 = capture("env UCX_PROTO_ENABLE=n " + query);
  const std::optional<std::string> v2 = capture("env UCX_PROTO_ENABLE=y " + query);
  if (!v1 && !v2)
    return std::nullopt;
  r.handover = parse_ucx_proto_info(v1.value_or(""), v2.value_or(""));
  if (const std::optional<std::string> version = capture("ucx_info -v")) {
    const std::size_t at = version->find("Version ");
    if (at != std::string::npos)
      r.version = version->substr(at + 8, version->find('\n', at) - at - 8);
  }
  return r;
}

/// The 1-minute load average, or 0 when the system does not say.
double load_average() {
  double load[1] = {0};
  return getloadavg(load, 1) == 1 ? load[0] : 0;
}

struct Options {
  std::string scenario;
  std::string backend;
  const runtime::Backend* row = nullptr;  ///< the backend's row
  std::optional<std::string> platform;
  std::size_t runs = 3;
  std::size_t calibrations = 2;  ///< calibrations at most, while one drifts from its runs
  ValidateLimits limits;
  std::string dir;
  std::string rounds;
  std::string time_limit;
  /// The backend's own options (--tcp-if, ...), given or default, passed
  /// on to calibrate and to every run.
  runtime::OptionValues backend_options;
  bool json = false;
};

/// The backend's options as arguments: --NAME VALUE each.
std::vector<std::string> backend_args(const Options& o) {
  std::vector<std::string> out;
  for (const auto& [name, value] : o.backend_options)
    out.insert(out.end(), {"--" + name, value});
  return out;
};

/// Checks what can be checked before anything runs; a status when it must stop.
std::optional<int> check(const po::variables_map& vm, Options& o) {
  auto bad = [](const std::string& what) {
    std::cerr << "xover validate: " << what << "\n";
    return kExitBadInput;
  };
  if (!vm.count("scenario"))
    return bad("no scenario file given (see xover validate --help)");
  if (!vm.count("backend"))
    return bad("no --backend given: the hardware to validate against (see xover validate --help)");
  o.scenario = vm["scenario"].as<std::string>();
  o.backend = vm["backend"].as<std::string>();
  const runtime::Backend* backend = usable_backend("validate", o.backend);
  if (!backend)
    return kExitBadInput;
  o.row = backend;
  if (backend->simulated())
    return bad("backend " + o.backend + " is the simulator; validate compares it with hardware (shm, tcp)");
  Scenario scenario;
  try {
    scenario = load_scenario(o.scenario);
  } catch (const ScenarioError& e) {
    return bad(e.what());
  }
  if (!scenario.workload->run)
    return bad(o.scenario + ": the " + std::string(scenario.workload->name) + " does not run on hardware");
  o.runs = vm["runs"].as<std::size_t>();
  if (o.runs < 2)
    return bad("--runs must be at least 2: the hardware against itself is the measure of the machine's noise");
  const double median = vm["max-median-error"].as<double>();
  const double worst = vm["max-worst-error"].as<double>();
  const double factor = vm["max-threshold-factor"].as<double>();
  if (!(median >= 0) || !std::isfinite(median) || !(worst >= 0) || !std::isfinite(worst))
    return bad("--max-median-error and --max-worst-error are non-negative percentages (10 for 10 %)");
  if (!(factor >= 1) || !std::isfinite(factor))
    return bad("--max-threshold-factor must be a number of at least 1");
  o.limits = {median / 100, worst / 100, factor};
  if (vm.count("platform")) {
    o.platform = vm["platform"].as<std::string>();
    std::error_code ec;
    if (!std::filesystem::is_regular_file(*o.platform, ec))
      return bad("--platform " + *o.platform + ": no such file");
  }
  o.dir = vm.count("out-dir") ? vm["out-dir"].as<std::string>()
                              : "results/validate-" + scenario.name + "-" + o.backend;
  std::error_code ec;
  std::filesystem::create_directories(o.dir, ec);
  if (ec || !std::filesystem::is_directory(o.dir, ec))
    return bad("--out-dir " + o.dir + ": cannot create the directory");
  o.calibrations = vm["calibrations"].as<std::size_t>();
  if (o.calibrations < 1)
    return bad("--calibrations must be at least 1");
  o.rounds = std::to_string(vm["rounds"].as<std::size_t>());
  if (vm["rounds"].as<std::size_t>() < 1)
    return bad("--rounds must be at least 1");
  if (!(vm["time-limit"].as<double>() > 0) || !std::isfinite(vm["time-limit"].as<double>()))
    return bad("--time-limit must be a positive number of seconds");
  std::ostringstream time_limit;
  time_limit << vm["time-limit"].as<double>();
  o.time_limit = time_limit.str();
  o.backend_options = backend_option_values(*backend, vm);
  if (!read_backend_options("validate", *backend, vm, runtime::BackendUse::Run) ||
      (!o.platform && !read_backend_options("validate", *backend, vm, runtime::BackendUse::Calibrate)))
    return kExitBadInput;
  o.json = vm.count("json") > 0;
  return std::nullopt;
}

/// One step of the validation as its own process; false (said) when it failed.
bool step(const std::string& what, const std::vector<std::string>& args, const std::string& log, int& status) {
  std::cerr << "xover validate: " << what << " (log: " << log << ")" << std::endl;
  status = run_self(args, log);
  if (status == 0)
    return true;
  std::cerr << "xover validate: " << what << " failed (exit " << status << "):\n" << tail(log);
  status = status == kExitBadInput ? kExitBadInput : 1;
  return false;
}

/// Of the calibration's own sweeps (`sweeps`) against the hardware runs,
/// the curve that differs most in median, when more than the median limit.
std::optional<CalibrationDrift> worst_drift(const std::string& sweeps, const std::vector<std::string>& run_files,
                                            const ValidateLimits& limits) {
  std::vector<ResultsFile> runs;
  for (const std::string& run : run_files)
    runs.push_back(read_results_csv(run));
  std::optional<CalibrationDrift> drifted;
  for (const CalibrationDrift& d : calibration_drift(read_results_csv(sweeps), hardware_reference(runs)))
    if (d.median > limits.max_median_error && (!drifted || d.median > drifted->median))
      drifted = d;
  return drifted;
}

/// The verdict into `report`: the simulation (report.sim) against the
/// hardware runs (report.runs), the hand-overs of each, and where this run
/// calibrated, its sweeps (`sweeps`) against the runs.
void judge(ValidateReport& report, const ValidateLimits& limits, const std::string& sweeps) {
  std::vector<ResultsFile> runs;
  const ResultsFile sim = read_results_csv(report.sim);
  for (const std::string& run : report.runs)
    runs.push_back(read_results_csv(run));
  report.scenario = sim.scenario;
  report.validation = validate_results(sim, runs, limits);
  report.sim_handovers = selection_thresholds(sim);
  report.hw_handovers = selection_thresholds(hardware_reference(runs));
  if (report.calibrated)
    report.drift = calibration_drift(read_results_csv(sweeps), hardware_reference(runs));
}

int validate(const Options& o) {
  const std::string dir = o.dir + "/";
  int status = 0;
  ValidateReport report;
  report.backend = o.backend;
  report.platform = o.platform.value_or(dir + "platform.xml");
  report.calibrated = !o.platform;
  report.cores = runtime::node_cores();
  const std::string sweeps = dir + "calibrate-sweeps.csv";
  const std::vector<std::string> options = backend_args(o);
  for (;;) {
    ++report.calibrations;
    std::vector<std::string> calibrate{"calibrate", "--backend", o.backend, "--out", report.platform, "--sweeps",
                                       sweeps, "--time-limit", o.time_limit};
    calibrate.insert(calibrate.end(), options.begin(), options.end());
    if (report.calibrated && !step("calibrating " + o.backend, calibrate, dir + "calibrate.log", status))
      return status;
    report.load_before = load_average();
    report.runs.clear();
    for (std::size_t k = 1; k <= o.runs; ++k) {
      report.runs.push_back(dir + "hw-" + std::to_string(k) + ".csv");
      std::vector<std::string> run{"run", o.scenario, "--backend", o.backend, "--out", report.runs.back(), "--rounds",
                                   o.rounds};
      run.insert(run.end(), options.begin(), options.end());
      if (!step("hardware run " + std::to_string(k) + " of " + std::to_string(o.runs), run,
                dir + "hw-" + std::to_string(k) + ".log", status))
        return status;
    }
    report.load_after = load_average();
    if (!report.calibrated || report.calibrations >= o.calibrations)
      break;
    // The machine may have changed state between the calibration and the
    // runs: then the verdict would judge that change, not the model.
    std::optional<CalibrationDrift> drifted;
    try {
      drifted = worst_drift(sweeps, report.runs, o.limits);
    } catch (const std::invalid_argument& e) {
      std::cerr << "xover validate: " << e.what() << "\n";
      return 1;
    }
    if (!drifted)
      break;
    std::cerr << "xover validate: the calibration's own " << drifted->curve << " sweep differs from the hardware runs by "
              << std::lround(drifted->median * 100) << " % in median: the machine changed between them; calibrating "
              << "again (" << report.calibrations + 1 << " of " << o.calibrations << ")" << std::endl;
  }
  report.sim = dir + "sim.csv";
  if (!step("simulating on " + report.platform,
            {"run", o.scenario, "--platform", report.platform, "--backend", "sim", "--out", report.sim},
            dir + "sim.log", status))
    return status;

  try {
    judge(report, o.limits, dir + "calibrate-sweeps.csv");
  } catch (const std::invalid_argument& e) {
    std::cerr << "xover validate: " << e.what() << "\n";
    return 1;
  }
  report.ucx = ucx_report(*o.row, o.backend_options);
  std::vector<std::string> plot{"plot", report.sim};
  plot.insert(plot.end(), report.runs.begin(), report.runs.end());
  plot.insert(plot.end(), {"-o", dir + "validate.png"});
  if (step("drawing", plot, dir + "plot.log", status))
    report.plot = dir + "validate.png";
  if (o.json)
    print_validation_json(std::cout, report);
  else
    print_validation_text(std::cout, report);
  return report.validation.passed() ? 0 : 1;
}

}  // namespace

int validate_command(const std::vector<std::string>& args) {
  po::options_description opts(
      "usage: xover validate SCENARIO --backend shm|tcp [--platform P] [--runs K] [--json]\n"
      "                      [--max-median-error 10] [--max-worst-error 25] [--max-threshold-factor 1.25]\n\n"
      "Does the simulation predict this machine? Calibrates the backend (xover calibrate) unless\n"
      "--platform is given, runs SCENARIO on the hardware K times (K >= 2) and once in simulation on\n"
      "the platform, and prints per curve the median and worst |sim - hw| / hw against the hardware\n"
      "runs' per-point median, the same of each hardware run against the others (the machine's own\n"
      "reproducibility), the calibration's own sweeps against the runs (calibrating and running again,\n"
      "up to --calibrations times, while they differ past the median limit: the machine changed), the\n"
      "forced curves' crossovers in each and their factor, the auto hand-overs (auto judged by the\n"
      "protocol the simulation chose), UCX's own hand-over on the same transports where ucx_info is\n"
      "installed, and a verdict line.\n"
      "Draws the simulation over the hardware runs with their confidence bands. Every file (platform,\n"
      "CSVs, logs, plot) goes to --out-dir. Exits 0 when the verdict holds, 1 when it fails or a run\n"
      "fails, 2 on bad input.\n\noptions");
  opts.add_options()("help,h", "this help")("scenario", po::value<std::string>(), "scenario file")(
      "backend,b", po::value<std::string>(), "the hardware backend: shm or tcp")(
      "platform,p", po::value<std::string>(), "simulate on this platform instead of calibrating one")(
      "runs", po::value<std::size_t>()->default_value(3), "hardware runs, at least 2")(
      "json", "print JSON")(
      "max-median-error", po::value<double>()->default_value(10), "a curve's median |sim - hw| / hw limit, in %")(
      "max-worst-error", po::value<double>()->default_value(25), "a curve's worst |sim - hw| / hw limit, in %")(
      "max-threshold-factor", po::value<double>()->default_value(1.25),
      "a crossover's limit, max(sim/hw, hw/sim)")(
      "out-dir", po::value<std::string>(), "where the files go (default results/validate-SCENARIO-BACKEND)")(
      "rounds", po::value<std::size_t>()->default_value(kHardwareRounds), "shuffled rounds of each hardware run")(
      "time-limit", po::value<double>()->default_value(120), "seconds the calibration may take, at most")(
      "calibrations", po::value<std::size_t>()->default_value(2),
      "calibrate and run the hardware again, up to this many times in all, while the calibration's own sweeps "
      "differ from the hardware runs by more than the median limit (the machine changed between them)");
  add_backend_options(opts);
  po::positional_options_description positional;
  positional.add("scenario", 1);
  po::variables_map vm;
  if (const auto status = parse_options("validate", args, opts, positional, vm))
    return *status;
  Options o;
  if (const std::optional<int> status = check(vm, o))
    return *status;
  return validate(o);
}

}  // namespace xover::tools
