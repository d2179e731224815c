// The two workloads of sim_speed, each written twice: through xover's
// protocol core (Worker over sim::SimTransport) and as a bare S4U program
// doing the same communications. Each function loads `platform` (a
// ClusterFile) into this process's SimGrid engine, so call each in a process
// of its own.
//
//   ping-pong  ranks 0 and 1 bounce one 8-byte message `round_trips` times
//   pairwise   `ranks` ranks; at step k = 1..P-1 rank r sends 8 bytes to
//              (r+k) mod P and receives from (r-k) mod P
//
// Both programs pay the same LogGP costs for a message, so that their
// simulated times agree: o_send on the sender's CPU, L + (h+8)/B on the
// wire with h the eager header, o_recv and an 8-byte copy on the receiver.
#pragma once

#include <cstdint>
#include <string>

#include "bench/measurement.hpp"

namespace xover::bench {

Measurement xover_pingpong(const std::string& platform, std::uint64_t round_trips);
Measurement bare_pingpong(const std::string& platform, std::uint64_t round_trips);

Measurement xover_pairwise(const std::string& platform, unsigned ranks);
Measurement bare_pairwise(const std::string& platform, unsigned ranks);

}  // namespace xover::bench
