// The CPUs' time per payload byte of a lane whose transport sends from the
// user's buffer (LaneAttrs::bcopy_copies off: TCP), from the probes that
// identify them. A TCP send() copies the payload into the socket and a
// recv() copies it out: CPU time on each side, per byte, that no NIC takes
// over, so that a stream cannot overlap it with the next message. The
// bare transport's probes see both apart:
//   the sender's  o_s(s)'s slope: the client's time around each post of a
//                 train (PRTT(n,0,s)) whose receiver drains it in the
//                 other process (probe.hpp);
//   the receiver's o_r(s)'s slope, PRTT(n,d,s) less the posts and delays:
//                 the take-in of messages already queued in the socket,
//                 less the probe handler's copy out at the memcpy
//                 bandwidth (1/M), which the protocols price on their own.
// Each is a line in the payload size over the sizes probed (the record says
// which). A line its sizes hardly explain (R2 below 0.9: the runs were
// disturbed) or a slope past one message's whole time per byte
// (PRTT(1,0,s)'s slope / 2, which holds both) gives no figure, and the
// comment block says why. The lane's wire time per byte, 1/B, is what one message's time
// per byte leaves once the receiver's is taken out, so that one message
// costs what its probes measured (the sender's comes after the message
// has left, LaneAttrs::o_send_per_byte).
//
//   if (auto copies = fit_socket_copies(lm.am, 8, memcpy_bw)) apply_socket_copies(*copies, lane, draft);
#pragma once

#include <optional>
#include <span>
#include <string>

#include "protocols/lanes/lane.hpp"
#include "tools/calib/calibration.hpp"

namespace xover::calib {

/// What the probes give of the CPUs' time per payload byte.
struct SocketCopies {
  LineFit send;                    ///< o_s(s) = c + m·s
  LineFit recv;                    ///< o_r(s) = c + m·s, the handler's copy in it
  SecondsPerByte send_per_byte = 0;  ///< send.m, at least 0
  SecondsPerByte recv_per_byte = 0;  ///< recv.m − 1/M, at least 0
  Bytes from = 0, to = 0;          ///< the payload sizes the lines were fitted over
  SecondsPerByte message = 0;      ///< one message's time per byte, PRTT(1,0,s)'s slope / 2
  std::string send_refused;        ///< why the sender's line gave no figure; empty when it did
  std::string recv_refused;        ///< why the receiver's line gave no figure; empty when it did
};

/// The figures from a lane's PRTT points taken with `messages` messages a
/// train, the probe handler copying each payload out at `memcpy_bw`; none
/// for fewer than two sizes.
std::optional<SocketCopies> fit_socket_copies(std::span<const PrttPoint> am, int messages, BytesPerSecond memcpy_bw);

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
