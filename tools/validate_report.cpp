#include "tools/validate_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "tools/json.hpp"

namespace xover::tools {
namespace {

std::string approx(double n) {
  char buf[32];
  if (n < 1024)
    std::snprintf(buf, sizeof buf, "%.0f B", n);
  else if (n < 1024.0 * 1024)
    std::snprintf(buf, sizeof buf, "%.1f KiB", n / 1024);
  else
    std::snprintf(buf, sizeof buf, "%.2f MiB", n / (1024.0 * 1024));
  return buf;
}

/// `text` padded to `width`; one as wide or wider keeps a space after it,
/// so that two columns never run together.
std::string cell(const std::string& text, int width) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%-*s", width, text.c_str());
  const std::string out = buf;
  return out.size() > text.size() ? out : out + " ";
}

std::string handovers(const std::vector<SelectionThreshold>& list) {
  if (list.empty())
    return "none";
  std::string out;
  for (const SelectionThreshold& t : list)
    out += (out.empty() ? "" : "; ") + t.from + " -> " + t.to + " between " + format_size(t.last_from) + " and " +
           format_size(t.first_to);
  return out;
}

void json_handovers(JsonWriter& j, const std::vector<SelectionThreshold>& list) {
  j.begin_array();
  for (const SelectionThreshold& t : list) {
    j.begin_object();
    j.key("from").value(t.from);
    j.key("to").value(t.to);
    j.key("between").begin_array().value(t.last_from).value(t.first_to).end_array();
    j.end_object();
  }
  j.end_array();
}

/// The text report's heading: what ran against what, the limits, the load.
void text_heading(std::ostream& os, const ValidateReport& r) {
  const Validation& v = r.validation;
  os << "# " << r.scenario << " on " << r.backend << ": simulation on " << r.platform
     << (!r.calibrated ? ""
                       : " (calibrated by this run, one of its " + std::to_string(r.calibrations) +
                             " calibrations interleaved with the hardware rounds)")
     << " against " << r.runs.size()
     << " hardware runs (per point, the median of their medians)\n";
  char limits[160];
  std::snprintf(limits, sizeof limits, "# limits: median %s, worst %s, crossover factor %.2f\n",
                format_percent(v.limits.max_median_error).c_str(), format_percent(v.limits.max_worst_error).c_str(),
                v.limits.max_threshold_factor);
  os << limits;
  char load[256];
  std::snprintf(load, sizeof load,
                "# machine load (1-minute average): %.2f before the hardware runs, %.2f after, on %u cores%s\n\n",
                r.load_before, r.load_after, r.cores,
                std::max(r.load_before, r.load_after) > r.cores
                    ? ": busy, the runs shared the cores with other work and their times include waiting for one"
                    : "");
  os << load;
}

/// The table of curves, one line each.
void text_curves(std::ostream& os, const Validation& v) {
  os << cell("curve", 20) << cell("sizes", 7) << cell("sim vs hw: median", 19) << cell("worst", 20)
     << cell("hw vs hw: median", 18) << cell("worst", 10) << cell("steady: sizes", 15) << cell("median", 9)
     << cell("worst", 20) << cell("fit", 10) << "verdict\n";
  for (const CurveValidation& c : v.curves) {
    const std::string worst = format_percent(c.worst_rel, {.sign = true}) + " at " + format_size(c.worst_size);
    const std::string steady =
        format_percent(c.steady_worst, {.sign = true}) + " at " + format_size(c.steady_worst_size);
    os << cell(c.protocol, 20) << cell(std::to_string(c.matched), 7) << cell(format_percent(c.median), 19)
       << cell(worst, 20) << cell(format_percent(c.hw_median), 18) << cell(format_percent(c.hw_worst), 10)
       << cell(std::to_string(c.steady), 15) << cell(c.steady ? format_percent(c.steady_median) : "-", 9)
       << cell(c.steady ? steady : "-", 20) << cell(c.in_sample ? "in-sample" : "held-out", 10)
       << (c.in_sample ? "not judged" : c.within ? "ok" : "MISS") << "\n";
  }
  os << "(steady: the sizes where the hardware runs' medians agree within the worst-error limit; in-sample: the "
        "platform's fit set holds this workload's curve, so its error is the fit's, not a prediction's, and it is "
        "not judged)\n";
  if (v.states.size() > 1) {
    os << "machine states, slowest first:";
    for (const std::vector<std::size_t>& state : v.states) {
      os << " [runs";
      for (std::size_t i : state)
        os << " " << i + 1;
      os << "]";
    }
    os << "; judged against runs";
    if (v.judged_runs.empty())
      os << " none";
    for (std::size_t i : v.judged_runs)
      os << " " << i + 1;
    os << "\n";
  }
}

/// The calibration's own sweeps against the runs, where there are any.
void text_drift(std::ostream& os, const ValidateReport& r) {
  if (!r.drift.empty()) {
    os << "\nthe calibration's own sweeps against these runs (the machine then against now: the simulation "
          "cannot come closer than this)\n";
    for (const CalibrationDrift& d : r.drift) {
      char line[160];
      std::snprintf(line, sizeof line, "  %-18s %zu sizes: median %s, worst %s at %s\n", d.curve.c_str(), d.matched,
                    format_percent(d.median).c_str(), format_percent(d.worst_rel, {.sign = true}).c_str(),
                    format_size(d.worst_size).c_str());
      os << line;
    }
  }
}

/// Each crossing, in simulation, on hardware, in each run.
void text_crossovers(std::ostream& os, const Validation& v) {
  os << "\ncrossovers (the second protocol is faster above the size)\n";
  if (v.crossovers.empty())
    os << "  none in either\n";
  for (const CrossoverValidation& x : v.crossovers) {
    os << "  " << x.faster_below << " -> " << x.faster_above << ": sim " << (x.sim ? approx(*x.sim) : "none")
       << ", hw " << (x.hw ? approx(*x.hw) : "none") << " (runs:";
    for (const std::optional<double>& h : x.hw_runs)
      os << " " << (h ? approx(*h) : "none");
    os << ")";
    if (x.factor) {
      char f[32];
      std::snprintf(f, sizeof f, ", factor %.3f", *x.factor);
      os << f;
    }
    os << ": " << (x.in_sample ? "in-sample, not judged" : x.within ? "ok" : "MISS") << "\n";
  }
}

/// Where xover's auto hands over, simulated and on hardware, and UCX's.
void text_handovers(std::ostream& os, const ValidateReport& r) {
  const Validation& v = r.validation;
  os << "\nhand-overs\n  xover auto, simulated: " << handovers(r.sim_handovers)
     << "\n  xover auto, on hardware: " << handovers(r.hw_handovers) << "\n";
  for (const std::string& line : v.auto_choices)
    os << "  " << line << "\n";
  if (!r.ucx) {
    os << "  UCX: ucx_info is not installed\n";
  } else {
    const UcxHandover& u = r.ucx->handover;
    os << "  UCX " << (r.ucx->version.empty() ? "" : r.ucx->version + " ") << "on " << r.ucx->transports
       << ", v1 (tag_send): " << (u.v1_line.empty() ? "not reported" : u.v1_line) << ": rendezvous "
       << (u.v1_rndv ? "from " + std::to_string(*u.v1_rndv) + " B" : "never") << "\n";
    os << "  UCX " << (r.ucx->version.empty() ? "" : r.ucx->version + " ") << "on " << r.ucx->transports
       << ", v2 (UCX_PROTO_ENABLE=y):";
    if (u.v2_rows.empty())
      os << " no table";
    for (const UcxProtoRow& row : u.v2_rows)
      os << " " << row.from << ".." << (row.to ? std::to_string(*row.to) : std::string("inf")) << " " << row.protocol
         << " (" << row.lanes << ");";
    os << " rendezvous " << (u.v2_rndv ? "from " + std::to_string(*u.v2_rndv) + " B" : "never") << "\n";
  }
}

/// The plot, then the verdict and what it missed.
void text_verdict(std::ostream& os, const ValidateReport& r) {
  const Validation& v = r.validation;
  if (!r.plot.empty())
    os << "\nplot: " << r.plot << "\n";
  os << "\nverdict: " << verdict_name(v.verdict()) << ": ";
  if (v.verdict() == Verdict::Pass) {
    char f[32];
    std::snprintf(f, sizeof f, "%.2f", v.limits.max_threshold_factor);
    os << "every held-out curve (" << v.held_out() << ") within " << format_percent(v.limits.max_median_error)
       << " median and " << format_percent(v.limits.max_worst_error)
       << " worst, every held-out crossover within a factor " << f << "\n";
    return;
  }
  if (v.verdict() == Verdict::Inconclusive) {
    os << "the runs cannot say whether the model holds\n";
    for (const std::string& why : v.inconclusive)
      os << "  " << why << "\n";
    return;
  }
  os << v.misses.size() << (v.misses.size() == 1 ? " miss" : " misses") << " of the held-out curves\n";
  for (const std::string& m : v.misses)
    os << "  " << m << "\n";
  for (const CalibrationDrift& d : r.drift)
    if (d.median > v.limits.max_median_error)
      os << "  (the calibration's own " << d.curve << " sweep differs from these runs by " << format_percent(d.median)
         << " in median, more than the limit: the machine changed between them, and the misses measure that "
            "change as much as the model; run it again)\n";
}

/// The JSON's curves.
void json_curves(JsonWriter& j, const Validation& v) {
  j.key("curves").begin_array();
  for (const CurveValidation& c : v.curves) {
    j.begin_object();
    j.key("protocol").value(c.protocol);
    j.key("fit").value(c.in_sample ? "in-sample" : "held-out");
    j.key("matched").value(std::uint64_t(c.matched));
    j.key("median").value(c.median);
    j.key("worst").value(c.worst);
    j.key("worst_rel").value(c.worst_rel);
    j.key("worst_size").value(c.worst_size);
    j.key("hw_median").value(c.hw_median);
    j.key("hw_worst").value(c.hw_worst);
    j.key("steady").value(std::uint64_t(c.steady));
    j.key("steady_median").value(c.steady_median);
    j.key("steady_worst").value(c.steady_worst);
    j.key("steady_worst_size").value(c.steady_worst_size);
    j.key("within").value(c.within);
    j.end_object();
  }
  j.end_array();
}

/// The JSON's crossings.
void json_crossovers(JsonWriter& j, const Validation& v) {
  j.key("crossovers").begin_array();
  for (const CrossoverValidation& x : v.crossovers) {
    j.begin_object();
    j.key("faster_below").value(x.faster_below);
    j.key("faster_above").value(x.faster_above);
    j.key("fit").value(x.in_sample ? "in-sample" : "held-out");
    j.key("sim").value(x.sim);
    j.key("hw").value(x.hw);
    j.key("hw_runs").begin_array();
    for (const std::optional<double>& h : x.hw_runs)
      j.value(h);
    j.end_array();
    j.key("factor").value(x.factor);
    j.key("within").value(x.within);
    j.end_object();
  }
  j.end_array();
}

/// The JSON's UCX hand-over, null where ucx_info is not installed.
void json_ucx(JsonWriter& j, const ValidateReport& r) {
  j.key("ucx");
  if (!r.ucx) {
    j.null();
  } else {
    const UcxHandover& u = r.ucx->handover;
    j.begin_object();
    j.key("version").value(r.ucx->version);
    j.key("transports").value(r.ucx->transports);
    j.key("v1_tag_send").value(u.v1_line);
    j.key("v1_rndv").value(u.v1_rndv);
    j.key("v2_rndv").value(u.v2_rndv);
    j.key("v2_rows").begin_array();
    for (const UcxProtoRow& row : u.v2_rows) {
      j.begin_object();
      j.key("from").value(row.from);
      j.key("to").value(row.to);
      j.key("protocol").value(row.protocol);
      j.key("lanes").value(row.lanes);
      j.end_object();
    }
    j.end_array();
    j.end_object();
  }
}

/// The JSON's calibration drift.
void json_drift(JsonWriter& j, const ValidateReport& r) {
  j.key("calibration_drift").begin_array();
  for (const CalibrationDrift& d : r.drift) {
    j.begin_object();
    j.key("curve").value(d.curve);
    j.key("matched").value(std::uint64_t(d.matched));
    j.key("median").value(d.median);
    j.key("worst").value(d.worst_rel);
    j.key("worst_size").value(std::uint64_t(d.worst_size));
    j.end_object();
  }
  j.end_array();
}

}  // namespace

