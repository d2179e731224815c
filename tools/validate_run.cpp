// The steps of `xover validate` (validate_run.hpp). Each step is its own
// `xover` process whose output goes to a log beside its file; the hardware
// runs go in rounds, each round running every case once, so that every
// case sees the machine's states alike and the ping-pong case (the fit
// set's own workload) says, round by round, whether the machine was as it
// was calibrated.
#include "tools/validate_run.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "base/clock.hpp"
#include "base/spawn.hpp"
#include "formats/calibration_record.hpp"
#include "formats/scenario_xml.hpp"
#include "protocols/workload/workload.hpp"
#include "runtime/common.hpp"
#include "tools/commands.hpp"
#include "tools/validate_report.hpp"

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

/// UCX's own picks on the transports that do what `backend` does (its
/// row's), on the hardware `options` name, when ucx_info runs.
std::optional<UcxReport> ucx_report(const runtime::Backend& backend, const runtime::OptionValues& options) {
  if (!backend.ucx || !shell_output("command -v ucx_info"))
    return std::nullopt;
  const runtime::UcxTransports transports = backend.ucx(options);
  UcxReport r;
  r.transports = transports.name;
  const std::string query = "env UCX_PROTO_INFO=y " + transports.env + " timeout 20 ucx_info -e -u t";
  const std::optional<std::string> v1 = shell_output("env UCX_PROTO_ENABLE=n " + query);
  const std::optional<std::string> v2 = shell_output("env UCX_PROTO_ENABLE=y " + query);
  if (!v1 && !v2)
    return std::nullopt;
  r.handover = parse_ucx_proto_info(v1.value_or(""), v2.value_or(""));
  if (const std::optional<std::string> version = shell_output("ucx_info -v")) {
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

/// The progress line's counts: steps done of all, since when.
struct Progress {
  double start = clock_now();
  std::size_t done = 0, total = 0;
};

/// One step of the validation as its own process, said on the progress
/// line; false (said) when it failed.
bool step(Progress& p, const std::string& what, const std::vector<std::string>& args, const std::string& log,
          int& status) {
  ++p.done;
  char head[64];
  std::snprintf(head, sizeof head, "[%zu/%zu, %.0f s] ", p.done, p.total, clock_now() - p.start);
  std::cerr << "xover validate: " << head << what << " (log: " << log << ")" << std::endl;
  status = run_self(args, log);
  if (status == 0)
    return true;
  std::cerr << "xover validate: " << what << " failed (exit " << status << "):\n" << tail(log);
  status = status == kExitBadInput ? kExitBadInput : 1;
  return false;
}

/// The case's folder: the output directory itself for one scenario, a
/// folder of its own in a suite.
std::string case_dir(const ValidateOptions& o, const SuiteCase& c) {
  const std::string dir = o.suite ? o.dir + "/" + c.name + "/" : o.dir + "/";
  std::filesystem::create_directories(dir);
  return dir;
}

/// A hardware run of case `c` into `out`: validate's backend options with
/// the case's own in their place where it names one.
std::vector<std::string> hardware_args(const ValidateOptions& o, const SuiteCase& c, const std::string& platform,
                                       const std::string& out) {
  runtime::OptionValues options = o.backend_options;
  for (std::size_t i = 0; i + 1 < c.options.size(); i += 2)
    options[c.options[i].substr(2)] = c.options[i + 1];
  std::vector<std::string> args{"run", c.scenario, "--backend", o.backend, "--out", out,
                                "--rounds", o.rounds, "--platform", platform};
  for (const auto& [name, value] : options)
    args.insert(args.end(), {"--" + name, value});
  return args;
}

/// Whether case `i` runs the fit set's own workload on the calibration's
/// hardware: a ping-pong with no backend options of its own.
bool state_probe(const ValidateOptions& o, std::size_t i) {
  return o.scenarios[i].workload->name == "pingpong" && o.cases[i].options.empty();
}

/// Per round, whether it found the machine as it was calibrated: every
/// ping-pong case's run of that round within the median limit of the
/// calibration's own sweeps on every curve. Empty when no case tells.
std::vector<bool> rounds_as_calibrated(const ValidateOptions& o, const std::string& sweeps,
                                       const std::vector<std::vector<std::string>>& runs) {
  std::vector<bool> out;
  const ResultsFile measured = read_results_csv(sweeps);
  for (std::size_t i = 0; i < o.cases.size(); ++i) {
    if (!state_probe(o, i))
      continue;
    out.resize(runs[i].size(), true);
    for (std::size_t k = 0; k < runs[i].size(); ++k)
      for (const CalibrationDrift& d : calibration_drift(measured, read_results_csv(runs[i][k])))
        if (d.median > o.limits.max_median_error)
          out[k] = false;
  }
  return out;
}

/// The curves of case `i` that the platform's fit set holds; none for a
/// case with backend options of its own (hardware the calibration did not
/// measure).
std::vector<std::string> in_sample_curves(const ValidateOptions& o, std::size_t i, const CalibrationRecord& record) {
  std::vector<std::string> out;
  if (!o.cases[i].options.empty())
    return out;
  for (const std::string& curve : o.scenarios[i].curves)
    if (record.in_sample(o.scenarios[i].workload->name, curve))
      out.push_back(curve);
  return out;
}

/// The calibration (unless a platform was given) and the hardware runs in
/// rounds, again while no round finds the machine as calibrated; the run
/// files per case into `runs`, per round whether it was as calibrated into
/// `as_calibrated`. False (status said) when a step failed.
bool measure(const ValidateOptions& o, Progress& progress, SuiteReport& report, std::vector<ValidateReport>& cases,
             std::vector<bool>& as_calibrated, int& status) {
  const std::string sweeps = o.dir + "/calibrate-sweeps.csv";
  for (;;) {
    ++report.calibrations;
    std::vector<std::string> calibrate{"calibrate", "--backend", o.backend,     "--out",
                                       report.platform, "--sweeps", sweeps, "--time-limit", o.time_limit};
    for (const auto& [name, value] : o.backend_options)
      calibrate.insert(calibrate.end(), {"--" + name, value});
    if (report.calibrated && !step(progress, "calibrating " + o.backend, calibrate, o.dir + "/calibrate.log", status))
      return false;
    const double load_before = load_average();
    std::vector<std::vector<std::string>> runs(o.cases.size());
    for (std::size_t k = 1; k <= o.runs; ++k)
      for (std::size_t i = 0; i < o.cases.size(); ++i) {
        const std::string dir = case_dir(o, o.cases[i]);
        runs[i].push_back(dir + "hw-" + std::to_string(k) + ".csv");
        if (!step(progress, "round " + std::to_string(k) + " of " + std::to_string(o.runs) + ": " + o.cases[i].name,
                  hardware_args(o, o.cases[i], report.platform, runs[i].back()),
                  dir + "hw-" + std::to_string(k) + ".log", status))
          return false;
      }
    for (std::size_t i = 0; i < o.cases.size(); ++i) {
      cases[i].runs = runs[i];
      cases[i].load_before = load_before;
      cases[i].load_after = load_average();
    }
    as_calibrated = report.calibrated ? rounds_as_calibrated(o, sweeps, runs) : std::vector<bool>{};
    const bool none = !as_calibrated.empty() &&
                      std::none_of(as_calibrated.begin(), as_calibrated.end(), [](bool b) { return b; });
    if (!none || report.calibrations >= o.calibrations)
      return true;
    std::cerr << "xover validate: no round's ping-pong came within " << format_percent(o.limits.max_median_error)
              << " of the calibration's own: the machine changed between them; calibrating again ("
              << report.calibrations + 1 << " of " << o.calibrations << ")" << std::endl;
    progress.total += 1 + o.runs * o.cases.size();
  }
}

/// Case `i` simulated, judged and drawn into `r`. False when a step failed.
bool judge_case(const ValidateOptions& o, std::size_t i, const CalibrationRecord& record,
                const std::vector<bool>& as_calibrated, Progress& progress, ValidateReport& r, int& status) {
  const SuiteCase& c = o.cases[i];
  const std::string dir = case_dir(o, c);
  r.sim = dir + "sim.csv";
  if (!step(progress, "simulating " + c.name + " on " + r.platform,
            {"run", c.scenario, "--platform", r.platform, "--backend", "sim", "--out", r.sim}, dir + "sim.log",
            status))
    return false;
  std::vector<ResultsFile> runs;
  const ResultsFile sim = read_results_csv(r.sim);
  for (const std::string& run : r.runs)
    runs.push_back(read_results_csv(run));
  r.scenario = sim.scenario;
  r.validation = validate_results(sim, runs, o.limits, {in_sample_curves(o, i, record), as_calibrated});
  r.sim_handovers = selection_thresholds(sim);
  r.hw_handovers = selection_thresholds(hardware_reference(runs));
  if (r.calibrated && state_probe(o, i))
    r.drift = calibration_drift(read_results_csv(o.dir + "/calibrate-sweeps.csv"), hardware_reference(runs));
  std::vector<std::string> plot{"plot", r.sim};
  plot.insert(plot.end(), r.runs.begin(), r.runs.end());
  plot.insert(plot.end(), {"-o", dir + "validate.png"});
  int drawn = 0;
  if (step(progress, "drawing " + c.name, plot, dir + "plot.log", drawn))
    r.plot = dir + "validate.png";
  return true;
}

int exit_status(Verdict v) {
  return v == Verdict::Pass ? 0 : v == Verdict::Fail ? 1 : kExitInconclusive;
}

}  // namespace

int run_validation(const ValidateOptions& o) {
  Progress progress;
  progress.total = (o.platform ? 0 : 1) + (o.runs + 2) * o.cases.size();
  int status = 0;
  SuiteReport report;
  report.suite = o.suite.value_or(o.cases.front().scenario);
  report.backend = o.backend;
  report.platform = o.platform.value_or(o.dir + "/platform.xml");
  report.calibrated = !o.platform;
  std::vector<ValidateReport> cases(o.cases.size());
  std::vector<bool> as_calibrated;
  try {
    if (!measure(o, progress, report, cases, as_calibrated, status))
      return status;
  } catch (const std::invalid_argument& e) {
    std::cerr << "xover validate: " << e.what() << "\n";
    return 1;
  }
  CalibrationRecord record;
  try {
    record = read_calibration_record(report.platform);
  } catch (const std::invalid_argument& e) {
    std::cerr << "xover validate: " << e.what() << "\n";
    return report.calibrated ? 1 : kExitBadInput;
  }
  report.recorded = record.recorded;
  report.fit_set = record.fit_set;
  const std::optional<UcxReport> ucx = ucx_report(*o.row, o.backend_options);
  for (std::size_t i = 0; i < o.cases.size(); ++i) {
    ValidateReport& r = cases[i];
    r.backend = o.backend;
    r.platform = report.platform;
    r.calibrated = report.calibrated;
    r.calibrations = report.calibrations;
    r.cores = runtime::node_cores();
    r.ucx = ucx;
    try {
      if (!judge_case(o, i, record, as_calibrated, progress, r, status))
        return status;
    } catch (const std::invalid_argument& e) {
      std::cerr << "xover validate: " << e.what() << "\n";
      return 1;
    }
    report.names.push_back(o.cases[i].name);
  }
  report.cases = std::move(cases);
  report.seconds = clock_now() - progress.start;
  if (o.suite) {
    if (o.json)
      print_suite_json(std::cout, report);
    else
      print_suite_text(std::cout, report);
    return exit_status(report.verdict());
  }
  if (o.json)
    print_validation_json(std::cout, report.cases.front());
  else
    print_validation_text(std::cout, report.cases.front());
  return exit_status(report.cases.front().validation.verdict());
}

}  // namespace xover::tools
