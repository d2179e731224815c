#include "tools/validate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>

#include "protocols/workload/results.hpp"

namespace xover::tools {
namespace {

/// Whether a curve is in the platform's fit set.
using InSample = std::function<bool(const std::string&)>;

/// The crossing of `below` → `above` in `list` nearest `size` by size
/// ratio, not yet taken (when `taken` is given).
std::optional<std::size_t> nearest(const std::vector<Crossover>& list, const std::string& below,
                                   const std::string& above, double size, const std::vector<bool>* taken = nullptr) {
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (list[i].faster_below != below || list[i].faster_above != above || (taken && (*taken)[i]))
      continue;
    if (!best || std::abs(std::log(list[i].size / size)) < std::abs(std::log(list[*best].size / size)))
      best = i;
  }
  return best;
}

}  // namespace

ResultsFile hardware_reference(const std::vector<ResultsFile>& runs) {
  if (runs.empty())
    throw CompareError("no hardware run to take a reference from");
  for (const ResultsFile& run : runs)
    if (run.scenario != runs[0].scenario || run.workload != runs[0].workload)
      throw CompareError(run.file + " holds '" + run.scenario + "' (" + run.workload + "), " + runs[0].file +
                         " holds '" + runs[0].scenario + "' (" + runs[0].workload + ")");
  ResultsFile out = runs[0];
  out.file = "the median of " + std::to_string(runs.size()) + " hardware runs";
  out.rows.clear();
  std::vector<std::map<std::pair<std::string, Bytes>, const ResultRow*>> index(runs.size());
  for (std::size_t r = 0; r < runs.size(); ++r)
    for (const ResultRow& row : runs[r].rows)
      index[r][{row.protocol, row.size}] = &row;
  for (const ResultRow& first : runs[0].rows) {
    std::vector<const ResultRow*> rows;
    for (const auto& in_run : index) {
      const auto it = in_run.find({first.protocol, first.size});
      if (it != in_run.end())
        rows.push_back(it->second);
    }
    if (rows.size() != runs.size())
      continue;
    ResultRow row = first;
    auto median_of = [&](double ResultRow::*field) {
      std::vector<double> v;
      for (const ResultRow* r : rows)
        v.push_back(r->*field);
      return median(v);
    };
    row.t_median_us = median_of(&ResultRow::t_median_us);
    row.t_p10_us = median_of(&ResultRow::t_p10_us);
    row.t_p90_us = median_of(&ResultRow::t_p90_us);
    row.bandwidth_MBps = median_of(&ResultRow::bandwidth_MBps);
    const bool intervals =
        std::all_of(rows.begin(), rows.end(), [](const ResultRow* r) { return r->t_ci_lo_us.has_value(); });
    row.t_ci_lo_us = row.t_ci_hi_us = std::nullopt;
    if (intervals) {
      row.t_ci_lo_us = row.t_median_us;
      row.t_ci_hi_us = row.t_median_us;
      for (const ResultRow* r : rows) {
        row.t_ci_lo_us = std::min(*row.t_ci_lo_us, *r->t_ci_lo_us);
        row.t_ci_hi_us = std::max(*row.t_ci_hi_us, *r->t_ci_hi_us);
      }
    }
    out.rows.push_back(std::move(row));
  }
  if (out.rows.empty())
    throw CompareError("the hardware runs have no (protocol, size) in common");
  return out;
}

std::vector<CalibrationDrift> calibration_drift(const ResultsFile& sweeps, const ResultsFile& reference) {
  std::map<std::pair<std::string, Bytes>, double> swept;
  for (const ResultRow& row : sweeps.rows)
    swept[{row.protocol, row.size}] = row.t_median_us;
  std::vector<CalibrationDrift> out;
  for (const std::string& curve : reference.protocols()) {
    if (curve == "auto")
      continue;
    CalibrationDrift d{curve};
    std::vector<double> errors;
    for (const ResultRow& row : reference.rows) {
      const auto it = swept.find({row.selected, row.size});
      if (row.protocol != curve || it == swept.end())
        continue;
      const double rel = it->second / row.t_median_us - 1;
      errors.push_back(std::abs(rel));
      if (std::abs(rel) >= std::abs(d.worst_rel)) {
        d.worst_rel = rel;
        d.worst_size = row.size;
      }
    }
    if (errors.empty())
      continue;
    d.matched = errors.size();
    d.median = median(errors);
    out.push_back(d);
  }
  return out;
}

