// xover crossover: the size where two protocols' simulated times cross,
// found by bisection on whole sizes, next to the selection engine's
// threshold for the same two protocols.
#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>

#include "formats/scenario_xml.hpp"
#include "protocols/registry.hpp"
#include "protocols/select/threshold_table.hpp"
#include "sim/scenario_check.hpp"
#include "sim/simulate.hpp"
#include "tools/commands.hpp"
#include "tools/json.hpp"

namespace po = boost::program_options;

namespace xover::tools {
namespace {

/// Simulated ping-pong times of two protocols at one size.
class Probe {
 public:
  Probe(Scenario scenario, const sim::LogGPPlatform& platform, std::string a, std::string b)
      : scenario_(std::move(scenario)), platform_(platform), a_(std::move(a)), b_(std::move(b)) {
    scenario_.workload = &pingpong_workload;
    scenario_.curves = {a_, b_};
    scenario_.iterations = 1;
    scenario_.warmup = std::max<std::size_t>(scenario_.warmup, 1);
  }

  /// T_a(n) − T_b(n); empty when either protocol does not carry n.
  std::optional<double> difference(Bytes n) {
    ++runs_;
    scenario_.sizes = {n};
    const Results results = sim::simulate(scenario_, platform_);
    std::optional<Seconds> ta;
    std::optional<Seconds> tb;
    for (const Point* p : results.points()) {
      if (p->curve == a_)
        ta = p->median();
      if (p->curve == b_)
        tb = p->median();
    }
    if (!ta || !tb)
      return std::nullopt;
    return *ta - *tb;
  }
  int runs() const { return runs_; }

