// Lane selection, after UCX's wire-up notes: per class of use, score every
// lane to the peer and keep the best. The AM lane carries small messages and
// protocol control (lowest latency); bandwidth classes take lanes greedily by
// bandwidth, drop those slower than the fastest by more than a ratio, and
// stripe bytes over the rest in proportion to their bandwidth.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "protocols/lanes/lane.hpp"

namespace xover {

struct LaneConfig {
  std::size_t max_eager_lanes = 1;  ///< lanes for multi-eager fragments
  std::size_t max_rndv_lanes = 2;   ///< lanes for rendezvous data (AM and get)
  double min_bw_ratio = 4;          ///< drop a lane slower than the fastest divided by this
};

/// One lane of a striped transfer and its share of the bytes.
struct LaneShare {
  std::size_t lane = 0;  ///< index into Path::lanes
  double weight = 1;     ///< share of the bytes, the shares of a set sum to 1
  bool operator==(const LaneShare&) const = default;
};

/// The lane with the lowest L + o_send + o_recv that has any of `caps`; ties
/// go to the higher bandwidth, then to the earlier lane.
std::optional<std::size_t> select_latency_lane(const Path& path, LaneCaps caps);

/// Up to `max_lanes` lanes with `cap`, fastest first (ties: lower latency,
/// then earlier), none slower than the fastest / `min_bw_ratio`, weighted by
/// bandwidth. Empty when no lane has `cap`.
std::vector<LaneShare> select_bw_lanes(const Path& path, LaneCap cap, std::size_t max_lanes, double min_bw_ratio);

/// The lanes of an endpoint, per class.
struct EndpointLanes {
  std::optional<std::size_t> am;         ///< short messages and protocol control
  std::optional<std::size_t> bootstrap;  ///< wire-up: lowest latency that can connect to an interface
  std::vector<LaneShare> eager_bcopy;    ///< multi-eager fragments, copied
  std::vector<LaneShare> eager_zcopy;    ///< multi-eager fragments, zero-copy
  std::vector<LaneShare> rndv_am;        ///< rendezvous data as active messages
  std::vector<LaneShare> rma;            ///< rendezvous data by RDMA read

  /// True when the AM lane cannot connect from an address alone and the
  /// bootstrap lane must carry the wire-up first.
  bool needs_bootstrap(const Path& path) const;
};

EndpointLanes select_lanes(const Path& path, const LaneConfig& config);

}  // namespace xover
