// The CPUs' time per payload byte of a lane whose transport sends from the
// user's buffer (LaneAttrs::bcopy_copies off: TCP) in a calibrated
// platform. The figures, their lines and refusals are the runtime's
// (runtime/cpu_per_byte.hpp); here, which probes of the bare transport
// feed them, and what the platform records:
//   the sender's  o_s(s)'s slope: the client's time around each post of a
//                 train (PRTT(n,0,s)) whose receiver drains it in the
//                 other process (probe.hpp);
//   the receiver's o_r(s)'s slope, PRTT(n,d,s) less the posts and delays:
//                 the take-in of messages already queued in the socket,
//                 less the probe handler's copy out at the memcpy
//                 bandwidth (1/M), which the protocols price on their own.
//   one message's whole time per byte: PRTT(1,0,s)'s slope / 2.
// The record says over which sizes, and the comment block why a figure was
// refused. The lane's wire time per byte, 1/B, is what one message's time
// per byte leaves once the receiver's is taken out (runtime::wire_per_byte),
// so that one message costs what its probes measured (the sender's comes
// after the message has left, LaneAttrs::o_send_per_byte).
//
//   add_socket_copies(measurements, calibration);
#pragma once

#include <optional>
#include <span>

#include "runtime/cpu_per_byte.hpp"
#include "tools/calib/calibration.hpp"

namespace xover::calib {

/// What the probes give of the CPUs' time per payload byte.
using SocketCopies = runtime::CpuPerByte;

/// The figures from a lane's PRTT points, the probe handler copying each
/// payload out at `memcpy_bw`; none for fewer than two sizes.
std::optional<SocketCopies> fit_socket_copies(std::span<const PrttPoint> am, BytesPerSecond memcpy_bw);

/// Every lane of `out`'s draft that carries active messages from the user's
/// buffer (bcopy_copies off) and whose active messages `m` probed takes its
/// figures (fit_socket_copies), its bandwidth the wire's share of one
/// message's time per byte (the gets' or the PRTT's slope less the
/// receiver's, at least 1 % of it), each figure's line and size range in
/// the comment block and its probe in the record (`NAME.o_send_per_byte`
/// "post-slope", `NAME.o_recv_per_byte` "delayed-prtt-slope", its
/// bandwidth's probe with "-less-recv-slope"). Its gets' lane, NAME-rma,
/// whose gets the target serves over the same sockets
/// (LaneAttrs::get_served: the reply is the target's send() and the
/// initiator's recv()), takes the same figures, its bandwidth its gets'
/// time per byte less the receiver's likewise.
void add_socket_copies(const Measurements& m, Calibration& out);

}  // namespace xover::calib
