#include "tools/validate_plan.hpp"

#include <algorithm>

#include "protocols/units.hpp"
#include "tools/compare.hpp"

namespace xover::tools {

double validate_budget(const std::string& backend) {
  if (backend == "shm")
    return 120;
  if (backend == "tcp")
    return 240;
  return 0;
}

std::vector<MeasureStep> interleaved_steps(std::size_t rounds, std::size_t cases, bool calibrate) {
  std::vector<MeasureStep> out;
  for (std::size_t r = 0; r < rounds; ++r) {
    if (calibrate)
      out.push_back({true, r, 0});
    for (std::size_t i = 0; i < cases; ++i)
      out.push_back({false, r, i});
  }
  return out;
}

std::vector<std::size_t> RoundsVerdict::judged() const {
  std::vector<std::size_t> out;
  for (std::size_t s = 0; s < states.size(); ++s)
    if (states[s].judged)
      out.push_back(s);
  return out;
}

namespace {

/// "1, 3": round numbers, from 1.
std::string round_numbers(const std::vector<std::size_t>& rounds) {
  std::string out;
  for (std::size_t r : rounds)
    out += (out.empty() ? "" : ", ") + std::to_string(r + 1);
  return out;
}

/// The largest median drift over the probe's forced curves.
double round_drift(const ResultsFile& sweeps, const ResultsFile& probe) {
  double worst = 0;
  for (const CalibrationDrift& d : calibration_drift(sweeps, probe))
    worst = std::max(worst, d.median);
  return worst;
}

/// Why `state` is not judged, with each of its rounds' drift.
std::string state_reason(const RoundState& state, const std::vector<double>& drift, const ValidateLimits& limits) {
  std::string drifts;
  for (std::size_t r : state.rounds)
    drifts += (drifts.empty() ? "" : ", ") + std::string("round ") + std::to_string(r + 1) + " " +
              (drift[r] < 0 ? std::string("unmeasured") : format_percent(drift[r]));
  return "rounds " + round_numbers(state.rounds) + ": " + std::to_string(state.coherent.size()) +
         " of them found the machine as their own calibration did (ping-pong within " +
         format_percent(limits.max_median_error) + " of its sweeps; drift " + drifts +
         "), and a verdict needs two, to know the machine's own reproducibility";
}

}  // namespace

RoundsVerdict judge_rounds(const std::vector<ResultsFile>& sweeps, const std::vector<ResultsFile>& probes,
                           const ValidateLimits& limits) {
  if (sweeps.empty() || (!probes.empty() && probes.size() != sweeps.size()))
    throw CompareError("the rounds' verdict needs a calibration per round, and a ping-pong run per round or none");
  RoundsVerdict out;
  out.drift.assign(sweeps.size(), -1);
  for (std::size_t r = 0; r < probes.size(); ++r)
    out.drift[r] = round_drift(sweeps[r], probes[r]);
  for (std::vector<std::size_t>& rounds : machine_states(sweeps, limits.max_median_error)) {
    RoundState state;
    state.rounds = std::move(rounds);
    for (std::size_t r : state.rounds)
      if (out.drift[r] <= limits.max_median_error)
        state.coherent.push_back(r);
    state.judged = state.coherent.size() >= 2;
    if (!state.judged)
      state.reason = state_reason(state, out.drift, limits);
    out.states.push_back(std::move(state));
  }
  return out;
}

std::optional<std::string> fit_unmet(const Validation& probe, const ValidateLimits& limits) {
  std::string missed;
  for (const CurveValidation& c : probe.curves)
    if (c.in_sample && c.median > limits.max_worst_error)
      missed += (missed.empty() ? "" : ", ") + c.protocol + " " + format_percent(c.median);
  if (missed.empty())
    return std::nullopt;
  return "the calibration does not meet the workload it was fitted to (its ping-pong's in-sample curves, median " +
         missed + ", past even the worst-error limit " + format_percent(limits.max_worst_error) +
         "): the platform is not this machine's, and the held-out errors would measure that";
}

}  // namespace xover::tools
