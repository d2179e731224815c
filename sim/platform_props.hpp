// The `xover:` properties of a platform file (platforms/README.md): which
// ones a link and a node host take, how their values read, and how the
// links of a route add up. Pure functions of the properties' text, private
// to the loader (and fuzzed on their own: fuzz/platform_fuzz.cpp).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "protocols/lanes/lane.hpp"
#include "sim/platform_loader.hpp"
#include "sim/platform_xml.hpp"

namespace xover::sim::detail {

/// What one link's `xover:` properties say.
struct LinkProps {
  LaneAttrs values;       ///< LaneAttrs' defaults where `set` has no bit
  std::uint32_t set = 0;  ///< one bit per link property given
};

/// Whether `key` is one of xover's ("xover:..."); the others belong to
/// SimGrid or to the user and are left alone.
bool is_xover_prop(std::string_view key);

/// Reads the `xover:` entries of `props`, the properties of the link whose
/// <link> id is `xml_id`; `index` gives the lines for messages.
/// @throws PlatformError "FILE:LINE: link 'ID': ..." for an unknown
/// property, a bad value (an xover:bw_factor outside (0, 1] or with sizes
/// not ascending from 0), a negative time, an xover:o_send_after more than
/// the link's xover:o_send at some size, an xover:bcopy_copy other than yes
/// or no, or a zero size that one of the link's capabilities needs.
LinkProps read_link_props(const std::string& file, const std::string& xml_id,
                          const std::map<std::string, std::string>& props, const PlatformXml& index);

/// Adds one link of a route to its lane: where several links set a
/// property, times and sizes take the largest, `caps` the intersection,
/// xover:bandwidth and xover:bw_factor the smallest at each size, and
/// xover:bcopy_copy is yes when any link says yes.
/// `merged` holds the bits set by the links added so far.
void merge_link_props(LaneAttrs& lane, std::uint32_t& merged, const LinkProps& link);

/// The larger (`larger`) or the smaller of two figures given by steps, at
/// every size, as steps; `a_plain` and `b_plain` hold where a figure has
/// none. Empty when both are.
SizeSteps combine_steps(const SizeSteps& a, double a_plain, const SizeSteps& b, double b_plain, bool larger);

/// Sets the node host property `key` of `node` from `value`: bandwidths
/// for `xover:memcpy_bw`, `xover:stage_bw`, `xover:ipc_bw` and
/// `xover:engine_bw`, factors in (0, 1] for `xover:bw_factor`, times for
/// `xover:gap`, `xover:stage_o` and the device's, counts for
/// `xover:threads`, `xover:doorbell_batch`, `xover:proxy_threads` and
/// `xover:ring_capacity`. False when `key` is none of them.
/// @throws std::invalid_argument for a bad value, leaving `node` as it was.
bool read_node_prop(PlatformNode& node, std::string_view key, const std::string& value);

/// The node host properties, for messages.
inline constexpr std::string_view kNodeProps =
    "xover:memcpy_bw, xover:bw_factor, xover:gap, xover:device_o, xover:threads, xover:proxy_o, xover:proxy_wake, xover:stage_o, "
    "xover:stage_bw, xover:ipc_bw, xover:launch, xover:post_slope, xover:doorbell_batch, xover:engine_gap, xover:engine_bw, "
    "xover:proxy_threads, xover:ring_capacity";

}  // namespace xover::sim::detail
