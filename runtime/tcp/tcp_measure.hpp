// Measuring the lanes of the TCP transport at set-up (tcp_wireup.hpp says
// how): per peer and lane the latency, the send and receive overheads and
// the bandwidth of each direction.
#pragma once

#include <string>
#include <vector>

#include "protocols/lanes/lane.hpp"
#include "runtime/bootstrap.hpp"

namespace xover::runtime::tcp {

/// Collective over the lanes: measures every lane to every peer, the pairs
/// in a round-robin schedule. Returns per peer a path whose lanes carry
/// their names, limits, capabilities and measured attributes (empty for
/// this rank); from, to and the memcpy bandwidths are left to the caller.
/// @throws RuntimeError when a peer closes a lane or stays silent past
/// options.timeout.
std::vector<Path> measure_lanes(Bootstrap& boot, const RuntimeOptions& options,
                                const std::vector<std::string>& lane_names, const std::vector<std::vector<int>>& fds);

}  // namespace xover::runtime::tcp
