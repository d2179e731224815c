#include "tests/support/backend.hpp"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <stdexcept>

#include "runtime/backends.hpp"
#include "runtime/launch/launch.hpp"
#include "tests/support/forwarding_transport.hpp"
#ifdef XOVER_WITH_SIMGRID
#include "base/child.hpp"
#include "sim/alltoall_sim.hpp"
#include "sim/platform_loader.hpp"
#include "sim/sim_transport.hpp"
#endif

namespace xover::test {
namespace {

// The report a child sends back: one problem per line.
Problems split_lines(const std::string& text) {
  Problems out;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    if (end > start)
      out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::string one_line(std::string text) {
  for (char& c : text)
    if (c == '\n')
      c = ' ';
  return text;
}

#ifdef XOVER_WITH_SIMGRID
// In the child: the whole simulation, its problems as lines.
std::string run_sim(Rank nranks, const std::string& platform_file, const RankBody& body) {
  const sim::LogGPPlatform platform = sim::LogGPPlatform::load(platform_file);
  const std::vector<sim::PlatformNode>& nodes = platform.nodes();
  if (nodes.size() < 2)
    throw std::invalid_argument(platform_file + ": the tests need two nodes, the platform has " +
                                std::to_string(nodes.size()));
  const std::vector<std::string> spread =
      nodes.size() >= nranks ? sim::alltoall_nodes(platform, nranks) : std::vector<std::string>{};
  std::vector<std::string> rank_nodes;
  for (Rank r = 0; r < nranks; ++r)
    rank_nodes.push_back(spread.empty() ? nodes[r % 2].name : spread[r]);
  sim::SimNetwork network(platform, rank_nodes);
  // Every route between the ranks' nodes is resolved before any actor starts.
  for (Rank from = 0; from < nranks; ++from)
    for (Rank to = 0; to < nranks; ++to)
      if (rank_nodes[from] != rank_nodes[to])
        network.route(from, to);

  std::vector<Problems> found(nranks);
  std::vector<bool> finished(nranks, false);
  sim::run_ranks(network, [&](Rank rank, Transport& transport) {
    try {
      body(rank, transport, found[rank]);
    } catch (const std::exception& error) {
      found[rank].push_back(std::string("threw: ") + error.what());
    }
    finished[rank] = true;
  });

  std::string report;
  for (Rank r = 0; r < nranks; ++r) {
    if (!finished[r])
      found[r].push_back("did not finish: the simulation deadlocked");
    for (const std::string& problem : found[r])
      report += "rank " + std::to_string(r) + ": " + one_line(problem) + "\n";
  }
  return report;
}
#endif

// What a hardware run ran on, on the test's output: rank 0's lanes to rank 1
// ("[ lanes    ] verbs: rxe0:1"), so that a log says which device passed.
void say_lanes(const runtime::Backend& backend, Transport& transport) {
  if (transport.size() < 2)
    return;
  std::string lanes;
  for (const LaneAttrs& lane : transport.path(1).lanes)
    lanes += (lanes.empty() ? "" : " ") + lane.name;
  std::printf("[ lanes    ] %s: %s\n", std::string(backend.name).c_str(), lanes.c_str());
  std::fflush(stdout);
}

// Every rank a process of its own, on a hardware backend.
Problems run_hardware(const runtime::Backend& backend, Rank nranks, const RankBody& body) {
  runtime::RuntimeOptions options;
  options.timeout = 20;
  // Two connections where the backend takes the option (tcp): two lanes.
  if (backend.read_options)
    options.backend = backend.read_options({{"tcp-conns", "2"}}, runtime::BackendUse::Run);
  runtime::LaunchOptions launch;
  launch.deadline = 300;
  const runtime::LaunchResult result = runtime::launch_local(nranks, launch, [&](runtime::LocalBootstrap& boot) {
    Problems found;
    {
      std::unique_ptr<Transport> transport = backend.make(boot, options);
      if (boot.rank() == 0)
        say_lanes(backend, *transport);
      SteadyFigures steady(*transport);
      try {
        body(boot.rank(), steady, found);
      } catch (const std::exception& error) {
        found.push_back(std::string("threw: ") + error.what());
      }
      if (!transport->failure().empty())
        found.push_back("the transport failed: " + transport->failure());
      while (!transport->flushed())
        transport->progress();
      std::string report;
      for (const std::string& problem : found)
        report += "rank " + std::to_string(boot.rank()) + ": " + one_line(problem) + "\n";
      boot.report(report);
      // No rank closes its connections while another still needs them.
      boot.barrier();
    }
    return 0;
  });
  Problems problems;
  for (const std::string& report : result.reports)
    for (const std::string& line : split_lines(report))
      problems.push_back(line);
  if (!result.ok)
    problems.push_back("the run failed: " + one_line(result.message));
  return problems;
}

}  // namespace

std::vector<std::string> all_backends() {
  std::vector<std::string> out;
  for (const runtime::Backend* b : runtime::backends())
    out.emplace_back(b->name);
  return out;
}

std::vector<std::string> hardware_backends() {
  std::vector<std::string> out;
  for (const runtime::Backend* b : runtime::backends())
    if (!b->simulated())
      out.emplace_back(b->name);
  return out;
}

std::string unavailable(const std::string& backend) {
  const runtime::Backend* b = runtime::find_backend(backend);
  if (!b)
    return "backend " + backend + ": not in the backend table";
  const std::string why = b->unavailable();
  return why.empty() ? why : "backend " + backend + ": " + why;
}

Problems run_ranks(const std::string& backend, Rank nranks, const std::string& platform_file, const RankBody& body) {
  if (const std::string why = unavailable(backend); !why.empty())
    return {why};
  const runtime::Backend& b = *runtime::find_backend(backend);
  if (!b.simulated())
    return run_hardware(b, nranks, body);
#ifdef XOVER_WITH_SIMGRID
  try {
    return split_lines(in_child([&] { return run_sim(nranks, platform_file, body); }));
  } catch (const std::exception& error) {
    return {std::string("the run failed: ") + one_line(error.what())};
  }
#else
  // Unreachable: without SimGrid the simulator's row is unavailable (above).
  (void)platform_file;
  return {"backend " + backend + ": the simulator is not compiled in"};
#endif
}

std::string join(const Problems& problems) {
  std::string out;
  for (const std::string& problem : problems)
    out += problem + "\n";
  return out;
}

}  // namespace xover::test
