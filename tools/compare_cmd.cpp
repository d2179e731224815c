// xover compare: a simulated run against a hardware run of the same
// scenario — relative errors, crossovers, and whether the thresholds chosen
// in simulation are the ones measured (compare.hpp has the definitions).
#include <boost/program_options.hpp>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <sstream>

#include "tools/commands.hpp"
#include "tools/compare.hpp"
#include "tools/json.hpp"

namespace po = boost::program_options;

namespace xover::tools {
namespace {

/// The table's columns: "+12.5%" for a relative error, "12.5%" for its size.
constexpr PercentFormat kSignedColumn{.sign = true, .space = false};
constexpr PercentFormat kColumn{.space = false};

// "38093 B (37.2K)" for an interpolated size.
std::string approx_size(double n) {
  char buf[64];
  const double rounded = std::round(n);
  if (rounded < 1024)
    std::snprintf(buf, sizeof buf, "%.0f B", rounded);
  else if (rounded < 1024.0 * 1024)
    std::snprintf(buf, sizeof buf, "%.0f B (%.1fK)", rounded, rounded / 1024);
  else
    std::snprintf(buf, sizeof buf, "%.0f B (%.2fM)", rounded, rounded / (1024.0 * 1024));
  return buf;
}

std::string size_list(const std::vector<Bytes>& sizes) {
  if (sizes.empty())
    return "-";
  if (sizes.size() == 1)
    return format_size(sizes[0]);
  return format_size(sizes.front()) + ".." + format_size(sizes.back()) + " (" + std::to_string(sizes.size()) +
         " sizes)";
}

std::string cell(const std::string& text, int width) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%-*s", width, text.c_str());
  return buf;
}

// A table line without the padding of its last cell.
std::string trimmed(std::string line) {
  line.erase(line.find_last_not_of(' ') + 1);
  return line + "\n";
}

void print_crossovers(std::ostream& os, const char* which, const std::vector<Crossover>& crossovers) {
  if (crossovers.empty())
    os << "  " << which << ": none\n";
  for (const Crossover& c : crossovers)
    os << "  " << which << ": " << c.faster_below << " -> " << c.faster_above << " at " << approx_size(c.size)
       << ", between " << format_size(c.last_below) << " and " << format_size(c.first_above) << "\n";
}

void print_text(std::ostream& os, const ResultsFile& sim, const ResultsFile& hw, const Comparison& c) {
  os << "# " << sim.scenario << ": " << sim.workload << ", " << sim.backend << " on " << sim.platform << " ("
     << sim.file << ") against " << hw.backend << " on " << hw.platform << " (" << hw.file << ")\n"
     << "# rel err = (sim - hw) / hw on the median time, rows matched on (protocol, size)\n\n";

  os << cell("protocol", 20) << cell("points", 8) << cell("median |rel|", 14) << cell("worst |rel|", 13)
     << cell("at", 7) << cell("only in sim", 22) << "only in hw\n";
  for (const ProtocolErrors& p : c.protocols) {
    const bool any = p.matched > 0;
    os << cell(p.protocol, 20) << cell(std::to_string(p.matched), 8)
       << cell(any ? format_percent(p.median_abs_rel, kColumn) : "-", 14)
       << cell(any ? format_percent(p.worst_abs_rel, kColumn) : "-", 13)
       << cell(any ? format_size(p.worst_size) : "-", 7) << cell(size_list(p.only_sim), 22) << size_list(p.only_hw)
       << "\n";
  }

  std::map<Bytes, std::map<std::string, const PointError*>> by_size;
  for (const PointError& p : c.points)
    by_size[p.size][p.protocol] = &p;
  bool chose_differently = false;
  std::string header = cell("size", 8);
  for (const ProtocolErrors& p : c.protocols)
    if (p.matched)
      header += cell(p.protocol, 20);
  os << "\nrel err per size\n" << trimmed(header);
  for (const auto& [size, row] : by_size) {
    std::string line = cell(format_size(size), 8);
    for (const ProtocolErrors& p : c.protocols) {
      if (!p.matched)
        continue;
      const auto it = row.find(p.protocol);
      std::string text = "-";
      if (it != row.end()) {
        text = format_percent(it->second->rel, kSignedColumn);
        if (it->second->sim_selected != it->second->hw_selected) {
          text += " *";
          chose_differently = true;
        }
      }
      line += cell(text, 20);
    }
    os << trimmed(line);
  }
  if (chose_differently)
    os << "* simulation and hardware ran different protocols at this size\n";

  os << "\ncrossovers (the second protocol is faster above the size)\n";
  print_crossovers(os, "sim", c.sim_crossovers);
  print_crossovers(os, "hw ", c.hw_crossovers);

  char limit[32];
  std::snprintf(limit, sizeof limit, "%.2f", c.max_factor);
  os << "\nthresholds: the simulation's auto hand-overs against the hardware's crossovers (limit " << limit
     << "x)\n";
  if (c.thresholds.empty())
    os << "  none: the simulation file's auto curve never changes protocol (or has no auto curve)\n";
  for (const ThresholdCheck& t : c.thresholds) {
    os << "  " << t.sim.from << " -> " << t.sim.to << ": sim between " << format_size(t.sim.last_from) << " and "
       << format_size(t.sim.first_to) << " (estimate " << approx_size(t.sim.estimate()) << "); ";
    if (!t.hw) {
      os << "hw: not measured, " << t.unmeasured << "\n";
      continue;
    }
    char factor[32];
    std::snprintf(factor, sizeof factor, "%.3f", *t.factor);
    os << "hw at " << approx_size(t.hw->size);
    if (t.hw_crossings > 1)
      os << " (nearest of " << t.hw_crossings << " crossings)";
    os << ", factor " << factor << (t.within ? " within" : " NOT within") << "\n";
  }
}

/// Crossings as a JSON array.
void json_crossovers(JsonWriter& j, const std::vector<Crossover>& list) {
  j.begin_array();
  for (const Crossover& x : list) {
    j.begin_object();
    j.key("faster_below").value(x.faster_below);
    j.key("faster_above").value(x.faster_above);
    j.key("size").value(x.size);
    j.key("t_us").value(x.t_us);
    j.key("between").begin_array().value(x.last_below).value(x.first_above).end_array();
    j.end_object();
  }
  j.end_array();
}

/// Sizes as a JSON array.
void json_sizes(JsonWriter& j, const std::vector<Bytes>& list) {
  j.begin_array();
  for (Bytes n : list)
    j.value(n);
  j.end_array();
}

/// Every matched point's error.
void json_points(JsonWriter& j, const Comparison& c) {
  j.key("points").begin_array();
  for (const PointError& p : c.points) {
    j.begin_object();
    j.key("protocol").value(p.protocol);
    j.key("size").value(p.size);
    j.key("sim_us").value(p.sim_us);
    j.key("hw_us").value(p.hw_us);
    j.key("rel").value(p.rel);
    j.key("sim_selected").value(p.sim_selected);
    j.key("hw_selected").value(p.hw_selected);
    j.end_object();
  }
  j.end_array();
}

/// Each protocol's errors and the sizes only one side has.
void json_protocols(JsonWriter& j, const Comparison& c) {
  j.key("protocols").begin_array();
  for (const ProtocolErrors& p : c.protocols) {
    j.begin_object();
    j.key("protocol").value(p.protocol);
    j.key("matched").value(std::uint64_t(p.matched));
    j.key("median_abs_rel").value(p.matched ? std::optional<double>(p.median_abs_rel) : std::nullopt);
    j.key("worst_abs_rel").value(p.matched ? std::optional<double>(p.worst_abs_rel) : std::nullopt);
    j.key("worst_rel").value(p.matched ? std::optional<double>(p.worst_rel) : std::nullopt);
    j.key("worst_size").value(p.matched ? std::optional<Bytes>(p.worst_size) : std::nullopt);
    j.key("only_sim");
    json_sizes(j, p.only_sim);
    j.key("only_hw");
    json_sizes(j, p.only_hw);
    j.end_object();
  }
  j.end_array();
}

/// Each simulated threshold against the measured crossover.
void json_thresholds(JsonWriter& j, const Comparison& c) {
  j.key("thresholds").begin_array();
  for (const ThresholdCheck& t : c.thresholds) {
    j.begin_object();
    j.key("from").value(t.sim.from);
    j.key("to").value(t.sim.to);
    j.key("between").begin_array().value(t.sim.last_from).value(t.sim.first_to).end_array();
    j.key("estimate").value(t.sim.estimate());
    j.key("hw_crossover").value(t.hw ? std::optional<double>(t.hw->size) : std::nullopt);
    j.key("hw_crossings").value(std::uint64_t(t.hw_crossings));
    j.key("factor").value(t.factor);
    j.key("within").value(t.within);
    j.key("unmeasured").value(t.unmeasured);
    j.end_object();
  }
  j.end_array();
}

void print_json(std::ostream& os, const ResultsFile& sim, const ResultsFile& hw, const Comparison& c) {
  JsonWriter j;
  j.begin_object();
  j.key("scenario").value(sim.scenario);
  j.key("workload").value(sim.workload);
  for (const ResultsFile* f : {&sim, &hw}) {
    j.key(f == &sim ? "sim" : "hw").begin_object();
    j.key("file").value(f->file);
    j.key("backend").value(f->backend);
    j.key("platform").value(f->platform);
    j.end_object();
  }
  json_points(j, c);
  json_protocols(j, c);
  j.key("crossovers").begin_object();
  j.key("sim");
  json_crossovers(j, c.sim_crossovers);
  j.key("hw");
  json_crossovers(j, c.hw_crossovers);
  j.end_object();
  j.key("max_threshold_factor").value(c.max_factor);
  json_thresholds(j, c);
  j.end_object();
  os << j.str();
}

// The gates of --max-median-error and --max-threshold-factor: what missed,
// one line each; empty when everything held.
std::vector<std::string> misses(const Comparison& c, const po::variables_map& vm) {
  std::vector<std::string> out;
  if (vm.count("max-median-error")) {
    const double limit = vm["max-median-error"].as<double>();
    for (const ProtocolErrors& p : c.protocols)
      if (p.matched && p.median_abs_rel > limit)
        out.push_back(p.protocol + ": median |rel err| " + format_percent(p.median_abs_rel, kColumn) + " above " +
                      format_percent(limit, kColumn));
  }
  if (vm.count("max-threshold-factor")) {
    std::size_t checked = 0;
    for (const ThresholdCheck& t : c.thresholds) {
      checked += t.factor ? 1 : 0;
      if (t.factor && !t.within) {
        std::ostringstream line;
        line << t.sim.from << " -> " << t.sim.to << ": factor " << *t.factor << " above " << c.max_factor;
        out.push_back(line.str());
      }
    }
    if (checked == 0)
      out.push_back("no simulated threshold has a measured crossover to be checked against");
  }
  return out;
}

}  // namespace