void print_validation_text(std::ostream& os, const ValidateReport& r) {
  text_heading(os, r);
  text_curves(os, r.validation);
  text_drift(os, r);
  text_crossovers(os, r.validation);
  text_handovers(os, r);
  text_verdict(os, r);
}

namespace {

/// One validation's report as a JSON object into `j`, `name` first where given.
void json_validation(JsonWriter& j, const ValidateReport& r, const std::string& name = {}) {
  const Validation& v = r.validation;
  j.begin_object();
  if (!name.empty())
    j.key("name").value(name);
  j.key("scenario").value(r.scenario);
  j.key("backend").value(r.backend);
  j.key("platform").value(r.platform);
  j.key("calibrated").value(r.calibrated);
  j.key("calibrations").value(std::uint64_t(r.calibrations));
  j.key("runs").begin_array();
  for (const std::string& run : r.runs)
    j.value(run);
  j.end_array();
  j.key("sim").value(r.sim);
  j.key("limits").begin_object();
  j.key("max_median_error").value(v.limits.max_median_error);
  j.key("max_worst_error").value(v.limits.max_worst_error);
  j.key("max_threshold_factor").value(v.limits.max_threshold_factor);
  j.end_object();
  j.key("load").begin_object();
  j.key("before").value(r.load_before);
  j.key("after").value(r.load_after);
  j.key("cores").value(std::uint64_t(r.cores));
  j.end_object();
  json_curves(j, v);
  json_crossovers(j, v);
  j.key("handovers").begin_object();
  j.key("sim");
  json_handovers(j, r.sim_handovers);
  j.key("hw");
  json_handovers(j, r.hw_handovers);
  j.end_object();
  json_ucx(j, r);
  j.key("plot").value(r.plot.empty() ? std::nullopt : std::optional<std::string>(r.plot));
  j.key("passed").value(v.passed());
  j.key("verdict").value(verdict_name(v.verdict()));
  j.key("misses").begin_array();
  for (const std::string& m : v.misses)
    j.value(m);
  j.end_array();
  j.key("inconclusive").begin_array();
  for (const std::string& why : v.inconclusive)
    j.value(why);
  j.end_array();
  j.key("states").begin_array();
  for (const std::vector<std::size_t>& state : v.states) {
    j.begin_array();
    for (std::size_t i : state)
      j.value(std::uint64_t(i + 1));
    j.end_array();
  }
  j.end_array();
  json_drift(j, r);
  j.key("auto_choices").begin_array();
  for (const std::string& line : v.auto_choices)
    j.value(line);
  j.end_array();
  j.end_object();
}

}  // namespace

