// The steps of `xover validate` (validate_run.hpp). Each step is its own
// `xover` process whose output goes to a log beside its file. The
// measuring goes in rounds (validate_plan.hpp): each round calibrates, then
// runs every case once, so that calibration and validation alternate and
// every case sees the machine's states alike; the ping-pong case (the fit
// set's own workload) says, round by round, whether the machine was as its
// calibration found it. The simulations and plots come after, while
// nothing is measured.
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
#include "tools/validate_plan.hpp"
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

/// The progress line's counts: steps done of all, since when, of what budget.
struct Progress {
  double start = clock_now();
  std::size_t done = 0, total = 0;
  double budget = 0;  ///< seconds; 0: none
};

/// One step of the validation as its own process, said on the progress
/// line; false (said) when it failed.
bool step(Progress& p, const std::string& what, const std::vector<std::string>& args, const std::string& log,
          int& status) {
  ++p.done;
  char head[96];
  if (p.budget > 0)
    std::snprintf(head, sizeof head, "[%zu/%zu, %.0f s of %.0f s] ", p.done, p.total, clock_now() - p.start,
                  p.budget);
  else
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

/// Round `r`'s platform (from 0): its calibration's, or the one given.
std::string platform_file(const ValidateOptions& o, std::size_t r) {
  return o.platform ? *o.platform : o.dir + "/platform-" + std::to_string(r + 1) + ".xml";
}

/// Round `r`'s calibration's sweeps.
std::string sweeps_file(const ValidateOptions& o, std::size_t r) {
  return o.dir + "/calibrate-sweeps-" + std::to_string(r + 1) + ".csv";
}

/// Case `c`'s hardware run of round `r`.
std::string run_file(const ValidateOptions& o, const SuiteCase& c, std::size_t r) {
  return case_dir(o, c) + "hw-" + std::to_string(r + 1) + ".csv";
}

/// Round `r`'s calibration: one round of `xover calibrate` (a quick one
/// unless a full one was asked for), its platform and sweeps.
std::vector<std::string> calibrate_args(const ValidateOptions& o, std::size_t r) {
  std::vector<std::string> args{"calibrate", "--backend", o.backend, "--out", platform_file(o, r),
                                "--sweeps",  sweeps_file(o, r), "--rounds", "1"};
  if (!o.full_calibration)
    args.push_back("--quick");
  for (const auto& [name, value] : o.backend_options)
    args.insert(args.end(), {"--" + name, value});
  return args;
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

/// The measuring steps in time order (interleaved_steps()): each round's
/// calibration, then its run of every case. False (status said) when a
/// step failed.
bool measure(const ValidateOptions& o, Progress& progress, int& status) {
  for (const MeasureStep& s : interleaved_steps(o.runs, o.cases.size(), !o.platform)) {
    const std::string round = "round " + std::to_string(s.round + 1) + " of " + std::to_string(o.runs) + ": ";
    if (s.calibrate) {
      if (!step(progress, round + "calibrating " + o.backend, calibrate_args(o, s.round),
                o.dir + "/calibrate-" + std::to_string(s.round + 1) + ".log", status))
        return false;
      continue;
    }
    const SuiteCase& c = o.cases[s.case_index];
    const std::string out = run_file(o, c, s.round);
    if (!step(progress, round + c.name, hardware_args(o, c, platform_file(o, s.round), out),
              out.substr(0, out.size() - 4) + ".log", status))
      return false;
  }
  return true;
}

/// The rounds' states: from their calibrations and ping-pong runs
/// (judge_rounds()), or, on a platform given, one state of every round
/// whose verdict validate_results() takes across the runs' own states.
RoundsVerdict rounds_verdict(const ValidateOptions& o) {
  if (o.platform) {
    RoundsVerdict v;
    v.drift.assign(o.runs, -1);
    RoundState all;
    for (std::size_t r = 0; r < o.runs; ++r)
      all.rounds.push_back(r);
    all.coherent = all.rounds;
    all.judged = true;
    v.states.push_back(all);
    return v;
  }
  std::vector<ResultsFile> sweeps, probes;
  for (std::size_t r = 0; r < o.runs; ++r)
    sweeps.push_back(read_results_csv(sweeps_file(o, r)));
  for (std::size_t i = 0; i < o.cases.size() && probes.empty(); ++i)
    if (state_probe(o, i))
      for (std::size_t r = 0; r < o.runs; ++r)
        probes.push_back(read_results_csv(run_file(o, o.cases[i], r)));
  return judge_rounds(sweeps, probes, o.limits);
}

/// What one case is judged on: the rounds, the round whose platform it is
/// simulated on, and the reasons it cannot be judged (no state could).
struct Judging {
  std::vector<std::size_t> rounds;
  std::size_t platform_round = 0;
  std::vector<std::string> inconclusive;
};

/// Case `i` simulated on `j`'s platform, judged against its runs of `j`'s
/// rounds and drawn into `r`. False when a step failed.
bool judge_case(const ValidateOptions& o, std::size_t i, const CalibrationRecord& record, const Judging& j,
                Progress& progress, ValidateReport& r, int& status) {
  const SuiteCase& c = o.cases[i];
  const std::string dir = case_dir(o, c);
  const std::string tag = o.platform ? "" : "-" + std::to_string(j.platform_round + 1);
  r.platform = platform_file(o, j.platform_round);
  r.sim = dir + "sim" + tag + ".csv";
  if (!step(progress, "simulating " + c.name + " on " + r.platform,
            {"run", c.scenario, "--platform", r.platform, "--backend", "sim", "--out", r.sim},
            dir + "sim" + tag + ".log", status))
    return false;
  std::vector<ResultsFile> runs;
  for (std::size_t k : j.rounds) {
    r.runs.push_back(run_file(o, c, k));
    runs.push_back(read_results_csv(r.runs.back()));
  }
  const ResultsFile sim = read_results_csv(r.sim);
  r.scenario = sim.scenario;
  // Every judged run was in its calibration's state; across several states
  // of the case's own runs, that is more than one, and the verdict says so.
  const std::vector<bool> as_calibrated(o.platform ? 0 : runs.size(), true);
  r.validation = validate_results(sim, runs, o.limits, {in_sample_curves(o, i, record), as_calibrated});
  r.validation.inconclusive.insert(r.validation.inconclusive.end(), j.inconclusive.begin(), j.inconclusive.end());
  r.sim_handovers = selection_thresholds(sim);
  r.hw_handovers = selection_thresholds(hardware_reference(runs));
  if (r.calibrated && state_probe(o, i))
    r.drift = calibration_drift(read_results_csv(sweeps_file(o, j.platform_round)), hardware_reference(runs));
  std::vector<std::string> plot{"plot", r.sim};
  plot.insert(plot.end(), r.runs.begin(), r.runs.end());
  plot.insert(plot.end(), {"-o", dir + "validate" + tag + ".png"});
  int drawn = 0;
  if (step(progress, "drawing " + c.name, plot, dir + "plot" + tag + ".log", drawn))
    r.plot = dir + "validate" + tag + ".png";
  return true;
}

/// What each judged state's cases are judged on; where no state can be
/// judged, every round on the first round's platform, INCONCLUSIVE with
/// the states' reasons (the errors are still shown).
std::vector<Judging> judgings(const RoundsVerdict& rounds) {
  std::vector<Judging> out;
  for (std::size_t s : rounds.judged())
    out.push_back({rounds.states[s].coherent, rounds.states[s].coherent.front(), {}});
  if (!out.empty())
    return out;
  Judging all;
  for (std::size_t r = 0; r < rounds.drift.size(); ++r)
    all.rounds.push_back(r);
  all.inconclusive.push_back("no machine state of the rounds had two rounds whose ping-pong agreed with their own "
                             "calibration (the rounds' states say why): the errors would measure the machine's "
                             "changes");
  out.push_back(all);
  return out;
}

int exit_status(Verdict v) {
  return v == Verdict::Pass ? 0 : v == Verdict::Fail ? 1 : kExitInconclusive;
}

/// The report's fields every case shares.
ValidateReport case_report(const ValidateOptions& o, const SuiteReport& report, const std::optional<UcxReport>& ucx,
                           double load_before, double load_after) {
  ValidateReport r;
  r.backend = o.backend;
  r.calibrated = report.calibrated;
  r.calibrations = report.calibrations;
  r.cores = runtime::node_cores();
  r.ucx = ucx;
  r.load_before = load_before;
  r.load_after = load_after;
  return r;
}

/// Every case judged on each of `js`, into `report`. False when a step failed.
bool judge_all(const ValidateOptions& o, const std::vector<Judging>& js, Progress& progress, SuiteReport& report,
               double load_before, double load_after, int& status) {
  CalibrationRecord record;
  try {
    record = read_calibration_record(platform_file(o, js.front().platform_round));
  } catch (const std::invalid_argument& e) {
    std::cerr << "xover validate: " << e.what() << "\n";
    status = o.platform ? kExitBadInput : 1;
    return false;
  }
  report.recorded = record.recorded;
  report.fit_set = record.fit_set;
  const std::optional<UcxReport> ucx = ucx_report(*o.row, o.backend_options);
  progress.total += 2 * o.cases.size() * js.size();
  for (std::size_t s = 0; s < js.size(); ++s) {
    const std::size_t first = report.cases.size();
    std::optional<std::string> unmet;
    for (std::size_t i = 0; i < o.cases.size(); ++i) {
      ValidateReport r = case_report(o, report, ucx, load_before, load_after);
      if (!judge_case(o, i, record, js[s], progress, r, status))
        return false;
      if (state_probe(o, i) && !unmet)
        unmet = fit_unmet(r.validation, o.limits);
      report.names.push_back(o.cases[i].name + (js.size() > 1 ? " (state " + std::to_string(s + 1) + ")" : ""));
      report.cases.push_back(std::move(r));
    }
    // The state's calibration failed to fit its own workload: none of its
    // cases' misses is the model's.
    for (std::size_t c = first; unmet && c < report.cases.size(); ++c)
      report.cases[c].validation.inconclusive.push_back(*unmet);
  }
  return true;
}

}  // namespace

int run_validation(const ValidateOptions& o) {
  Progress progress;
  progress.total = interleaved_steps(o.runs, o.cases.size(), !o.platform).size();
  progress.budget = o.suite ? validate_budget(o.backend) : 0;
  int status = 0;
  SuiteReport report;
  report.suite = o.suite.value_or(o.cases.front().scenario);
  report.backend = o.backend;
  report.platform = platform_file(o, 0);
  report.calibrated = !o.platform;
  report.calibrations = o.platform ? 0 : o.runs;
  report.budget = progress.budget;
  const double load_before = load_average();
  try {
    if (!measure(o, progress, status))
      return status;
    report.measured_seconds = clock_now() - progress.start;
    const double load_after = load_average();
    const RoundsVerdict rounds = rounds_verdict(o);
    report.drift = rounds.drift;
    report.states = rounds.states;
    if (!judge_all(o, judgings(rounds), progress, report, load_before, load_after, status))
      return status;
  } catch (const std::invalid_argument& e) {
    std::cerr << "xover validate: " << e.what() << "\n";
    return 1;
  }
  report.seconds = clock_now() - progress.start;
  if (o.suite || report.cases.size() > 1) {
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
