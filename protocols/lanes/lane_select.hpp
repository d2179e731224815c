// Lane selection, after UCX's wire-up notes: per class of use, score every
// lane to the peer and keep the best. The AM lane carries small messages and
// protocol control (lowest latency); bandwidth classes take lanes greedily by
// bandwidth, drop those slower than the fastest by more than a ratio, and
// stripe bytes over the rest in proportion to their bandwidth.
//
// As in UCX protocols v2, a protocol declares the bandwidth lanes it needs
// (a LaneRequirement) and selection resolves every requirement once per
// endpoint; lane selection knows no protocol.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "protocols/lanes/lane.hpp"

namespace xover {

struct LaneConfig {
  std::size_t max_eager_lanes = 1;  ///< lanes for multi-eager fragments (at most wire::kMaxLanes)
  std::size_t max_rndv_lanes = 2;   ///< lanes for rendezvous data, AM and get (at most wire::kMaxLanes)
  double min_bw_ratio = 4;          ///< drop a lane slower than the fastest divided by this
  bool operator==(const LaneConfig&) const = default;
};

/// One lane of a striped transfer and its share of the bytes.
struct LaneShare {
  std::size_t lane = 0;  ///< index into Path::lanes
  double weight = 1;     ///< share of the bytes, the shares of a set sum to 1
  bool operator==(const LaneShare&) const = default;
};

/// How lanes_text writes a set of lanes and their shares.
enum class LanesText {
  Results,  ///< the results CSV's lanes column: "r0:0.5 r1:0.5" (shares to 3 significant digits)
  Table,    ///< proto-info's table: "r0 50%, r1 50%", the name alone for one lane, "-" for none
};

/// `lanes` of `path`, by name with their shares, as `style` says.
std::string lanes_text(const Path& path, const std::vector<LaneShare>& lanes, LanesText style);

/// The lane with the lowest one-message time L + o_send − o_send_after +
/// o_recv (LaneAttrs::sent_after) that has any of `caps`; ties
/// go to the higher bandwidth, then to the earlier lane.
std::optional<std::size_t> select_latency_lane(const Path& path, LaneCaps caps);

/// Up to `max_lanes` lanes with `cap`, fastest first (ties: lower latency,
/// then earlier), none slower than the fastest / `min_bw_ratio`, weighted by
/// bandwidth. Empty when no lane has `cap`.
std::vector<LaneShare> select_bw_lanes(const Path& path, LaneCap cap, std::size_t max_lanes, double min_bw_ratio);

/// A class of bandwidth lanes a protocol moves its bytes on: the lanes with
/// `cap`, at most as many as the LaneConfig setting `max_lanes` names.
struct LaneRequirement {
  LaneCap cap;
  std::size_t LaneConfig::*max_lanes;
  bool operator==(const LaneRequirement&) const = default;
};

/// The lanes of an endpoint, per class.
struct EndpointLanes {
  std::optional<std::size_t> am;         ///< short messages and protocol control
  std::optional<std::size_t> bootstrap;  ///< wire-up: lowest latency that can connect to an interface
  /// Each requirement resolved, once, in the order first asked for.
  std::vector<std::pair<LaneRequirement, std::vector<LaneShare>>> bandwidth;

  /// The lanes resolved for `requirement`; empty when no lane has its
  /// capability. Throws std::logic_error when select_lanes was not asked for
  /// it.
  const std::vector<LaneShare>& bw(const LaneRequirement& requirement) const;

  /// True when the AM lane cannot connect from an address alone and the
  /// bootstrap lane must carry the wire-up first.
  bool needs_bootstrap(const Path& path) const;
};

/// The AM and bootstrap lanes, and the lanes of each of `requirements`
/// (by select_bw_lanes, a requirement asked for twice resolved once).
EndpointLanes select_lanes(const Path& path, const LaneConfig& config, std::span<const LaneRequirement> requirements);

}  // namespace xover
