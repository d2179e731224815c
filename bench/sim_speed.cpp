// sim_speed: simulated messages per wall second, xover against bare SimGrid.
//
//   sim_speed [--quick] [--messages N] [--ranks P,P,...] [--pairs N] [--no-callgrind]
//
// For a two-rank ping-pong of 8-byte messages and for pairwise exchanges of
// 8-byte messages among P ranks, runs the workload through xover's protocol
// core and as a bare S4U program (bench/cases.hpp), each in a process of its
// own, in interleaved pairs (xover then bare, bare then xover, ...), and
// prints each side's median wall time, the simulated messages per wall
// second, the median of the pairs' ratios with their range, and the
// simulated time of each, which must agree; then the targets, met or missed
// on the median, and callgrind's instructions per message of each side
// (skipped, saying why, without valgrind).
// Exit status: 0 when every message arrived and the simulated times agree,
// 1 otherwise, 2 for a bad command line.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "base/child.hpp"
#include "bench/cases.hpp"
#include "bench/cluster_file.hpp"
#include "bench/instructions.hpp"
#include "bench/pairs.hpp"

namespace xover::bench {
namespace {

/// Simulated times of the two programs may differ this much, relatively:
/// they pay the same costs, but bare SimGrid takes messages in put order and
/// xover in arrival order, and xover copies an unexpected message twice.
constexpr double kSimTolerance = 1e-3;
/// The targets: issue 29's ratios to bare SimGrid (ping-pong, and the
/// pairwise exchange at P = 1024 with its peak memory), and the earlier
/// bound on the P = 1024 run's wall time.
constexpr double kPingPongTarget = 1.1;
constexpr double kBigRunRatioTarget = 1.3;
constexpr double kBigRunMemoryTarget = 2.0;
constexpr double kBigRunTarget_s = 30;
/// What callgrind counts (a run under callgrind is some fifty times slower).
constexpr std::uint64_t kCountedPingPong = 20'000;
constexpr unsigned kCountedRanks = 256;

struct Options {
  std::uint64_t pingpong_messages = 200'000;
  std::vector<unsigned> ranks{64, 256, 1024};
  unsigned pairs = kMinPairs;
  bool run_xover = true;
  bool run_bare = true;
  bool callgrind = true;
  std::string one;  ///< "SIDE:CASE": run that alone in this process (what callgrind counts)
};

struct Case {
  std::string name;
  unsigned hosts = 2;
  std::function<Measurement(const std::string&)> xover;
  std::function<Measurement(const std::string&)> bare;
};

struct Row {
  std::string name;
  std::vector<Measurement> xover;  ///< one per pair, in run order
  std::vector<Measurement> bare;
  PairRatios wall;    ///< xover's wall time over bare's, pair by pair
  PairRatios memory;  ///< xover's peak memory over bare's, pair by pair
  std::string check;  ///< "ok" or what is wrong
};

const char* const kUsage =
    "usage: sim_speed [--quick] [--messages N] [--ranks P,P,...] [--pairs N] [--only xover|bare] [--no-callgrind]\n"
    "  --quick        small sizes, a few seconds: 20000 ping-pong messages, P = 16, 64\n"
    "  --messages N   ping-pong messages (even; default 200000)\n"
    "  --ranks LIST   ranks of the pairwise exchanges (default 64,256,1024)\n"
    "  --pairs N      interleaved pairs of runs per case (default 5; fewer: indicative only)\n"
    "  --only SIDE    run one program only, to profile it (no ratio, no check)\n"
    "  --no-callgrind skip the instruction counts (they take about a minute under valgrind)\n"
    "  --one SIDE:CASE  run one side (xover, bare) of one case (ping-pong, pairwise at the first\n"
    "                 --ranks) in this process and print nothing: what callgrind counts\n";

[[noreturn]] void usage_error(const std::string& what) {
  std::fprintf(stderr, "sim_speed: %s\n%s", what.c_str(), kUsage);
  std::exit(2);
}

unsigned long long parse_count(std::string_view text, const char* option) {
  char* end = nullptr;
  const std::string s(text);
  const unsigned long long value = std::strtoull(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0' || s[0] == '-' || value == 0)
    usage_error(std::string(option) + ": expected a positive whole number, got '" + s + "'");
  return value;
}

Options parse(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const auto value = [&]() -> std::string_view {
      if (i + 1 >= argc)
        usage_error(std::string(arg) + " needs a value");
      return argv[++i];
    };
    if (arg == "--quick") {
      options.pingpong_messages = 20'000;
      options.ranks = {16, 64};
    } else if (arg == "--messages") {
      options.pingpong_messages = parse_count(value(), "--messages");
      if (options.pingpong_messages % 2 != 0)
        usage_error("--messages: a ping-pong has an even number of messages");
    } else if (arg == "--ranks") {
      options.ranks.clear();
      std::string_view list = value();
      while (!list.empty()) {
        const auto comma = list.find(',');
        const auto p = parse_count(list.substr(0, comma), "--ranks");
        if (p < 2 || p > 1'000'000)
          usage_error("--ranks: a pairwise exchange needs 2 to 1000000 ranks");
        options.ranks.push_back(static_cast<unsigned>(p));
        list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
      }
    } else if (arg == "--pairs") {
      const auto n = parse_count(value(), "--pairs");
      if (n > 100)
        usage_error("--pairs: at most 100");
      options.pairs = static_cast<unsigned>(n);
    } else if (arg == "--only") {
      const std::string_view side = value();
      if (side != "xover" && side != "bare")
        usage_error("--only: expected xover or bare, got '" + std::string(side) + "'");
      options.run_xover = side == "xover";
      options.run_bare = side == "bare";
    } else if (arg == "--no-callgrind") {
      options.callgrind = false;
    } else if (arg == "--one") {
      options.one = value();
      if (options.one != "xover:ping-pong" && options.one != "bare:ping-pong" && options.one != "xover:pairwise" &&
          options.one != "bare:pairwise")
        usage_error("--one: expected xover|bare:ping-pong|pairwise, got '" + options.one + "'");
    } else if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else {
      usage_error("unknown argument '" + std::string(arg) + "'");
    }
  }
  return options;
}

std::vector<Case> cases(const Options& options) {
  std::vector<Case> out;
  const std::uint64_t round_trips = options.pingpong_messages / 2;
  out.push_back({"ping-pong", 2, [=](const std::string& f) { return xover_pingpong(f, round_trips); },
                 [=](const std::string& f) { return bare_pingpong(f, round_trips); }});
  for (unsigned p : options.ranks)
    out.push_back({"pairwise P=" + std::to_string(p), p, [=](const std::string& f) { return xover_pairwise(f, p); },
                   [=](const std::string& f) { return bare_pairwise(f, p); }});
  return out;
}

/// Runs one side in a child; a failure becomes a measurement with a note.
Measurement measure(const std::function<Measurement(const std::string&)>& side, const std::string& platform) {
  try {
    const std::string text = in_child([&] { return side(platform).serialize(); });
    if (const std::optional<std::string> error = child_error(text))
      throw std::runtime_error(*error);
    return Measurement::parse(text);
  } catch (const std::exception& error) {
    Measurement failed;
    failed.errors = 1;
    failed.note = error.what();
    return failed;
  }
}

std::string check(const Row& row) {
  for (const auto* side : {&row.xover, &row.bare})
    for (const Measurement& m : *side)
      if (m.errors)
        return std::string(side == &row.xover ? "xover: " : "bare: ") + std::to_string(m.errors) + " errors; " + m.note;
  for (const Measurement& x : row.xover)
    for (const Measurement& b : row.bare) {
      if (x.messages != b.messages)
        return "message counts differ";
      const double diff = std::abs(x.sim_s - b.sim_s) / std::max(b.sim_s, 1e-300);
      if (!(diff <= kSimTolerance)) {
        char text[96];
        std::snprintf(text, sizeof text, "simulated times differ by %.3g%%", 100 * diff);
        return text;
      }
    }
  return "ok";
}

/// The median of one figure over a side's runs.
double median_of(const std::vector<Measurement>& runs, double (*figure)(const Measurement&)) {
  std::vector<double> values;
  for (const Measurement& m : runs)
    values.push_back(figure(m));
  return median(values);
}
double wall_of(const Measurement& m) { return m.wall_s(); }
double load_of(const Measurement& m) { return m.load_s; }
double setup_of(const Measurement& m) { return m.setup_s; }
double run_of(const Measurement& m) { return m.run_s; }
double mib_of(const Measurement& m) { return static_cast<double>(m.max_rss_kib) / 1024; }

/// Messages per wall second of a side's median run.
double rate(const std::vector<Measurement>& runs) {
  const double wall = median_of(runs, wall_of);
  return wall > 0 ? static_cast<double>(runs.front().messages) / wall : 0;
}

void print_header() {
  std::printf("%-18s %9s %5s %10s %10s %12s %12s %-18s %14s %14s  %s\n", "case", "messages", "pairs", "xover s",
              "bare s", "xover msg/s", "bare msg/s", "ratio (range)", "xover sim s", "bare sim s", "check");
}

void print_row(const Row& r) {
  const auto messages = r.xover.empty() ? r.bare.front().messages : r.xover.front().messages;
  std::printf("%-18s %9llu %5zu %10.3f %10.3f %12.0f %12.0f %-18s %14.9f %14.9f  %s\n", r.name.c_str(),
              static_cast<unsigned long long>(messages), std::max(r.xover.size(), r.bare.size()),
              r.xover.empty() ? 0.0 : median_of(r.xover, wall_of), r.bare.empty() ? 0.0 : median_of(r.bare, wall_of),
              r.xover.empty() ? 0.0 : rate(r.xover), r.bare.empty() ? 0.0 : rate(r.bare),
              r.wall.empty() ? "-" : r.wall.text().c_str(), r.xover.empty() ? 0.0 : r.xover.front().sim_s,
              r.bare.empty() ? 0.0 : r.bare.front().sim_s, r.check.c_str());
  std::fflush(stdout);
}

void print_breakdown(const std::vector<Row>& rows) {
  std::printf("\nwhere the wall time goes (medians, seconds; load: platform file, setup: network and actors, run: "
              "Engine::run)\n");
  std::printf("%-18s %8s %8s %9s %9s %8s %8s %9s %9s\n", "case", "x load", "x setup", "x run", "x MiB", "b load",
              "b setup", "b run", "b MiB");
  const auto at = [](const std::vector<Measurement>& runs, double (*figure)(const Measurement&)) {
    return runs.empty() ? 0.0 : median_of(runs, figure);
  };
  for (const Row& r : rows)
    std::printf("%-18s %8.3f %8.3f %9.3f %9.1f %8.3f %8.3f %9.3f %9.1f\n", r.name.c_str(), at(r.xover, load_of),
                at(r.xover, setup_of), at(r.xover, run_of), at(r.xover, mib_of), at(r.bare, load_of),
                at(r.bare, setup_of), at(r.bare, run_of), at(r.bare, mib_of));
}

/// The simulated messages per wall second of each pairwise exchange.
void print_rates(const std::vector<Row>& rows) {
  std::printf("\n");
  for (const Row& r : rows)
    if (r.name.starts_with("pairwise") && !r.xover.empty() && !r.bare.empty())
      std::printf("messages per wall second, %s: xover %.0f, bare SimGrid %.0f (median runs of %zu pairs)\n",
                  r.name.c_str(), rate(r.xover), rate(r.bare), r.xover.size());
}

void print_targets(const std::vector<Row>& rows) {
  std::printf("\n");
  for (const Row& r : rows) {
    if (r.wall.empty())
      continue;
    if (r.name == "ping-pong")
      std::printf("target: ping-pong at most %.1fx bare SimGrid's wall time: %s\n", kPingPongTarget,
                  r.wall.verdict(kPingPongTarget, true).c_str());
    if (r.name != "pairwise P=1024")
      continue;
    std::printf("target: pairwise P=1024 at most %.1fx bare SimGrid's wall time: %s\n", kBigRunRatioTarget,
                r.wall.verdict(kBigRunRatioTarget, true).c_str());
    std::printf("target: pairwise P=1024 in at most %.0fx bare SimGrid's memory: %s; %.0f MiB against %.0f\n",
                kBigRunMemoryTarget, r.memory.verdict(kBigRunMemoryTarget, true).c_str(),
                median_of(r.xover, mib_of), median_of(r.bare, mib_of));
    const double wall = median_of(r.xover, wall_of);
    std::printf("target: pairwise P=1024 under %.0f s: %s (median %.1f s)\n", kBigRunTarget_s,
                wall < kBigRunTarget_s ? "met" : "MISSED", wall);
  }
}

/// Callgrind's instructions per message of each side, Engine::run() only.
void print_instructions(const Options& options) {
  const bool quick = options.ranks.size() == 2 && options.ranks.back() <= 64;
  const std::uint64_t pingpong = quick ? kCountedPingPong / 10 : kCountedPingPong;
  const unsigned ranks = quick ? 64 : kCountedRanks;
  std::printf("\ncallgrind instructions per message, Engine::run() only (the stable figure: it does not move "
              "with the machine's load)\n");
  if (const std::string why = callgrind_unavailable(); !why.empty()) {
    std::printf("callgrind: skipped: %s\n", why.c_str());
    return;
  }
  std::printf("%-18s %9s %14s %14s %7s\n", "case", "messages", "xover instr", "bare instr", "ratio");
  const auto row = [&](const std::string& name, const std::string& which, std::vector<std::string> args,
                       std::uint64_t messages) {
    args.insert(args.begin(), {"--one", "xover:" + which});
    const InstructionCount x = count_instructions(args, messages);
    args[1] = "bare:" + which;
    const InstructionCount b = count_instructions(args, messages);
    if (!x.error.empty() || !b.error.empty()) {
      std::printf("%-18s %9llu  callgrind failed: %s\n", name.c_str(), static_cast<unsigned long long>(messages),
                  (x.error.empty() ? b.error : x.error).c_str());
      return;
    }
    std::printf("%-18s %9llu %14.0f %14.0f %7.2f\n", name.c_str(), static_cast<unsigned long long>(messages),
                x.per_message, b.per_message, x.per_message / b.per_message);
    std::fflush(stdout);
  };
  row("ping-pong", "ping-pong", {"--messages", std::to_string(pingpong)}, pingpong);
  row("pairwise P=" + std::to_string(ranks), "pairwise", {"--ranks", std::to_string(ranks)},
      std::uint64_t{ranks} * (ranks - 1));
}

/// --one: one side of one case in this process, for callgrind.
int run_one(const Options& options) {
  const bool pairwise = options.one.ends_with(":pairwise");
  const bool xover = options.one.starts_with("xover:");
  const unsigned ranks = options.ranks.front();
  const ClusterFile platform(pairwise ? static_cast<int>(ranks) : 2);
  const std::uint64_t round_trips = options.pingpong_messages / 2;
  const Measurement m = pairwise ? (xover ? xover_pairwise(platform.path(), ranks) : bare_pairwise(platform.path(), ranks))
                                 : (xover ? xover_pingpong(platform.path(), round_trips)
                                          : bare_pingpong(platform.path(), round_trips));
  return m.errors == 0 ? 0 : 1;
}

/// One pair of runs of case `c`, xover first or bare first, into `row`.
void run_pair(const Options& options, const Case& c, const std::string& platform, bool xover_first, Row& row) {
  Measurement x;
  Measurement b;
  for (const bool xover_turn : {xover_first, !xover_first}) {
    if (xover_turn && options.run_xover)
      row.xover.push_back(x = measure(c.xover, platform));
    if (!xover_turn && options.run_bare)
      row.bare.push_back(b = measure(c.bare, platform));
  }
  if (!options.run_xover || !options.run_bare || x.wall_s() <= 0 || b.wall_s() <= 0)
    return;
  row.wall.add(x.wall_s() / b.wall_s());
  row.memory.add(static_cast<double>(x.max_rss_kib) / static_cast<double>(std::max(b.max_rss_kib, 1L)));
}

int run(const Options& options) {
  std::vector<Row> rows;
  print_header();
  for (const Case& c : cases(options)) {
    const ClusterFile platform(static_cast<int>(c.hosts));
    Row row{c.name, {}, {}, {}, {}, ""};
    // A B, B A, A B, ...: a slow spell of the machine falls on both sides.
    for (unsigned i = 0; i < options.pairs; ++i)
      run_pair(options, c, platform.path(), i % 2 == 0, row);
    row.check = options.run_xover && options.run_bare ? check(row) : "not compared";
    print_row(row);
    rows.push_back(std::move(row));
  }
  print_breakdown(rows);
  if (options.run_xover && options.run_bare) {
    print_rates(rows);
    print_targets(rows);
    if (options.callgrind)
      print_instructions(options);
  }
  for (const Row& r : rows)
    if (r.check != "ok" && r.check != "not compared")
      return 1;
  return 0;
}

}  // namespace
}  // namespace xover::bench

int main(int argc, char** argv) {
  const xover::bench::Options options = xover::bench::parse(argc, argv);
  return options.one.empty() ? xover::bench::run(options) : xover::bench::run_one(options);
}