void print_validation_json(std::ostream& os, const ValidateReport& r) {
  JsonWriter j;
  json_validation(j, r);
  os << j.str();
}

Verdict SuiteReport::verdict() const {
  std::vector<Validation> all;
  for (const ValidateReport& c : cases)
    all.push_back(c.validation);
  return suite_verdict(all);
}

/// The rounds: each one's drift and state, the states judged and why the
/// others were not.
void text_rounds(std::ostream& os, const SuiteReport& r) {
  if (r.states.empty() || r.drift.empty())
    return;
  os << "# rounds (a calibration, then every case once), the ping-pong's drift from its own calibration:";
  for (std::size_t k = 0; k < r.drift.size(); ++k)
    os << (k ? "," : "") << " " << k + 1 << ": "
       << (r.drift[k] < 0 ? std::string("unmeasured") : format_percent(r.drift[k]));
  os << "\n";
  for (std::size_t s = 0; s < r.states.size(); ++s) {
    const RoundState& state = r.states[s];
    std::string rounds, coherent;
    for (std::size_t k : state.rounds)
      rounds += (rounds.empty() ? "" : ", ") + std::to_string(k + 1);
    for (std::size_t k : state.coherent)
      coherent += (coherent.empty() ? "" : ", ") + std::to_string(k + 1);
    os << "# machine state " << s + 1 << " of " << r.states.size() << " (slowest first): rounds " << rounds << "; "
       << (state.judged ? "judged on rounds " + coherent + ", simulated on round " +
                              std::to_string(state.coherent.front() + 1) + "'s calibration"
                        : "not judged: " + state.reason)
       << "\n";
  }
}

