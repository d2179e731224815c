// Protocol header sizes, shared by the cost models and the wire format.
//
// A header takes room in a receive segment, so it shrinks what a fragment can
// carry; the cost models do not charge its bytes on the wire (at 25 GB/s the
// largest adds under 2 ns), and the simulator carries headers beside the data.
#pragma once

#include "protocols/units.hpp"

namespace xover::wire {

inline constexpr Bytes kEagerHdr = 8;      ///< tag
inline constexpr Bytes kMultiHdr = 24;     ///< tag, message id, offset
inline constexpr Bytes kRndvDataHdr = 16;  ///< request id, offset
inline constexpr Bytes kRtsHdr = 40;       ///< tag, request id, size, address, remote key
inline constexpr Bytes kRtrHdr = 24;       ///< request ids, size
inline constexpr Bytes kAckHdr = 8;        ///< request id

}  // namespace xover::wire
