// xover run --backend sim: a scenario simulated point by point, each
// (curve, size) point on its own from simulated time 0 (sim/sweep.hpp), so
// that a point's numbers are the same whichever process simulates it.
//
// Started by mpirun or srun, every process is a rank of the sweep: they
// bootstrap through MPI (runtime/launch/mpi_bootstrap.hpp), the points are
// dealt among them (owners() below), one gather brings every rank's points
// (or why it failed) to rank 0, and rank 0
// merges them in the serial order and writes the same table and CSV as a
// serial run: the same rows, in the same order, with the same numbers. What
// went wrong on any rank, rank 0 says, and only rank 0 exits non-zero.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <numeric>
#include <set>

#include "base/child.hpp"
#include "protocols/select/threshold_table.hpp"
#include "protocols/workload/results.hpp"
#include "protocols/workload/scenario.hpp"
#include "runtime/backends.hpp"
#include "runtime/launch/mpi_bootstrap.hpp"
#include "sim/alltoall_sim.hpp"
#include "sim/platform_loader.hpp"
#include "sim/scenario_check.hpp"
#include "sim/sweep.hpp"
#include "tools/commands.hpp"

namespace xover::tools {
namespace {

/// One rank's share of the sweep: the results of its points in its order,
/// or the exit status and message of what went wrong.
struct Share {
  int status = 0;
  std::string error;
  std::vector<std::string> points;  ///< Results::to_text() of each point
};

// On the wire: "0\n" then, per point, its length and a newline and its
// text; or the status, a space and the message.
std::string encode(const Share& share) {
  if (share.status != 0)
    return std::to_string(share.status) + " " + share.error;
  std::string out = "0\n";
  for (const std::string& text : share.points)
    out += std::to_string(text.size()) + "\n" + text;
  return out;
}

Share decode(std::string_view blob) {
  Share share;
  if (!blob.starts_with("0\n")) {
    const auto space = blob.find(' ');
    share.status = space == std::string_view::npos ? 0 : std::atoi(std::string(blob.substr(0, space)).c_str());
    share.error = space == std::string_view::npos ? "sent no results" : std::string(blob.substr(space + 1));
    share.status = share.status > 0 ? share.status : 1;
    return share;
  }
  blob.remove_prefix(2);
  while (!blob.empty()) {
    const auto newline = blob.find('\n');
    const std::size_t length = std::stoull(std::string(blob.substr(0, newline)));
    share.points.emplace_back(blob.substr(newline + 1, length));
    blob.remove_prefix(newline + 1 + length);
  }
  return share;
}

/// The rank that simulates each point of `points`: from the largest size
/// down, the points are dealt back and forth across the ranks (0, 1, ...,
/// N − 1, N − 1, ..., 0, 0, 1, ...). A point's cost tends to grow with its
/// size (more fragments, more bytes to fill and check), and plain
/// round-robin over the serial order gives one rank every curve's largest
/// size whenever the ranks divide the sizes evenly. Every rank deals the
/// same.
std::vector<Rank> owners(const std::vector<sim::SweepPoint>& points, Rank ranks) {
  std::vector<std::size_t> order(points.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return points[a].size > points[b].size; });
  std::vector<Rank> owner(points.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    const auto seat = static_cast<Rank>(i % ranks);
    owner[order[i]] = (i / ranks) % 2 == 0 ? seat : ranks - 1 - seat;
  }
  return owner;
}

/// Rank `rank`: loads the platform, checks the scenario's nodes and
/// simulates the points `owner` gives it, in the serial order.
Share simulate_share(const Scenario& scenario, const std::vector<sim::SweepPoint>& points,
                     const std::vector<Rank>& owner, Rank rank) {
  Share share;
  const bool terminal = rank == 0 && isatty(STDERR_FILENO) != 0;
  try {
    const sim::LogGPPlatform platform = sim::LogGPPlatform::load(scenario.platform);
    sim::check_scenario_nodes(scenario, platform);
    for (std::size_t k = 0; k < points.size(); ++k) {
      if (owner[k] != rank)
        continue;
      if (terminal)
        std::fprintf(stderr, "\r\033[K%s: %s at %s B", scenario.name.c_str(), points[k].curve.c_str(),
                     std::to_string(points[k].size).c_str());
      share.points.push_back(sim::simulate_point(scenario, platform, points[k]));
    }
  } catch (const sim::PlatformError& e) {
    share = {kExitBadInput, e.what(), {}};
  } catch (const ScenarioError& e) {
    share = {kExitBadInput, e.what(), {}};
  } catch (const std::exception& e) {
    share = {1, e.what(), {}};
  }
  if (terminal)
    std::fprintf(stderr, "\r\033[K");
  return share;
}

}  // namespace

