// Measuring the lanes of the verbs transport at wire-up, over the queue
// pairs just connected and with the data path's own posting and polling:
//
//   registration  on each device, ibv_reg_mr + ibv_dereg_mr of 4 KiB,
//                 64 KiB, 1 MiB and 8 MiB of memory already touched (as a
//                 workload's buffers are), the best of 3 at each size,
//                 fitted by least squares: reg_cost and reg_growth
//   latency       pair by pair in a round-robin schedule (each rank with one
//                 partner at a time), lane by lane: 40 round trips of 8-byte
//                 inline SENDs after 5 unmeasured, busy-polled; o_send is the
//                 median time of ibv_post_send, o_recv the median time of the
//                 poll that returned the message and its decoding, each end
//                 its own; L = (median round trip − both ends' o) / 2
//   bandwidth     each way, RDMA WRITEs of 64 KiB into the peer's registered
//                 1 MiB, 1 MiB at a time (the last one signalled), timed by
//                 the writer from its first post to the completion of the
//                 last write (the peer's HCA has acknowledged every byte):
//                 one unmeasured round, then at least 20 ms; toward a peer
//                 on another host, no more than the port's link rate (width
//                 × speed)
//   memcpy        measure_memcpy() on each rank; the cards carry it
//   gap           0: the CPU's posting paces the sends (xover calibrate
//                 measures g)
#pragma once

#include <vector>

#include "runtime/verbs/verbs_card.hpp"
#include "runtime/verbs/verbs_transport_impl.hpp"

namespace xover::runtime::verbs {

/// The largest registration timed, and the bandwidth probe's buffer: what
/// the measurements pin per device.
inline constexpr Bytes kRegProbeMax = Bytes{8} << 20;
inline constexpr Bytes kBulkBytes = Bytes{1} << 20;
inline constexpr Bytes kMeasurePinned = kRegProbeMax + kBulkBytes;

/// Collective over the connected fabric: the path to every peer (lanes
/// with their measured attributes; empty toward this rank), with the hosts
/// and memcpy bandwidths from the cards.
/// @throws RuntimeError when a peer stays silent past options.timeout or a
/// measurement's request fails.
std::vector<Path> measure_lanes(Bootstrap& boot, const RuntimeOptions& options, Fabric& fabric,
                                const std::vector<Card>& cards);

}  // namespace xover::runtime::verbs
