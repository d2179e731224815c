// The alltoall (protocols/coll/alltoall.hpp) in SimGrid at large P, where
// one Transport operation per put costs too much: the simulator's own,
// batched path. Small alltoalls run the protocol's own stages over
// SimTransport instead (protocols/coll/alltoall_pe.hpp), put by put, with
// every byte moved and checked; alltoall_batched() says which path a
// scenario takes.
//
// This path moves no bytes: a put is a date and a transfer's size, and only
// its signal is counted (missing or landed twice); its results say
// verified=no. Each PE is an actor on its node for the device's threads
// and, in the proxy flavour, a second actor for its proxy threads; they
// meet at a command ring (the PE writes a posting round's commands, the
// proxy waits for them and serves them in turn). Both take their dates from
// the protocol's PostClock (the stages' arithmetic, the GPU lane's terms
// among them: launch, posting contention, doorbell batches, R proxy
// threads, a ring of C commands), and start, for each put, a host-to-host
// transfer of n bytes from its node to the target's at the date the NIC
// (or the engine that plays it) injects it, so that it ends n/B after, B
// the lane's or the engine's bandwidth, the smaller; the transfer shares
// links as SimGrid's CM02 model computes, and the put's signal lands with
// its last byte. The per-put path prices o_d, W and o_p only.
//
// Aggregation: with a batch of k > 1, one transfer of k·n bytes carries k
// consecutive puts of a PE, to the last one's target, started so that,
// alone on its links, it ends when the last put would: at s_last + L + n·G.
// The time of a contention-free exchange is unchanged. What it approximates: the batch's
// earlier puts land with the last one, the bytes take the last put's
// route, and contention shares bytes per batch. It costs the simulator k
// times fewer transfers.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "protocols/coll/alltoall.hpp"
#include "protocols/workload/results.hpp"
#include "protocols/workload/scenario.hpp"
#include "sim/platform_loader.hpp"

namespace xover::sim {

/// One alltoall to simulate.
struct AlltoallSpec {
  AlltoallFlavour flavour = AlltoallFlavour::Direct;
  std::uint32_t pes = 2;
  Bytes size = 0;
  std::optional<std::uint32_t> threads;  ///< device threads, overriding the platform's `xover:threads`
  std::size_t batch = 1;                 ///< puts per simulated transfer
};

/// What one simulated alltoall gave.
struct AlltoallOutcome {
  Seconds time = 0;             ///< from the start to the last put's landing
  std::uint64_t flows = 0;      ///< SimGrid transfers started
  std::uint64_t late_flows = 0; ///< batched transfers that could not start at their date (see alltoall_sim.cpp)
  std::size_t errors = 0;       ///< puts whose signal is missing or landed twice
};

/// The most PEs the per-put path over SimTransport takes, and the most
/// bytes of buffers (2·P²·n, every PE's in one process) it may allocate.
inline constexpr std::uint32_t kPerPutPes = 16;
inline constexpr Bytes kPerPutBytes = Bytes{1} << 30;

/// Whether `scenario` takes this batched path on `platform`: more than
/// kPerPutPes PEs, buffers past kPerPutBytes at its largest size, phantom
/// payloads, a `batch` it sets, or a first node whose device gives a term
/// of the GPU lane other than its default (the per-put path prices o_d, W
/// and o_p only). Otherwise it runs put by put over SimTransport.
bool alltoall_batched(const Scenario& scenario, const LogGPPlatform& platform);

/// The platform's first `pes` nodes in natural order (pe2 before pe10).
/// @throws PlatformError when the platform has fewer.
std::vector<std::string> alltoall_nodes(const LogGPPlatform& platform, std::uint32_t pes);

/// The figures the closed form takes for `spec` on `nodes`: the put lane
/// (put_lane(), else the first) from the first node to the one half-way
/// along `nodes` (the second of two): the middle shift's, which on a
/// platform of nodes of several GPUs crosses the network as soon as the
/// PEs span two nodes; and the first node's device.
AlltoallParams alltoall_params(const LogGPPlatform& platform, const std::vector<std::string>& nodes,
                               const AlltoallSpec& spec);

/// The batch a scenario that names none gets: enough puts per transfer
/// that a PE has about one transfer on the wire at a time (⌈(L + n·G) / the
/// time between its puts⌉) and an exchange about 16384 transfers at most
/// (1024 at P = 4096), whichever is larger; 1 where neither asks for more.
/// SimGrid 3.32's cost grows with the transfers in flight: unbatched, a
/// direct alltoall of 8 B at P = 256 (16 M puts at P = 4096) takes minutes.
std::size_t alltoall_batch(AlltoallFlavour flavour, const AlltoallParams& params);

/// Runs one alltoall on `nodes` (one PE each) from the current simulated
/// time. May be called many times in one process.
AlltoallOutcome simulate_alltoall(const LogGPPlatform& platform, const std::vector<std::string>& nodes,
                                  const AlltoallSpec& spec);

/// Runs an alltoall scenario: every curve (`auto`, chosen by
/// alltoall_selection() with the scenario's `direct_perf_diff`, or a forced
/// flavour) at every size, warm-up and timed iterations, each a whole
/// exchange. Every point notes verified=no and the batch.
Results simulate_alltoall_scenario(const Scenario& scenario, const LogGPPlatform& platform,
                                   const std::function<void(const Point&)>& on_new_point = {});

}  // namespace xover::sim