 private:
  Scenario scenario_;
  const sim::LogGPPlatform& platform_;
  std::string a_;
  std::string b_;
  int runs_ = 0;
};

// The first size the table restricted to {a, b} gives to b.
std::optional<Bytes> engine_threshold(const Path& path, SelectConfig config, const std::string& a,
                                      const std::string& b) {
  config.forced = {a, b};
  const ThresholdTable table = ThresholdTable::build(path, config);
  for (const ThresholdRange& range : table.ranges())
    if (protocol_matches(*table.choices()[range.choice].protocol, b))
      return range.from;
  return std::nullopt;
}

/// The first whole size in [lo, hi] at which b is faster than a, by
/// bisection; none unless a is no slower at lo and b faster at hi.
std::optional<Bytes> bisect(Probe& probe, Bytes lo, Bytes hi) {
  const auto d_lo = probe.difference(lo);
  const auto d_hi = probe.difference(hi);
  if (!d_lo || !d_hi || *d_lo > 0 || *d_hi <= 0)
    return std::nullopt;
  // Invariant: a no slower than b at lo, b faster at hi.
  while (hi - lo > 1) {
    const Bytes mid = lo + (hi - lo) / 2;
    const auto d = probe.difference(mid);
    if (!d)
      break;
    (*d > 0 ? hi : lo) = mid;
  }
  return hi;
}

/// What crossover finds for a → b.
struct Answer {
  std::string a, b;
  std::optional<Bytes> size;                ///< simulated crossover
  std::optional<Bytes> threshold;           ///< the engine's, with the scenario's settings
  std::optional<Bytes> threshold_unbiased;  ///< the engine's, rndv_perf_diff=0
  int simulations = 0;
};

/// The simulated crossover and the engine's thresholds of `scenario`'s
/// first two ranks' path.
Answer find_crossover(const Scenario& scenario, const std::string& a, const std::string& b) {
  const sim::LogGPPlatform platform = sim::LogGPPlatform::load(scenario.platform);
  sim::check_scenario_nodes(scenario, platform);
  const auto nodes = sim::rank_nodes(scenario, platform);
  const Path path = platform.path(nodes[0], nodes[1]);
  SelectConfig unbiased = scenario.select;
  unbiased.rndv_perf_diff = 0;
  Answer out;
  out.a = a;
  out.b = b;
  out.threshold = engine_threshold(path, scenario.select, a, b);
  out.threshold_unbiased = engine_threshold(path, unbiased, a, b);
  Probe probe(scenario, platform, a, b);
  out.size = bisect(probe, scenario.sizes.front(), scenario.sizes.back());
  out.simulations = probe.runs();
  return out;
}

void print_json(const Answer& x) {
  JsonWriter j;
  j.begin_object();
  j.key("between").begin_array().value(x.a).value(x.b).end_array();
  j.key("size").value(x.size);
  j.key("threshold").value(x.threshold);
  j.key("threshold_unbiased").value(x.threshold_unbiased);
  j.key("simulations").value(std::uint64_t(x.simulations));
  j.end_object();
  std::cout << j.str();
}

void print_text(const Answer& x, const Scenario& scenario) {
  auto show = [](const std::optional<Bytes>& n) { return n ? std::to_string(*n) + " B" : std::string("none"); };
  std::cout << "crossover " << x.a << " -> " << x.b << " on " << scenario.platform << "\n"
            << "  simulated:          " << show(x.size) << "  (" << x.simulations << " simulations)\n"
            << "  selection engine:   " << show(x.threshold) << "  (rndv_perf_diff=" << scenario.select.rndv_perf_diff
            << "%)\n"
            << "  unbiased engine:    " << show(x.threshold_unbiased) << "  (rndv_perf_diff=0)\n";
  if (!x.size)
    std::cout << "  " << x.a << " is not faster at " << scenario.sizes.front() << " B and slower at "
              << scenario.sizes.back() << " B: no crossover in the scenario's range\n";
}

}  // namespace

int crossover_command(const std::vector<std::string>& args) {
  po::options_description opts(
      "usage: xover crossover SCENARIO --between A,B [--platform FILE] [--json]\n\n"
      "Finds, by bisection on whole sizes within the scenario's size range, the first size at which\n"
      "protocol B's simulated ping-pong time drops below A's, and prints it next to the selection\n"
      "engine's threshold for the same two protocols (with the scenario's settings, and unbiased:\n"
      "rndv_perf_diff=0).\n\noptions");
  opts.add_options()("help,h", "this help")("scenario", po::value<std::string>(), "scenario file")(
      "between", po::value<std::string>(), "two protocols, A,B: A wins below the crossover")(
      "platform,p", po::value<std::string>(), "use this platform instead of the scenario's")("json", "print JSON");
  po::positional_options_description positional;
  positional.add("scenario", 1);
  po::variables_map vm;
  if (const auto status = parse_options("crossover", args, opts, positional, vm))
    return *status;
  if (!vm.count("scenario") || !vm.count("between")) {
    std::cerr << "xover crossover: needs a scenario and --between A,B (see xover crossover --help)\n";
    return kExitBadInput;
  }
  const std::string between = vm["between"].as<std::string>();
  const auto comma = between.find(',');
  const std::string a = between.substr(0, comma);
  const std::string b = comma == std::string::npos ? "" : between.substr(comma + 1);
  for (const std::string& name : {a, b}) {
    if (name.empty() || !protocol_name_known(name)) {
      std::cerr << "xover crossover: --between " << between << ": '" << name << "' is not a protocol\n";
      return kExitBadInput;
    }
  }
  try {
    Scenario scenario = load_scenario(vm["scenario"].as<std::string>());
    if (vm.count("platform"))
      scenario.platform = vm["platform"].as<std::string>();
    const Answer answer = find_crossover(scenario, a, b);
    if (vm.count("json"))
      print_json(answer);
    else
      print_text(answer, scenario);
  } catch (const sim::PlatformError& e) {
    std::cerr << "xover crossover: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const ScenarioError& e) {
    std::cerr << "xover crossover: " << e.what() << "\n";
    return kExitBadInput;
  }
  return 0;
}

}  // namespace xover::tools