ResultsFile with_simulated_choice(const ResultsFile& run, const ResultsFile& sim) {
  std::map<Bytes, std::string> chosen;
  for (const ResultRow& row : sim.rows)
    if (row.protocol == "auto")
      chosen[row.size] = row.selected;
  std::map<std::pair<std::string, Bytes>, const ResultRow*> ran;
  for (const ResultRow& row : run.rows)
    if (row.protocol != "auto")
      ran.try_emplace({row.selected, row.size}, &row);
  ResultsFile out = run;
  for (ResultRow& row : out.rows) {
    const auto choice = chosen.find(row.size);
    if (row.protocol != "auto" || choice == chosen.end() || choice->second == row.selected)
      continue;
    if (const auto same = ran.find({choice->second, row.size}); same != ran.end()) {
      ResultRow taken = *same->second;
      taken.protocol = "auto";
      taken.line = row.line;
      row = std::move(taken);
    }
  }
  return out;
}

namespace {

/// Where `own` (the runs as they ran) took another protocol for auto than
/// `reference` (the runs with the simulation's choice), what each cost.
std::vector<std::string> auto_choices(const ResultsFile& own, const ResultsFile& reference) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < own.rows.size() && i < reference.rows.size(); ++i) {
    const ResultRow& mine = own.rows[i];
    const ResultRow& chosen = reference.rows[i];
    if (mine.protocol != "auto" || mine.selected == chosen.selected)
      continue;
    char buf[96];
    std::snprintf(buf, sizeof buf, " (%.3f us against %.3f us: %s)", mine.t_median_us, chosen.t_median_us,
                  format_percent(mine.t_median_us / chosen.t_median_us - 1, {.sign = true}).c_str());
    out.push_back("auto at " + format_size(mine.size) + ": the simulation's selection runs " + chosen.selected +
                  ", the hardware's own (its transport's figures) " + mine.selected + buf +
                  "; compared with the hardware's " + chosen.selected + " there");
  }
  return out;
}

/// Per protocol, the largest median and worst relative error of any run
/// against any other: the machine's own reproducibility.
std::map<std::string, std::pair<double, double>> reproducibility(const std::vector<ResultsFile>& runs) {
  std::map<std::string, std::pair<double, double>> out;
  for (std::size_t i = 0; i < runs.size(); ++i)
    for (std::size_t j = i + 1; j < runs.size(); ++j)
      for (const ProtocolErrors& p : compare_results(runs[j], runs[i]).protocols) {
        if (!p.matched)
          continue;
        auto& [median_rel, worst_rel] = out[p.protocol];
        median_rel = std::max(median_rel, p.median_abs_rel);
        worst_rel = std::max(worst_rel, p.worst_abs_rel);
      }
  return out;
}

/// Per (protocol, size), the smallest and the largest median of the runs.
using Spread = std::map<std::pair<std::string, Bytes>, std::pair<double, double>>;

Spread spread_of(const std::vector<ResultsFile>& runs) {
  Spread spread;
  for (const ResultsFile& run : runs)
    for (const ResultRow& row : run.rows) {
      const auto [at, added] = spread.try_emplace({row.protocol, row.size}, row.t_median_us, row.t_median_us);
      at->second.first = std::min(at->second.first, row.t_median_us);
      at->second.second = std::max(at->second.second, row.t_median_us);
    }
  return spread;
}

