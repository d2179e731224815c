// sim_speed: simulated messages per wall second, xover against bare SimGrid.
//
//   sim_speed [--quick] [--messages N] [--ranks P,P,...] [--no-callgrind]
//
// For a two-rank ping-pong of 8-byte messages and for pairwise exchanges of
// 8-byte messages among P ranks, runs the workload through xover's protocol
// core and as a bare S4U program (bench/cases.hpp), each in a process of its
// own, and prints the wall time of each, the simulated messages per wall
// second and their ratio, and the simulated time of each, which must agree;
// then the targets, met or missed, and callgrind's instructions per message
// of each side (skipped, saying why, without valgrind).
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

namespace xover::bench {
namespace {

/// Simulated times of the two programs may differ this much, relatively:
/// they pay the same costs, but bare SimGrid takes messages in put order and
/// xover in arrival order, and xover copies an unexpected message twice.
constexpr double kSimTolerance = 1e-3;
/// The targets: issue 16's ratios to bare SimGrid (ping-pong, and the
/// pairwise exchange at P = 1024 with its peak memory), and the earlier
/// bound on the P = 1024 run's wall time.
constexpr double kPingPongTarget = 1.1;
constexpr double kBigRunRatioTarget = 1.3;
constexpr double kBigRunMemoryTarget = 3.0;
constexpr double kBigRunTarget_s = 30;
/// What callgrind counts (a run under callgrind is some fifty times slower).
constexpr std::uint64_t kCountedPingPong = 20'000;
constexpr unsigned kCountedRanks = 256;

struct Options {
  std::uint64_t pingpong_messages = 200'000;
  std::vector<unsigned> ranks{64, 256, 1024};
  unsigned repeat = 3;
  bool run_xover = true;
  bool run_bare = true;
  bool callgrind = true;
  std::string one;  ///< "SIDE:CASE": run that alone in this process (what callgrind counts)
};

/// Repetitions stop once one run of a side has taken this long: a long run
/// is less disturbed, relatively, by what else the machine does.
constexpr double kLongRun_s = 10;

struct Case {
  std::string name;
  unsigned hosts = 2;
  std::function<Measurement(const std::string&)> xover;
  std::function<Measurement(const std::string&)> bare;
};

struct Row {
  std::string name;
  unsigned runs = 0;
  Measurement xover;
  Measurement bare;
  std::string check;  ///< "ok" or what is wrong
};

const char* const kUsage =
    "usage: sim_speed [--quick] [--messages N] [--ranks P,P,...] [--repeat N] [--only xover|bare] [--no-callgrind]\n"
    "  --quick        small sizes, a few seconds: 20000 ping-pong messages, P = 16, 64\n"
    "  --messages N   ping-pong messages (even; default 200000)\n"
    "  --ranks LIST   ranks of the pairwise exchanges (default 64,256,1024)\n"
    "  --repeat N     run each side up to N times (default 3) and keep the fastest run;\n"
    "                 a case stops repeating once a run took over 10 s\n"
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
    } else if (arg == "--repeat") {
      const auto n = parse_count(value(), "--repeat");
      if (n > 100)
        usage_error("--repeat: at most 100");
      options.repeat = static_cast<unsigned>(n);
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
  if (row.xover.errors)
    return "xover: " + std::to_string(row.xover.errors) + " errors; " + row.xover.note;
  if (row.bare.errors)
    return "bare: " + std::to_string(row.bare.errors) + " errors; " + row.bare.note;
  if (row.xover.messages != row.bare.messages)
    return "message counts differ";
  const double diff = std::abs(row.xover.sim_s - row.bare.sim_s) / std::max(row.bare.sim_s, 1e-300);
  if (!(diff <= kSimTolerance)) {
    char text[96];
    std::snprintf(text, sizeof text, "simulated times differ by %.3g%%", 100 * diff);
    return text;
  }
  return "ok";
}

double rate(const Measurement& m) {
  return m.wall_s() > 0 ? static_cast<double>(m.messages) / m.wall_s() : 0;
}

void print_header() {
  std::printf("%-18s %9s %5s %10s %10s %12s %12s %7s %14s %14s  %s\n", "case", "messages", "runs", "xover s", "bare s",
              "xover msg/s", "bare msg/s", "ratio", "xover sim s", "bare sim s", "check");
}

void print_row(const Row& r) {
  std::printf("%-18s %9llu %5u %10.3f %10.3f %12.0f %12.0f %7.2f %14.9f %14.9f  %s\n", r.name.c_str(),
              static_cast<unsigned long long>(std::max(r.xover.messages, r.bare.messages)), r.runs, r.xover.wall_s(), r.bare.wall_s(), rate(r.xover),
              rate(r.bare), r.bare.wall_s() > 0 ? r.xover.wall_s() / r.bare.wall_s() : 0.0, r.xover.sim_s,
              r.bare.sim_s, r.check.c_str());
  std::fflush(stdout);
}

void print_breakdown(const std::vector<Row>& rows) {
  std::printf("\nwhere the wall time goes (seconds; load: platform file, setup: network and actors, run: Engine::run)\n");
  std::printf("%-18s %8s %8s %9s %9s %8s %8s %9s %9s\n", "case", "x load", "x setup", "x run", "x MiB", "b load",
              "b setup", "b run", "b MiB");
  for (const Row& r : rows)
    std::printf("%-18s %8.3f %8.3f %9.3f %9.1f %8.3f %8.3f %9.3f %9.1f\n", r.name.c_str(), r.xover.load_s,
                r.xover.setup_s, r.xover.run_s, r.xover.max_rss_kib / 1024.0, r.bare.load_s, r.bare.setup_s,
                r.bare.run_s, r.bare.max_rss_kib / 1024.0);
}

const char* verdict(bool met) {
  return met ? "met" : "MISSED";
}

void print_targets(const std::vector<Row>& rows) {
  std::printf("\n");
  for (const Row& r : rows) {
    if (r.bare.wall_s() <= 0)
      continue;
    const double ratio = r.xover.wall_s() / r.bare.wall_s();
    if (r.name == "ping-pong")
      std::printf("target: ping-pong at most %.1fx bare SimGrid: %s (%.2f)\n", kPingPongTarget,
                  verdict(ratio <= kPingPongTarget), ratio);
    if (r.name != "pairwise P=1024")
      continue;
    const double memory = static_cast<double>(r.xover.max_rss_kib) / static_cast<double>(std::max(r.bare.max_rss_kib, 1L));
    std::printf("target: pairwise P=1024 at most %.1fx bare SimGrid: %s (%.2f)\n", kBigRunRatioTarget,
                verdict(ratio <= kBigRunRatioTarget), ratio);
    std::printf("target: pairwise P=1024 in at most %.0fx bare SimGrid's memory: %s (%.2f: %.0f MiB against %.0f)\n",
                kBigRunMemoryTarget, verdict(memory <= kBigRunMemoryTarget), memory, r.xover.max_rss_kib / 1024.0,
                r.bare.max_rss_kib / 1024.0);
    std::printf("target: pairwise P=1024 under %.0f s: %s (%.1f s)\n", kBigRunTarget_s,
                verdict(r.xover.wall_s() < kBigRunTarget_s), r.xover.wall_s());
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

int run(const Options& options) {
  std::vector<Row> rows;
  print_header();
  for (const Case& c : cases(options)) {
    const ClusterFile platform(static_cast<int>(c.hosts));
    Row row{c.name, 0, {}, {}, ""};
    // The fastest run, as what else the machine does only ever slows a run
    // down; a run with more errors wins, so that no error hides.
    const auto keep_fastest = [](Measurement& best, const Measurement& m, bool first) {
      if (first || m.errors > best.errors || (m.errors == best.errors && m.wall_s() < best.wall_s()))
        best = m;
    };
    bool long_run = false;
    while (row.runs < options.repeat && !long_run) {
      const bool first = row.runs++ == 0;
      if (options.run_xover) {
        const Measurement m = measure(c.xover, platform.path());
        keep_fastest(row.xover, m, first);
        long_run = long_run || m.wall_s() > kLongRun_s;
      }
      if (options.run_bare) {
        const Measurement m = measure(c.bare, platform.path());
        keep_fastest(row.bare, m, first);
        long_run = long_run || m.wall_s() > kLongRun_s;
      }
    }
    row.check = options.run_xover && options.run_bare ? check(row) : "not compared";
    print_row(row);
    rows.push_back(std::move(row));
  }
  print_breakdown(rows);
  if (options.run_xover && options.run_bare) {
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
