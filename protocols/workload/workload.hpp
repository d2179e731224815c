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

#include <any>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "protocols/coll/device_alltoall.hpp"
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

/// What a run hands a workload beside its scenario: what the backend that
/// runs it offers and what its platform says, which no scenario file holds.
/// A simulation hands none: its nodes charge their own device figures
/// (Transport::threads().device()).
struct RunContext {
  std::string_view backend = {};  ///< the backend that runs it ("cuda"), for messages
  /// On hardware, for a workload that prices with device figures
  /// (Workload::device_figures): the platform's first node's (`xover run`
  /// reads them from the scenario's platform, or --platform's); none:
  /// DeviceAttrs' defaults.
  std::optional<DeviceAttrs> device = std::nullopt;
  /// The backend's alltoall engine for PEs in device memory (its row's: the
  /// cuda backend's GPU PEs), which the alltoall then runs in place of
  /// AlltoallPe; none: PEs in host memory.
  DeviceAlltoallEngine device_alltoall = {};
  /// On hardware given a platform (`xover run --backend shm --platform
  /// CAL.xml`): the protocol the platform's selection takes at each of the
  /// scenario's sizes, which the `auto` curve of a two-sided workload then
  /// runs (as a forced curve runs its protocol), so that the hardware runs
  /// the choice the simulation made; empty: the transport's own selection,
  /// on its wire-up's figures.
  std::map<Bytes, std::string> platform_choices = {};
};

struct Workload {
  /// "pingpong": the kind= of scenario files and the results' workload column.
  std::string_view name;
  std::string_view description;  ///< one line
  /// Its own attributes of <workload>, beside kind, iterations and warmup
  /// (which every workload takes); the reader refuses any other.
  std::span<const std::string_view> attributes;
  /// Reads its attributes into its own settings (Scenario::settings: its
  /// own struct, defaults for those absent), given the scenario read so
  /// far (its <platform> is); reports every problem through
  /// `attributes.fail()`. Null when it takes none.
  std::any (*parse)(const Attributes& attributes, const Scenario& scenario) = nullptr;
  /// What is wrong with `curve` as one of its curves in `scenario`, or
  /// nothing when it may be drawn.
  std::optional<std::string> (*curve_error)(const Scenario& scenario, std::string_view curve) = nullptr;
  /// The ranks `scenario` needs.
  Rank (*ranks)(const Scenario& scenario) = nullptr;
  /// Where a simulation puts them.
  RankPlacement placement = RankPlacement::Pairs;
  /// What is wrong with simulating `scenario` on `platform`, a platform of
  /// `nodes` nodes, when its placement is OnePerNode (the alltoall: more PEs
  /// than nodes); nothing when it fits. Null: any platform with a node per
  /// rank.
  std::optional<std::string> (*nodes_error)(const Scenario& scenario, std::size_t nodes,
                                            std::string_view platform) = nullptr;
  /// The most threads a rank of `scenario` runs at once (RankThreads) in
  /// `context`; null for one. `xover run` compares ranks × threads with the
  /// cores.
  std::uint32_t (*threads)(const Scenario& scenario, const RunContext& context) = nullptr;
  /// It prices with device figures on hardware (RunContext::device), which
  /// `xover run` then reads from the platform file; a hardware run of any
  /// other workload loads no platform.
  bool device_figures = false;
  /// What is wrong with running `scenario` in `context` (the alltoall: more
  /// PEs than the backend's engine runs), said before any rank starts;
  /// nothing when it can run. Null: it runs in any.
  std::optional<std::string> (*context_error)(const Scenario& scenario, const RunContext& context) = nullptr;
  /// Runs `rank`'s part of `scenario` in `context` over `transport`, every
  /// curve and size in order, adding what it measures and the errors it
  /// finds to `results`. Null when it cannot run over a Transport.
  void (*run)(const Scenario& scenario, const RunContext& context, Rank rank, Transport& transport,
              Results& results) = nullptr;
  /// What one sample times, as the results table says it: "message" or "exchange".
  std::string_view sample = "message";
  /// Its points carry the bytes the receiver held (Point::buffered_peak),
  /// which the results table shows.
  bool reports_held = false;
};

/// The number of ranks a scenario needs: its workload's ranks().
Rank workload_ranks(const Scenario& scenario);

/// The most threads a rank of the scenario runs at once in `context`: its
/// workload's threads(), or 1.
std::uint32_t workload_threads(const Scenario& scenario, const RunContext& context = {});

/// Runs `rank`'s part of the scenario in `context` over `transport` (its
/// workload's run()); stops early when the transport fails
/// (Transport::failure()).
/// @throws std::invalid_argument when the workload has no Transport runner.
void run_workload(const Scenario& scenario, Rank rank, Transport& transport, Results& results,
                  const RunContext& context = {});

}  // namespace xover