/// One curve's verdict: its errors against the simulation, over all its
/// points and over the steady ones (where the runs agree within the worst
/// limit), beside the runs' own `hw` reproducibility; a miss said in
/// `misses`.
CurveValidation judge_curve(const ProtocolErrors& p, const std::vector<PointError>& points,
                            const std::pair<double, double>& hw, Spread& spread, const ValidateLimits& limits,
                            std::vector<std::string>& misses) {
  CurveValidation v;
  std::vector<double> steady;
  for (const PointError& e : points) {
    const auto [low, high] = spread[{e.protocol, e.size}];
    if (e.protocol != p.protocol || high / low - 1 > limits.max_worst_error)
      continue;
    steady.push_back(std::abs(e.rel));
    if (std::abs(e.rel) >= std::abs(v.steady_worst)) {
      v.steady_worst = e.rel;
      v.steady_worst_size = e.size;
    }
  }
  v.steady = steady.size();
  v.steady_median = steady.empty() ? 0 : median(steady);
  v.protocol = p.protocol;
  v.matched = p.matched;
  v.median = p.median_abs_rel;
  v.worst = p.worst_abs_rel;
  v.worst_rel = p.worst_rel;
  v.worst_size = p.worst_size;
  v.hw_median = hw.first;
  v.hw_worst = hw.second;
  v.within = v.median <= limits.max_median_error && v.worst <= limits.max_worst_error;
  if (v.median > limits.max_median_error)
    misses.push_back(v.protocol + ": median |sim - hw| / hw " + format_percent(v.median) + " above " +
                     format_percent(limits.max_median_error));
  if (v.worst > limits.max_worst_error) {
    const auto [low, high] = spread[{v.protocol, v.worst_size}];
    misses.push_back(v.protocol + ": worst |sim - hw| / hw " + format_percent(v.worst) + " at " +
                     format_size(v.worst_size) + " above " + format_percent(limits.max_worst_error) +
                     (high / low - 1 > limits.max_worst_error
                          ? " (the hardware runs differ there by " + format_percent(high / low - 1) + ": noise)"
                          : ""));
  }
  return v;
}

/// One crossing of `below` → `above`, at `s` in simulation and `h` on the
/// hardware's reference (either may be missing), with each run's nearest;
/// a miss said in `out.misses`.
void judge_crossing(const std::string& below, const std::string& above, std::optional<double> s,
                    std::optional<double> h, const std::vector<std::vector<Crossover>>& per_run,
                    const ValidateLimits& limits, const InSample& in_sample, Validation& out) {
  CrossoverValidation x{below, above, s, h, {}, std::nullopt, false, in_sample(below) && in_sample(above)};
  const double around = h ? *h : *s;
  for (const std::vector<Crossover>& crossings : per_run) {
    const std::optional<std::size_t> i = nearest(crossings, below, above, around);
    x.hw_runs.push_back(i ? std::optional<double>(crossings[*i].size) : std::nullopt);
  }
  if (s && h)
    x.factor = std::max(*s / *h, *h / *s);
  x.within = x.factor && *x.factor <= limits.max_threshold_factor;
  char buf[64];
  if (x.in_sample)
    ;  // a crossing of two fitted curves is shown, never judged
  else if (!s)
    out.misses.push_back(below + " -> " + above + ": crosses on hardware only");
  else if (!h)
    out.misses.push_back(below + " -> " + above + ": crosses in simulation only");
  else if (!x.within) {
    std::snprintf(buf, sizeof buf, "factor %.3f above %.3f", *x.factor, limits.max_threshold_factor);
    out.misses.push_back(below + " -> " + above + ": crossing " + buf);
  }
  out.crossovers.push_back(std::move(x));
}

