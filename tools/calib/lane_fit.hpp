// One measured lane fitted from its probes into the lanes it becomes
// (calibration.cpp's table says which figure comes from which probe):
// the LogGP figures of its active messages (Netgauge's PRTT fits, the
// inline limit's split, inline_steps.hpp), the bandwidth and latency of its
// gets, and the copy bandwidth per size range of its stream. Each fit's
// line goes into the calibration's comment block and each figure's probe
// into its record.
//
//   for (FittedLane& lane : fit_lane(measured, m, out)) ...
#pragma once

#include <string>
#include <vector>

#include "protocols/lanes/lane.hpp"
#include "tools/calib/calibration.hpp"

namespace xover::calib {

/// printf into a string, for the comment block's figures (at most 255 characters).
std::string printf_text(const char* fmt, double a = 0, double b = 0, double c = 0, double d = 0, double e = 0);

/// "c + m·s (rel RMS x %, R² y, k sizes)" with c in µs and m in ns/B.
std::string describe_line(const LineFit& f);

/// A lane fitted from its probes, before the protocol core's own overhead
/// is added; `copy_per_byte` is what a large copied transfer paces at
/// (0 when the lane carries no active messages).
struct FittedLane {
  LaneAttrs attrs;
  SecondsPerByte one_message_per_byte = 0;  ///< PRTT(1,0,s)'s slope / 2
  SecondsPerByte copy_per_byte = 0;         ///< the stream's G (the train's where the stream was disturbed)
  bool copy_from_train = false;             ///< copy_per_byte is the train's G: the stream was disturbed
  bool timed_gets = false;                  ///< the bandwidth came from gets
  bool probed_am = false;                   ///< its active messages were probed (PRTTs)
};

/// The lanes a measured lane becomes: itself, or, when it carries both
/// active messages and gets (TCP), two lanes. A get there is served by the
/// target's CPU (a request in, a reply out), not by a NIC as rndv_get.cpp's
/// get(n) = 2L + n/B + o_s + o_r assumes; one L cannot hold both a
/// message's flight and that service, so the gets get a lane of their own,
/// NAME-rma, whose L is fitted from the gets.
std::vector<FittedLane> fit_lane(const LaneMeasurement& lm, const Measurements& m, Calibration& out);

/// The bandwidth of a lane that carries only active messages: what one
/// message's time per byte leaves once the core's two copies are out.
void am_only_bandwidth(FittedLane& lane, BytesPerSecond memcpy_bw, Calibration& out);

/// G per size range: the stream's time per message, (PRTT(N,0,s) −
/// PRTT(1,0,s))/(N − 1), in segments by least squares (segments.hpp: a new
/// line only where it cuts the relative residuals past the noise), each
/// segment's slope a copy bandwidth from its first size; past the
/// largest size probed, `whole` (the one line's G) again. A segment whose
/// bytes cost less than its fixed part even at its largest size (small
/// messages: their slope is the noise of a fixed cost, and once gave a
/// 0.9 GB/s copy below 512 B) takes `whole` too. Empty where one line fits,
/// or a segment's slope is not positive.
SizeSteps stream_copy_steps(const std::vector<PrttPoint>& am, BytesPerSecond whole);

}  // namespace xover::calib