void print_suite_text(std::ostream& os, const SuiteReport& r) {
  for (std::size_t i = 0; i < r.cases.size(); ++i) {
    os << "\n## case " << r.names[i] << "\n";
    print_validation_text(os, r.cases[i]);
  }
  os << "\n# suite " << r.suite << " on " << r.backend << ", simulated on " << r.platform << ": "
     << (r.recorded ? "its fit set: " + (r.fit_set.empty() ? std::string("none") : fit_set_text(r.fit_set))
                    : std::string("it records no fit set: every curve is taken as held-out"))
     << "\n";
  text_rounds(os, r);
  char seconds[160];
  if (r.budget > 0)
    std::snprintf(seconds, sizeof seconds, "# %.0f s in all (%.0f s measuring), budget %.0f s%s\n", r.seconds,
                  r.measured_seconds, r.budget, r.seconds > r.budget ? ": OVER the budget" : "");
  else
    std::snprintf(seconds, sizeof seconds, "# %.0f s in all (%.0f s measuring)\n", r.seconds, r.measured_seconds);
  os << seconds;
  for (std::size_t i = 0; i < r.cases.size(); ++i) {
    const Validation& v = r.cases[i].validation;
    std::string held, fitted;
    for (const CurveValidation& c : v.curves) {
      std::string& list = c.in_sample ? fitted : held;
      list += (list.empty() ? "" : " ") + c.protocol;
    }
    os << "  " << cell(r.names[i], 22) << cell("held-out: " + (held.empty() ? "none" : held), 44)
       << cell("in-sample: " + (fitted.empty() ? "none" : fitted), 40)
       << (v.held_out() == 0 ? "not judged (nothing predicted)" : verdict_name(v.verdict())) << "\n";
  }
  os << "\nsuite verdict: " << verdict_name(r.verdict()) << "\n";
  for (std::size_t i = 0; i < r.cases.size(); ++i) {
    const Validation& v = r.cases[i].validation;
    // An inconclusive case's misses measure the machine as much as the
    // model: its reasons stand for them (its report lists them).
    if (v.held_out() == 0 || v.verdict() == Verdict::Pass)
      continue;
    for (const std::string& line : v.verdict() == Verdict::Fail ? v.misses : v.inconclusive)
      os << "  " << r.names[i] << ": " << line << "\n";
  }
}