int run_in_simulation(const Scenario& scenario, const runtime::Backend& backend, const std::string& out,
                      const std::string& plot) {
  const std::vector<sim::SweepPoint> points = sim::sweep_points(scenario);
  std::vector<Rank> owner;
  std::unique_ptr<runtime::Bootstrap> boot;
  std::vector<Share> shares;
  try {
    if (runtime::launched_by_mpi())
      boot = runtime::make_mpi_bootstrap();
    owner = owners(points, boot ? boot->size() : 1);
    const Share mine = simulate_share(scenario, points, owner, boot ? boot->rank() : 0);
    if (!boot) {
      shares.push_back(mine);
    } else {
      const std::string text = encode(mine);
      for (const runtime::Blob& blob : boot->allgather(std::as_bytes(std::span(text.data(), text.size()))))
        shares.push_back(decode(std::string_view(reinterpret_cast<const char*>(blob.data()), blob.size())));
    }
  } catch (const runtime::RuntimeError& e) {
    std::cerr << "xover run: " << e.what() << "\n";
    return 1;
  }
  // Rank 0 alone says what went wrong and exits with it: mpirun stops the
  // job at the first rank that exits non-zero, which must not be another
  // rank before rank 0 has said why.
  const bool reporter = !boot || boot->rank() == 0;
  boot.reset();
  if (!reporter)
    return 0;

  int status = 0;
  std::set<std::string> said;
  for (std::size_t r = 0; r < shares.size(); ++r) {
    if (shares[r].status == 0)
      continue;
    status = std::max(status, shares[r].status);
    if (said.insert(shares[r].error).second)
      std::cerr << "xover run: " << (shares.size() > 1 ? "rank " + std::to_string(r) + ": " : "") << shares[r].error
                << "\n";
  }
  if (status != 0)
    return status;

  Results results;
  std::vector<std::size_t> taken(shares.size(), 0);
  for (std::size_t k = 0; k < points.size(); ++k)
    results.merge_text(shares[owner[k]].points.at(taken[owner[k]]++));
  status = report_results(scenario, results, std::string(backend.name), scenario.platform, out);
  return status == 0 && !plot.empty() ? plot_results("run", {out}, plot) : status;
}

std::optional<Results> simulate_scenario(const Scenario& scenario, const std::string& platform) {
  // In a child of its own: SimGrid holds one platform per process.
  const std::string text = in_child([&] {
    const sim::LogGPPlatform loaded = sim::LogGPPlatform::load(platform);
    sim::check_scenario_nodes(scenario, loaded);
    Results results;
    for (const sim::SweepPoint& point : sim::sweep_points(scenario))
      results.merge_text(sim::simulate_point(scenario, loaded, point));
    return results.to_text();
  });
  if (const std::optional<std::string> error = child_error(text))
    throw std::runtime_error("simulating " + scenario.name + " on " + platform + ": " + *error);
  Results results;
  results.merge_text(text);
  return results;
}

std::optional<HardwarePlatform> platform_for_hardware(const std::string& file, const Scenario& scenario,
                                                     bool choose) {
  const sim::LogGPPlatform platform = sim::LogGPPlatform::load(file);
  HardwarePlatform out;
  out.device = platform.node(sim::alltoall_nodes(platform, 1).front()).device;
  if (!choose)
    return out;
  const std::vector<sim::PlatformNode>& nodes = platform.nodes();
  if (scenario.from.empty() && nodes.size() < 2)
    throw sim::PlatformError(file + ": one node; a two-sided run needs two");
  const Path path = scenario.from.empty() ? platform.path(nodes[0].name, nodes[1].name)
                                          : platform.path(scenario.from, scenario.to);
  const ThresholdTable table = ThresholdTable::build(path, scenario.select, scenario.memory);
  for (const Bytes n : scenario.sizes)
    if (const ProtoChoice* choice = table.lookup(n))
      out.choices[n] = std::string(choice->protocol->name);
  return out;
}

}  // namespace xover::tools
