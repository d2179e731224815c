// The CPUs' time per payload byte of a lane whose transport sends from the
// user's buffer (LaneAttrs::bcopy_copies off: TCP), from probes that
// identify each side's. A TCP send() copies the payload into the socket and
// a recv() copies it out: CPU time on each side, per byte, that no NIC
// takes over, so that a stream cannot overlap it with the next message.
// Each size's probe gives
//   post        the sender's time around one post of s bytes, o_s(s);
//   take_in     the receiver's time to take in a message of s bytes already
//               queued in its socket, o_r(s), with the copy out of a probe
//               handler where it makes one (`handler_copy` per byte);
//   round_trip  one message each way, PRTT(1,0,s), whose slope / 2 is one
//               message's whole time per byte (both sides' and the wire's).
// Each figure is a line in the payload size over the sizes probed. A line
// its sizes hardly explain (R2 below 0.9: the runs were disturbed) or a
// slope past one message's whole time per byte gives no figure: it is 0,
// and the reason says why. `xover calibrate` (tools/calib/socket_copies.hpp)
// fits here; the figures are the runtime's so that a backend's wire-up can
// fit them with the same lines and refusals.
//
//   if (auto f = fit_cpu_per_byte(probes, 0)) apply_cpu_per_byte(*f, lane);
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "protocols/lanes/lane.hpp"
#include "runtime/line_fit.hpp"

namespace xover::runtime {

/// One payload size's probes.
struct CopyProbe {
  Bytes size = 0;
  Seconds post = 0;        ///< the sender's post, o_s(s)
  Seconds take_in = 0;     ///< the receiver's take-in of a queued message, o_r(s)
  Seconds round_trip = 0;  ///< PRTT(1,0,s)
};

/// What the probes give of the CPUs' time per payload byte.
struct CpuPerByte {
  LineFit send;                      ///< o_s(s) = c + m·s
  LineFit recv;                      ///< o_r(s) = c + m·s, the handler's copy in it
  SecondsPerByte send_per_byte = 0;  ///< send.m, at least 0; 0 when refused
  SecondsPerByte recv_per_byte = 0;  ///< recv.m − handler_copy, at least 0; 0 when refused
  Bytes from = 0, to = 0;            ///< the payload sizes the lines were fitted over
  SecondsPerByte message = 0;        ///< one message's time per byte, PRTT(1,0,s)'s slope / 2
  std::string send_refused;          ///< why the sender's line gave no figure; empty when it did
  std::string recv_refused;          ///< why the receiver's line gave no figure; empty when it did
};

/// The least R2 of a line that gives a figure.
inline constexpr double kSteadyLine = 0.9;

/// The figures from probes of at least two sizes (none for fewer), the
/// receiver's less `handler_copy`, the probe handler's own copy per byte
/// (0 where the take-in was timed alone).
std::optional<CpuPerByte> fit_cpu_per_byte(std::span<const CopyProbe> probes, SecondsPerByte handler_copy);

/// The wire's share of one message's time per byte `whole`, once the
/// receiver's is taken out, so that one message costs what was measured:
/// at least 1 % of `whole`.
SecondsPerByte wire_per_byte(SecondsPerByte whole, SecondsPerByte recv_per_byte);

/// `lane` takes both figures (a refused one is 0) and, as its bandwidth,
/// the wire's share of what its bandwidth was (wire_per_byte).
void apply_cpu_per_byte(const CpuPerByte& figures, LaneAttrs& lane);

/// A line per refused figure of lane `lane`, saying why; none when both gave one.
std::vector<std::string> refusal_lines(const CpuPerByte& figures, const std::string& lane);

}  // namespace xover::runtime
