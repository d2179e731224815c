#include "tools/compare.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "protocols/workload/results.hpp"

namespace xover::tools {
namespace {

// Every protocol of either file: the simulation's order, then the
// hardware's own.
std::vector<std::string> all_protocols(const ResultsFile& sim, const ResultsFile& hw) {
  std::vector<std::string> out = sim.protocols();
  for (const std::string& p : hw.protocols())
    if (std::find(out.begin(), out.end(), p) == out.end())
      out.push_back(p);
  return out;
}

std::map<Bytes, const ResultRow*> rows_of(const ResultsFile& results, const std::string& protocol) {
  std::map<Bytes, const ResultRow*> out;
  for (const ResultRow& row : results.rows)
    if (row.protocol == protocol)
      out[row.size] = &row;
  return out;
}

ProtocolErrors protocol_errors(const std::string& protocol, const ResultsFile& sim, const ResultsFile& hw,
                               std::vector<PointError>& points) {
  ProtocolErrors e;
  e.protocol = protocol;
  const auto s = rows_of(sim, protocol);
  const auto h = rows_of(hw, protocol);
  std::vector<double> abs_rel;
  for (const auto& [size, row] : s) {
    const auto it = h.find(size);
    if (it == h.end()) {
      e.only_sim.push_back(size);
      continue;
    }
    const ResultRow& hw_row = *it->second;
    const PointError p{protocol,        size, row->t_median_us, hw_row.t_median_us, row->selected, hw_row.selected,
                       (row->t_median_us - hw_row.t_median_us) / hw_row.t_median_us};
    if (abs_rel.empty() || std::abs(p.rel) > e.worst_abs_rel) {
      e.worst_abs_rel = std::abs(p.rel);
      e.worst_rel = p.rel;
      e.worst_size = size;
    }
    abs_rel.push_back(std::abs(p.rel));
    points.push_back(p);
  }
  for (const auto& [size, row] : h)
    if (!s.count(size))
      e.only_hw.push_back(size);
  e.matched = abs_rel.size();
  if (!abs_rel.empty())
    e.median_abs_rel = median(abs_rel);
  return e;
}

// The forced curve of `results` that ran `selected`: the curve of that
// name, or one whose name it lies under ("eager/multi" for
// "eager/multi/zcopy").
std::optional<std::string> curve_for(const ResultsFile& results, const std::string& selected) {
  std::optional<std::string> under;
  for (const std::string& p : results.protocols()) {
    if (p == "auto")
      continue;
    if (p == selected)
      return p;
    if (!under && selected.size() > p.size() && selected.compare(0, p.size(), p) == 0 && selected[p.size()] == '/')
      under = p;
  }
  return under;
}

ThresholdCheck check_threshold(const SelectionThreshold& t, const ResultsFile& hw,
                               const std::vector<Crossover>& hw_crossovers, double max_factor) {
  ThresholdCheck check;
  check.sim = t;
  const auto from = curve_for(hw, t.from);
  const auto to = curve_for(hw, t.to);
  if (!from || !to) {
    check.unmeasured = "the hardware file has no " + (from ? t.to : t.from) + " curve";
    return check;
  }
  const double e = t.estimate();
  double best = 0;
  for (const Crossover& c : hw_crossovers) {
    if (c.faster_below != *from || c.faster_above != *to)
      continue;
    ++check.hw_crossings;
    const double factor = std::max(e / c.size, c.size / e);
    if (!check.hw || factor < best) {
      check.hw = c;
      best = factor;
    }
  }
  if (!check.hw) {
    check.unmeasured = *to + " never drops below " + *from + " on hardware";
    return check;
  }
  check.factor = best;
  check.within = best <= max_factor;
  return check;
}

}  // namespace

Comparison compare_results(const ResultsFile& sim, const ResultsFile& hw, double max_factor) {
  if (sim.scenario != hw.scenario)
    throw CompareError(sim.file + " holds scenario '" + sim.scenario + "', " + hw.file + " holds '" + hw.scenario +
                       "': compare two runs of one scenario");
  if (sim.workload != hw.workload)
    throw CompareError(sim.file + " holds a " + sim.workload + " workload, " + hw.file + " a " + hw.workload +
                       " one: compare two runs of one scenario");
  Comparison c;
  c.max_factor = max_factor;
  for (const std::string& p : all_protocols(sim, hw))
    c.protocols.push_back(protocol_errors(p, sim, hw, c.points));
  if (c.points.empty())
    throw CompareError(sim.file + " and " + hw.file + " have no (protocol, size) in common");
  c.sim_crossovers = find_crossovers(sim);
  c.hw_crossovers = find_crossovers(hw);
  for (const SelectionThreshold& t : selection_thresholds(sim))
    c.thresholds.push_back(check_threshold(t, hw, c.hw_crossovers, max_factor));
  return c;
}

}  // namespace xover::tools