/// The hardware's crossings, each paired with the simulation's nearest of
/// the same two protocols not yet taken, then the simulation's left over.
void judge_crossovers(const Comparison& c, const std::vector<ResultsFile>& runs, const ValidateLimits& limits,
                      const InSample& in_sample, Validation& out) {
  std::vector<std::vector<Crossover>> per_run;
  for (const ResultsFile& run : runs)
    per_run.push_back(find_crossovers(run));
  std::vector<bool> taken(c.sim_crossovers.size(), false);
  for (const Crossover& h : c.hw_crossovers) {
    const std::optional<std::size_t> s = nearest(c.sim_crossovers, h.faster_below, h.faster_above, h.size, &taken);
    if (s)
      taken[*s] = true;
    judge_crossing(h.faster_below, h.faster_above, s ? std::optional<double>(c.sim_crossovers[*s].size) : std::nullopt,
                   h.size, per_run, limits, in_sample, out);
  }
  for (std::size_t i = 0; i < c.sim_crossovers.size(); ++i)
    if (!taken[i])
      judge_crossing(c.sim_crossovers[i].faster_below, c.sim_crossovers[i].faster_above, c.sim_crossovers[i].size,
                     std::nullopt, per_run, limits, in_sample, out);
}

}  // namespace

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::Pass:
      return "PASS";
    case Verdict::Fail:
      return "FAIL";
    case Verdict::Inconclusive:
      return "INCONCLUSIVE";
  }
  return "?";
}

std::size_t Validation::held_out() const {
  return static_cast<std::size_t>(
      std::count_if(curves.begin(), curves.end(), [](const CurveValidation& c) { return !c.in_sample; }));
}

Verdict Validation::verdict() const {
  if (!inconclusive.empty())
    return Verdict::Inconclusive;
  return misses.empty() ? Verdict::Pass : Verdict::Fail;
}

Verdict suite_verdict(const std::vector<Validation>& cases) {
  bool counted = false, inconclusive = false;
  for (const Validation& v : cases) {
    if (v.held_out() == 0)
      continue;
    counted = true;
    if (v.verdict() == Verdict::Fail)
      return Verdict::Fail;
    inconclusive = inconclusive || v.verdict() == Verdict::Inconclusive;
  }
  return !counted || inconclusive ? Verdict::Inconclusive : Verdict::Pass;
}

std::vector<std::vector<std::size_t>> machine_states(const std::vector<ResultsFile>& runs, double max_median_error) {
  const std::size_t n = runs.size();
  std::vector<std::size_t> group(n);
  for (std::size_t i = 0; i < n; ++i)
    group[i] = i;
  const auto root = [&group](std::size_t i) {
    while (group[i] != i)
      i = group[i];
    return i;
  };
  // distance[i][j]: the median |ln(t_j / t_i)| over their common points;
  // the sign of the median ln says which is slower.
  std::vector<std::vector<double>> slower(n, std::vector<double>(n, 0));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j) {
      std::map<std::pair<std::string, Bytes>, double> times;
      for (const ResultRow& row : runs[i].rows)
        times[{row.protocol, row.size}] = row.t_median_us;
      std::vector<double> apart, signed_apart;
      for (const ResultRow& row : runs[j].rows) {
        const auto at = times.find({row.protocol, row.size});
        if (at == times.end() || !(at->second > 0) || !(row.t_median_us > 0))
          continue;
        const double ln = std::log(row.t_median_us / at->second);
        apart.push_back(std::abs(ln));
        signed_apart.push_back(ln);
      }
      if (apart.empty())
        continue;
      slower[i][j] = median(signed_apart);
      slower[j][i] = -slower[i][j];
      if (median(apart) <= std::log1p(max_median_error))
        group[root(j)] = root(i);
    }
  std::map<std::size_t, std::vector<std::size_t>> by_root;
  for (std::size_t i = 0; i < n; ++i)
    by_root[root(i)].push_back(i);
  std::vector<std::vector<std::size_t>> states;
  for (auto& [r, members] : by_root)
    states.push_back(std::move(members));
  std::stable_sort(states.begin(), states.end(), [&slower](const auto& a, const auto& b) {
    return slower[b.front()][a.front()] > 0;  // a's first run slower than b's
  });
  return states;
}

