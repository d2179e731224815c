// From what the verbs wire-up measured to a lane's attributes, device-free
// and unit-tested: the registration line fitted by least squares, the
// one-way latency left when both ends' overheads are taken out of a round
// trip, and the limits and capabilities a port and its queue pairs give.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "protocols/lanes/lane.hpp"

namespace xover::runtime::verbs {

/// reg_cost + n · reg_growth.
struct RegLine {
  Seconds cost = 0;
  SecondsPerByte growth = 0;
};

/// The least-squares line through (size, seconds) samples of a
/// registration and release, each part floored at zero (a negative fixed
/// cost or growth is noise, not a saving). Throws std::invalid_argument
/// with fewer than two distinct sizes.
RegLine fit_registration(const std::vector<std::pair<Bytes, Seconds>>& samples);

/// One end's CPU time per message: posting a send, taking a receive in.
struct Overheads {
  Seconds o_send = 0;
  Seconds o_recv = 0;
};

/// L from a median round trip of small messages: a round trip is
/// o_send + L + o_recv each way, so L = (rtt − both ends' overheads) / 2,
/// floored at zero.
Seconds one_way_latency(Seconds round_trip, Overheads mine, Overheads theirs);

/// What a lane's port and queue pairs allow.
struct LaneLimits {
  Bytes max_inline = 0;         ///< read back from a created queue pair
  Bytes segment = 0;            ///< receive segment, wire header included
  Bytes max_message = 0;        ///< the port's max_msg_sz
  bool atomics = false;         ///< the device has atomic_cap other than NONE
  bool reads = true;            ///< RDMA reads possible (max_rd_atomic > 0 both ways)
  BytesPerSecond link_rate = 0; ///< the port's width × speed (link_bandwidth()); 0 when unknown
};

/// What the pair probe measured on one lane toward one peer.
struct LaneMeasure {
  Seconds latency = 0;
  BytesPerSecond bandwidth = 0;  ///< from this rank to the peer
  Overheads overheads;           ///< o_send this rank's, o_recv the peer's
  bool same_host = false;        ///< the peer is on this host: its bytes loop back in the HCA
};

/// The largest get or put one request carries, whatever the port allows.
inline constexpr Bytes kMaxZcopy = Bytes{1} << 30;

/// The lane's attributes. Bandwidth is the measured one, but no more than
/// the port's link rate toward a peer on another host (its bytes cross the
/// wire; a figure above it is the timer's error); toward a peer on this
/// host the HCA loops the bytes back without the wire, and the measurement
/// stands. Sizes count the AM header and payload, not the 8-byte wire
/// header: max_short = max_inline − 8 (no am_short below 8
/// bytes of room), max_bcopy = seg_size = segment − 8, max_zcopy =
/// min(max_message, 1 GiB). Capabilities: am short/bcopy/zcopy, put, get
/// (when reads are possible), atomics (when the device has them); no
/// connect-to-iface, since an RC queue pair connects to one endpoint.
LaneAttrs lane_attrs(const std::string& name, const LaneLimits& limits, const LaneMeasure& measure, RegLine reg);

}  // namespace xover::runtime::verbs
