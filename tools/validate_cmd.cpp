// xover validate: does a simulation predict this machine's hardware? The
// options and what can be checked before anything runs: the scenario given,
// or the validation suite's cases (validate_suite.hpp); the steps are in
// validate_run.cpp.
#include <boost/program_options.hpp>
#include <cmath>
#include <filesystem>
#include <iostream>

#include "formats/scenario_xml.hpp"
#include "protocols/workload/workload.hpp"
#include "runtime/backends.hpp"
#include "tools/commands.hpp"
#include "tools/data_dir.hpp"
#include "tools/validate_run.hpp"

namespace po = boost::program_options;

namespace xover::tools {
namespace {

/// The shipped validation suite.
std::string default_suite() { return data_dir() + "/scenarios/validate/suite.txt"; }

/// The cases to validate: the scenario given, or the suite's for the
/// backend, each read; a status when one is bad (said).
std::optional<int> read_cases(const po::variables_map& vm, ValidateOptions& o) {
  auto bad = [](const std::string& what) {
    std::cerr << "xover validate: " << what << "\n";
    return kExitBadInput;
  };
  try {
    if (vm.count("scenario")) {
      const std::string file = vm["scenario"].as<std::string>();
      o.cases = {SuiteCase{file, std::filesystem::path(file).stem().string(), std::nullopt, {}}};
    } else {
      o.suite = vm.count("suite") ? vm["suite"].as<std::string>() : default_suite();
      o.cases = cases_for(read_suite(*o.suite), o.backend);
      if (o.cases.empty())
        return bad(*o.suite + ": no case runs on " + o.backend);
    }
  } catch (const std::invalid_argument& e) {
    return bad(e.what());
  }
  for (const SuiteCase& c : o.cases) {
    for (std::size_t i = 0; i < c.options.size(); i += 2)
      if (!o.backend_options.contains(c.options[i].substr(2)))
        return bad(*o.suite + ": case " + c.name + ": " + c.options[i] + " is not an option of backend " + o.backend);
    try {
      o.scenarios.push_back(load_scenario(c.scenario));
    } catch (const ScenarioError& e) {
      return bad(e.what());
    }
    if (!o.scenarios.back().workload->run)
      return bad(c.scenario + ": the " + std::string(o.scenarios.back().workload->name) + " does not run on hardware");
  }
  return std::nullopt;
}

/// Checks what can be checked before anything runs; a status when it must stop.
std::optional<int> check(const po::variables_map& vm, ValidateOptions& o) {
  auto bad = [](const std::string& what) {
    std::cerr << "xover validate: " << what << "\n";
    return kExitBadInput;
  };
  if (!vm.count("backend"))
    return bad("no --backend given: the hardware to validate against (see xover validate --help)");
  if (vm.count("scenario") && vm.count("suite"))
    return bad("give a scenario or --suite, not both");
  o.backend = vm["backend"].as<std::string>();
  const runtime::Backend* backend = usable_backend("validate", o.backend);
  if (!backend)
    return kExitBadInput;
  o.row = backend;
  if (backend->simulated())
    return bad("backend " + o.backend + " is the simulator; validate compares it with hardware (shm, tcp)");
  o.backend_options = backend_option_values(*backend, vm);
  if (const std::optional<int> status = read_cases(vm, o))
    return status;
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
  const std::string name = o.suite ? "suite" : o.scenarios.front().name;
  o.dir = vm.count("out-dir") ? vm["out-dir"].as<std::string>() : "results/validate-" + name + "-" + o.backend;
  std::error_code ec;
  std::filesystem::create_directories(o.dir, ec);
  if (ec || !std::filesystem::is_directory(o.dir, ec))
    return bad("--out-dir " + o.dir + ": cannot create the directory");
  if (vm["rounds"].as<std::size_t>() < 1)
    return bad("--rounds must be at least 1");
  o.rounds = std::to_string(vm["rounds"].as<std::size_t>());
  o.full_calibration = vm.count("full-calibration") > 0;
  if (!read_backend_options("validate", *backend, vm, runtime::BackendUse::Run) ||
      (!o.platform && !read_backend_options("validate", *backend, vm, runtime::BackendUse::Calibrate)))
    return kExitBadInput;
  o.json = vm.count("json") > 0;
  return std::nullopt;
}

}  // namespace

int validate_command(const std::vector<std::string>& args) {
  po::options_description opts(
      "usage: xover validate [SCENARIO | --suite FILE] --backend shm|tcp [--platform P] [--runs K] [--json]\n"
      "                      [--max-median-error 10] [--max-worst-error 25] [--max-threshold-factor 1.25]\n\n"
      "Does the simulation predict this machine? Runs the validation suite (scenarios/validate/suite.txt,\n"
      "or --suite), or SCENARIO alone, on the hardware in K rounds (K >= 2), each round a calibration\n"
      "of the backend (xover calibrate, one round; none when --platform is given) and then every case\n"
      "once; groups the rounds into the machine's states by their calibrations, and simulates each\n"
      "state's cases on a platform calibrated in that state, against the state's rounds whose ping-pong\n"
      "agreed with their own calibration (two at least). Every curve is in-sample (the platform's fit\n"
      "set, the workloads and curves its figures were fitted to, holds it: shown, never judged) or\n"
      "held-out (a prediction). Prints per curve the median and worst |sim - hw| / hw against the\n"
      "hardware runs' per-point median, the same of each hardware run against the others, the rounds'\n"
      "drift and machine states, the crossovers and\n"
      "their factor, the auto hand-overs, UCX's own hand-over where ucx_info is installed, and a\n"
      "verdict: PASS, FAIL (a held-out curve missed: the model is wrong) or INCONCLUSIVE (the runs\n"
      "cannot say, and why). Every file goes to --out-dir. Exits 0 on PASS, 1 on FAIL or when a step\n"
      "fails, 3 on INCONCLUSIVE, 2 on bad input.\n\noptions");
  opts.add_options()("help,h", "this help")(
      "scenario", po::value<std::string>(), "scenario file (default: the validation suite)")(
      "suite", po::value<std::string>(), "a validation suite file (default scenarios/validate/suite.txt)")(
      "backend,b", po::value<std::string>(), "the hardware backend: shm or tcp")(
      "platform,p", po::value<std::string>(), "simulate on this platform instead of calibrating one")(
      "runs", po::value<std::size_t>()->default_value(3), "rounds of a calibration and every case, at least 2")(
      "json", "print JSON")(
      "max-median-error", po::value<double>()->default_value(10), "a curve's median |sim - hw| / hw limit, in %")(
      "max-worst-error", po::value<double>()->default_value(25), "a curve's worst |sim - hw| / hw limit, in %")(
      "max-threshold-factor", po::value<double>()->default_value(1.25),
      "a crossover's limit, max(sim/hw, hw/sim)")(
      "out-dir", po::value<std::string>(),
      "where the files go (default results/validate-SCENARIO-BACKEND, or results/validate-suite-BACKEND)")(
      "rounds", po::value<std::size_t>()->default_value(1), "shuffled rounds within each hardware run")(
      "full-calibration", "each round's calibration a full round of xover calibrate, not a quick one");
  add_backend_options(opts);
  po::positional_options_description positional;
  positional.add("scenario", 1);
  po::variables_map vm;
  if (const auto status = parse_options("validate", args, opts, positional, vm))
    return *status;
  ValidateOptions o;
  if (const std::optional<int> status = check(vm, o))
    return *status;
  return run_validation(o);
}

}  // namespace xover::tools
