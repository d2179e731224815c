// A workload is one value: what the ranks of a scenario do with each
// message size, how a scenario file gives its settings, which curves it
// draws and how its results read. Each is defined at the bottom of its own
// file and listed once, in order, in workloads.cpp; nothing else asks which
// workload a scenario runs.
//
// A workload runs over a Transport (`run`), so that the same code runs in
// simulation and on hardware, or it has no Transport runner and a backend
// runs it its own way: the simulator keeps a table of such runners
// (sim/simulate.cpp), and a hardware backend refuses the workload.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "protocols/core/transport.hpp"
#include "protocols/workload/attributes.hpp"
#include "protocols/workload/results.hpp"
#include "protocols/workload/scenario.hpp"

namespace xover {

/// Where a simulation puts a workload's ranks.
enum class RankPlacement {
  Pairs,        ///< even ranks on <platform from>, odd ones on <platform to>
  OnePerNode,   ///< rank r on the platform's r-th node, in natural order (pe2 before pe10)
};

struct Workload {
  /// "pingpong": the kind= of scenario files and the results' workload column.
  std::string_view name;
  std::string_view description;  ///< one line
  /// Its own attributes of <workload>, beside kind, iterations and warmup
  /// (which every workload takes); the reader refuses any other.
  std::span<const std::string_view> attributes;
  /// Reads its attributes into `scenario`, whose <platform> is read already,
  /// giving defaults to those absent; reports every problem through
  /// `attributes.fail()`. Null when it takes none.
  void (*parse)(const Attributes& attributes, Scenario& scenario) = nullptr;
  /// What is wrong with `curve` as one of its curves in `scenario`, or
  /// nothing when it may be drawn.
  std::optional<std::string> (*curve_error)(const Scenario& scenario, std::string_view curve) = nullptr;
  /// The ranks `scenario` needs.
  Rank (*ranks)(const Scenario& scenario) = nullptr;
  /// Where a simulation puts them.
  RankPlacement placement = RankPlacement::Pairs;
  /// The most threads a rank of `scenario` runs at once (RankThreads); null
  /// for one. `xover run` compares ranks × threads with the cores.
  std::uint32_t (*threads)(const Scenario& scenario) = nullptr;
  /// Runs `rank`'s part of `scenario` over `transport`, every curve and
  /// size in order, adding what it measures and the errors it finds to
  /// `results`. Null when it cannot run over a Transport.
  void (*run)(const Scenario& scenario, Rank rank, Transport& transport, Results& results) = nullptr;
  /// What one sample times, as the results table says it: "message" or "exchange".
  std::string_view sample = "message";
  /// Its points carry the bytes the receiver held (Point::buffered_peak),
  /// which the results table shows.
  bool reports_held = false;
};

/// The number of ranks a scenario needs: its workload's ranks().
Rank workload_ranks(const Scenario& scenario);

/// The most threads a rank of the scenario runs at once: its workload's threads(), or 1.
std::uint32_t workload_threads(const Scenario& scenario);

/// Runs `rank`'s part of the scenario over `transport` (its workload's
/// run()); stops early when the transport fails (Transport::failure()).
/// @throws std::invalid_argument when the workload has no Transport runner.
void run_workload(const Scenario& scenario, Rank rank, Transport& transport, Results& results);

}  // namespace xover
