// The workload drivers: what each rank of a scenario does, written once
// against the Worker so that the same code runs in simulation and on
// hardware. Every rank calls run_workload(); leaders time, followers answer,
// and both check every payload (unless the scenario's payload is phantom).
//
//   pingpong    rank 0 sends n bytes, rank 1 sends them back: half the
//               round trip
//   stream      rank 0 sends `window` messages back to back, rank 1 acks
//               the window with 8 bytes: the window's time over its size
//   unexpected  rank 1 posts its receive `delay` after its last ack, when
//               the message has arrived: the late receive's post-to-
//               completion time, and the bytes rank 1 held meanwhile
//   pairs       ranks 2i and 2i+1 ping-pong, all pairs at once
#pragma once

#include "protocols/core/transport.hpp"
#include "protocols/workload/results.hpp"
#include "protocols/workload/scenario.hpp"

namespace xover {

/// The number of ranks a scenario needs.
Rank workload_ranks(const Scenario& scenario);

/// Runs `rank`'s part of the scenario over `transport`, every curve and
/// size in order, adding what it measures and the errors it finds to
/// `results`. Stops early when the transport fails (Transport::failure()).
/// @throws std::invalid_argument for an alltoall, which the simulator runs
/// itself (sim/alltoall_sim.hpp).
void run_workload(const Scenario& scenario, Rank rank, Transport& transport, Results& results);

/// The byte at `offset` of message `seq` from `sender`: what receivers check.
std::byte payload_byte(std::uint64_t seed, Rank sender, std::uint64_t seq, Bytes offset);

}  // namespace xover
