// alltoall_scale: how large an alltoall the simulator takes, and at what
// cost. An alltoall of 8 B at P = 1024 and 4096 in each flavour on the
// shipped star (platforms/alltoall-star.xml), batched as a scenario's
// `batch="auto"` batches it: wall time, peak memory, simulated puts per
// wall second, and the simulated time against the closed form. Beside them,
// in the same run: the same alltoall at P = 256 with one transfer per put
// (what batching saves, and that it changes no simulated time here), and
// the peer, a bare S4U pairwise exchange of 8-byte messages at P = 1024
// (bench/bare_side.cpp), whose messages per second are SimGrid's own rate.
// Every case runs in a child process of its own (in_child, base/child.hpp), so each
// peak memory figure is that case's.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "base/child.hpp"
#include "bench/cases.hpp"
#include "bench/cluster_file.hpp"
#include "bench/measurement.hpp"
#include "sim/alltoall_sim.hpp"

namespace xover::bench {
namespace {

struct Case {
  AlltoallFlavour flavour;
  std::uint32_t pes;
  std::size_t batch;  ///< 0: alltoall_batch()
};

struct Row {
  std::size_t batch = 0;
  std::uint64_t flows = 0;
  std::uint64_t errors = 0;
  double load_s = 0, run_s = 0, sim_s = 0, closed_form_s = 0;
  long max_rss_kib = 0;
};

constexpr double kTargetWall = 60;
constexpr long kTargetRssKib = 4L << 20;

Row run_case(const Case& c) {
  const std::string text = in_child([&] {
    Stopwatch watch;
    const sim::LogGPPlatform platform = sim::LogGPPlatform::load(std::string(XOVER_SOURCE_DIR) +
                                                                 "/platforms/alltoall-star.xml");
    const std::vector<std::string> nodes = sim::alltoall_nodes(platform, c.pes);
    sim::AlltoallSpec spec;
    spec.flavour = c.flavour;
    spec.pes = c.pes;
    spec.size = 8;
    const AlltoallParams params = sim::alltoall_params(platform, nodes, spec);
    spec.batch = c.batch ? c.batch : sim::alltoall_batch(c.flavour, params);
    const double load_s = watch.lap();
    const sim::AlltoallOutcome out = sim::simulate_alltoall(platform, nodes, spec);
    const double run_s = watch.lap();
    std::ostringstream os;
    os.precision(17);
    os << spec.batch << ' ' << out.flows << ' ' << out.errors << ' ' << load_s << ' ' << run_s << ' ' << out.time << ' '
       << alltoall_closed_form(c.flavour, params) << ' ' << max_rss_kib();
    return os.str();
  });
  Row row;
  std::istringstream in(text);
  if (!(in >> row.batch >> row.flows >> row.errors >> row.load_s >> row.run_s >> row.sim_s >> row.closed_form_s >>
        row.max_rss_kib))
    throw std::runtime_error("alltoall_scale: a case reported '" + text + "'");
  return row;
}

const char* name(AlltoallFlavour flavour) {
  return flavour == AlltoallFlavour::Proxy ? "proxy" : "direct";
}

}  // namespace
}  // namespace xover::bench

int main(int argc, char** argv) {
  using namespace xover;
  using namespace xover::bench;
  const bool quick = argc > 1 && std::string(argv[1]) == "--quick";
  if (argc > 2 || (argc == 2 && !quick)) {
    std::fprintf(stderr, "usage: alltoall_scale [--quick]   (--quick: P = 256 and 1024 only, no peer)\n");
    return 2;
  }
  std::vector<Case> cases;
  for (const AlltoallFlavour flavour : {AlltoallFlavour::Proxy, AlltoallFlavour::Direct})
    cases.push_back({flavour, 256, 1});
  for (const std::uint32_t pes : quick ? std::vector<std::uint32_t>{256, 1024} : std::vector<std::uint32_t>{1024, 4096})
    for (const AlltoallFlavour flavour : {AlltoallFlavour::Proxy, AlltoallFlavour::Direct})
      cases.push_back({flavour, pes, 0});

  std::printf("%-7s %5s %6s %9s %8s %8s %9s %12s %14s %14s %9s\n", "flavour", "P", "batch", "puts", "flows", "wall s",
              "peak MiB", "puts/wall s", "simulated us", "closed form", "errors");
  bool ok = true;
  std::vector<std::pair<const char*, double>> rates_1024;  // puts per wall second at P = 1024
  double worst_wall = 0;
  long worst_rss = 0;
  for (const Case& c : cases) {
    const Row r = run_case(c);
    const double puts = static_cast<double>(c.pes) * (c.pes - 1);
    const double wall = r.load_s + r.run_s;
    std::printf("%-7s %5u %6zu %9.0f %8llu %8.2f %9.1f %12.0f %14.3f %14.3f %9llu\n", name(c.flavour), c.pes, r.batch,
                puts, static_cast<unsigned long long>(r.flows), wall, r.max_rss_kib / 1024.0, puts / r.run_s,
                r.sim_s * 1e6, r.closed_form_s * 1e6, static_cast<unsigned long long>(r.errors));
    ok = ok && r.errors == 0 && std::abs(r.sim_s - r.closed_form_s) <= 1e-6 * r.closed_form_s;
    if (c.pes == 1024)
      rates_1024.emplace_back(name(c.flavour), puts / r.run_s);
    if (c.pes == 4096) {
      worst_wall = std::max(worst_wall, wall);
      worst_rss = std::max(worst_rss, r.max_rss_kib);
    }
  }
  if (!quick) {
    const Measurement bare = [] {
      const ClusterFile cluster(1024);
      return Measurement::parse(in_child([&] { return bare_pairwise(cluster.path(), 1024).serialize(); }));
    }();
    std::printf("\npeer: bare S4U pairwise exchange of 8 B at P = 1024: %llu messages in %.2f s, %.0f messages per "
                "wall second, peak %.1f MiB\n",
                static_cast<unsigned long long>(bare.messages), bare.wall_s(), bare.messages / bare.run_s,
                bare.max_rss_kib / 1024.0);
    const double bare_rate = bare.messages / bare.run_s;
    for (const auto& [flavour, rate] : rates_1024)
      std::printf("ratio at P = 1024, %s: %.1fx bare SimGrid's messages per wall second\n", flavour,
                  rate / bare_rate);
    std::printf("target: P = 4096 under %.0f s and 4 GiB in each flavour: %s (worst %.1f s, %.1f MiB)\n", kTargetWall,
                worst_wall < kTargetWall && worst_rss < kTargetRssKib ? "met" : "MISSED", worst_wall,
                worst_rss / 1024.0);
  }
  std::printf("check: every put landed once and the simulated time is the closed form's: %s\n", ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