int compare_command(const std::vector<std::string>& args) {
  po::options_description opts(
      "usage: xover compare SIM.csv HW.csv [--json] [--max-median-error X] [--max-threshold-factor F]\n\n"
      "Compares a simulated run with a hardware run of the same scenario. Rows are matched on\n"
      "(protocol, size); the relative error is (sim - hw) / hw on the median time. Prints, per\n"
      "protocol, the median and worst |rel err| and the sizes found in one file only; the rel err\n"
      "per size; the crossovers of the forced curves in each file; and, for every size range where\n"
      "the simulation's auto curve changes protocol, whether its estimate (the log-midpoint of the\n"
      "two sampled sizes) is within a factor F (1.25) of the hardware's crossover of those two\n"
      "protocols. Exits 0 when it ran, 1 when a --max-* limit is missed, 2 on bad input.\n\noptions");
  opts.add_options()("help,h", "this help")("sim", po::value<std::string>(), "simulated results CSV")(
      "hw", po::value<std::string>(), "hardware results CSV")("json", "print JSON")(
      "max-median-error", po::value<double>(),
      "exit 1 when a protocol's median |rel err| is above X (a fraction: 0.1 for 10%)")(
      "max-threshold-factor", po::value<double>(),
      "the threshold factor limit F (default 1.25); given, exit 1 when a checked threshold misses it or none "
      "can be checked");
  po::positional_options_description positional;
  positional.add("sim", 1).add("hw", 1);
  po::variables_map vm;
  if (const auto status = parse_options("compare", args, opts, positional, vm))
    return *status;
  if (!vm.count("sim") || !vm.count("hw")) {
    std::cerr << "xover compare: needs two results files, SIM.csv HW.csv (see xover compare --help)\n";
    return kExitBadInput;
  }
  const double max_factor = vm.count("max-threshold-factor") ? vm["max-threshold-factor"].as<double>() : 1.25;
  if (!(max_factor >= 1) || !std::isfinite(max_factor)) {
    std::cerr << "xover compare: --max-threshold-factor must be a number of at least 1\n";
    return kExitBadInput;
  }
  if (vm.count("max-median-error")) {
    const double limit = vm["max-median-error"].as<double>();
    if (!(limit >= 0) || !std::isfinite(limit)) {
      std::cerr << "xover compare: --max-median-error must be a non-negative fraction (0.1 for 10%)\n";
      return kExitBadInput;
    }
  }

  try {
    const ResultsFile sim = read_results_csv(vm["sim"].as<std::string>());
    const ResultsFile hw = read_results_csv(vm["hw"].as<std::string>());
    const Comparison c = compare_results(sim, hw, max_factor);
    if (vm.count("json"))
      print_json(std::cout, sim, hw, c);
    else
      print_text(std::cout, sim, hw, c);
    const std::vector<std::string> missed = misses(c, vm);
    for (const std::string& m : missed)
      std::cerr << "xover compare: missed: " << m << "\n";
    return missed.empty() ? 0 : 1;
  } catch (const std::invalid_argument& e) {
    std::cerr << "xover compare: " << e.what() << "\n";
    return kExitBadInput;
  }
}

}  // namespace xover::tools