void print_suite_json(std::ostream& os, const SuiteReport& r) {
  JsonWriter j;
  j.begin_object();
  j.key("suite").value(r.suite);
  j.key("backend").value(r.backend);
  j.key("platform").value(r.platform);
  j.key("calibrated").value(r.calibrated);
  j.key("calibrations").value(std::uint64_t(r.calibrations));
  j.key("fit_set");
  if (!r.recorded) {
    j.null();
  } else {
    j.begin_array();
    for (const FitEntry& e : r.fit_set)
      j.value(e.workload + ":" + e.curve);
    j.end_array();
  }
  j.key("seconds").value(r.seconds);
  j.key("measured_seconds").value(r.measured_seconds);
  j.key("budget").value(r.budget);
  j.key("round_drift").begin_array();
  for (double d : r.drift)
    if (d < 0)
      j.null();
    else
      j.value(d);
  j.end_array();
  j.key("round_states").begin_array();
  for (const RoundState& state : r.states) {
    j.begin_object();
    j.key("rounds").begin_array();
    for (std::size_t k : state.rounds)
      j.value(std::uint64_t(k + 1));
    j.end_array();
    j.key("judged_rounds").begin_array();
    if (state.judged)
      for (std::size_t k : state.coherent)
        j.value(std::uint64_t(k + 1));
    j.end_array();
    j.key("reason").value(state.reason);
    j.end_object();
  }
  j.end_array();
  j.key("cases").begin_array();
  for (std::size_t i = 0; i < r.cases.size(); ++i)
    json_validation(j, r.cases[i], r.names[i]);
  j.end_array();
  j.key("verdict").value(verdict_name(r.verdict()));
  j.end_object();
  os << j.str();
}

}  // namespace xover::tools