namespace {

/// The runs `indices` of `runs`.
std::vector<ResultsFile> pick(const std::vector<ResultsFile>& runs, const std::vector<std::size_t>& indices) {
  std::vector<ResultsFile> out;
  for (std::size_t i : indices)
    out.push_back(runs[i]);
  return out;
}

/// "1, 3": run numbers, from 1.
std::string run_numbers(const std::vector<std::size_t>& indices) {
  std::string out;
  for (std::size_t i : indices)
    out += (out.empty() ? "" : ", ") + std::to_string(i + 1);
  return out;
}

/// Across several machine states, the runs to judge on: those of the state
/// every run that found the machine as calibrated is in; none (and why, in
/// `out.inconclusive`) when that is not known or not one state.
std::vector<std::size_t> runs_to_judge(const JudgeContext& context, Validation& out) {
  std::string states;
  for (const std::vector<std::size_t>& state : out.states)
    states += (states.empty() ? "" : "; ") + std::string("runs ") + run_numbers(state);
  const std::string seen = "the hardware runs were in " + std::to_string(out.states.size()) +
                           " machine states, slowest first (" + states + ")";
  if (context.as_calibrated.empty()) {
    out.inconclusive.push_back(seen + ", and which of them the calibration saw is not known");
    return {};
  }
  std::vector<std::size_t> chosen;
  for (const std::vector<std::size_t>& state : out.states)
    for (std::size_t i : state)
      if (context.as_calibrated[i]) {
        if (!chosen.empty() && chosen != state) {
          out.inconclusive.push_back(seen + ", and the calibration's state was found in more than one");
          return {};
        }
        chosen = state;
      }
  if (chosen.empty())
    out.inconclusive.push_back(seen + ", and none of them found the machine as it was calibrated");
  return chosen;
}

}  // namespace

Validation validate_results(const ResultsFile& sim, const std::vector<ResultsFile>& runs_as_run,
                            const ValidateLimits& limits, const JudgeContext& context) {
  if (runs_as_run.size() < 2)
    throw CompareError("a verdict needs at least two hardware runs, to know the machine's own reproducibility");
  if (!context.as_calibrated.empty() && context.as_calibrated.size() != runs_as_run.size())
    throw CompareError("a verdict's calibrated runs must be as many as the runs");
  Validation out;
  out.limits = limits;
  out.states = machine_states(runs_as_run, limits.max_median_error);
  std::vector<std::size_t> all(runs_as_run.size());
  for (std::size_t i = 0; i < all.size(); ++i)
    all[i] = i;
  out.judged_runs = out.states.size() == 1 ? all : runs_to_judge(context, out);
  // Inconclusive across states: the curves are still shown, against every run.
  const std::vector<std::size_t>& judged = out.judged_runs.empty() ? all : out.judged_runs;
  // Where the hardware's own selection ran another protocol than the
  // simulation's, the simulated choice is judged by what it costs on the
  // hardware, and the difference said.
  std::vector<ResultsFile> runs;
  for (const ResultsFile& run : pick(runs_as_run, judged))
    runs.push_back(with_simulated_choice(run, sim));
  const ResultsFile reference = hardware_reference(runs);
  out.auto_choices = auto_choices(hardware_reference(pick(runs_as_run, judged)), reference);
  const Comparison c = compare_results(sim, reference, limits.max_threshold_factor);
  std::map<std::string, std::pair<double, double>> hw = reproducibility(runs);
  Spread spread = spread_of(runs);
  const InSample in_sample = [&context](const std::string& curve) {
    return std::find(context.in_sample.begin(), context.in_sample.end(), curve) != context.in_sample.end();
  };
  std::vector<std::string> ignored;
  for (const ProtocolErrors& p : c.protocols)
    if (p.matched) {
      const bool fitted = in_sample(p.protocol);
      out.curves.push_back(judge_curve(p, c.points, hw[p.protocol], spread, limits, fitted ? ignored : out.misses));
      out.curves.back().in_sample = fitted;
    }
  judge_crossovers(c, runs, limits, in_sample, out);
  if (out.states.size() == 1 && !context.as_calibrated.empty() &&
      std::none_of(context.as_calibrated.begin(), context.as_calibrated.end(), [](bool b) { return b; }))
    out.inconclusive.push_back("no hardware run found the machine as it was calibrated (the calibration's own "
                               "measurements differ from every run's by more than the median limit): the machine "
                               "changed between them, and the errors would measure that change");
  if (out.held_out() == 0)
    out.inconclusive.push_back("every curve is in the platform's fit set: nothing here was predicted");
  return out;
}

}  // namespace xover::tools
