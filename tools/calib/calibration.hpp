// From measurements to a calibrated platform: which fitted figure becomes
// which lane attribute, the protocols' own cost lines, where the measured
// `auto` curve changes protocol, and the report that goes into the
// platform's comment block. Pure: the measuring is in probe.hpp and the
// calibrate command.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "protocols/workload/results.hpp"
#include "tools/calib/core_probe.hpp"
#include "tools/calib/fit.hpp"
#include "tools/calib/platform_writer.hpp"
#include "tools/calib/probe.hpp"
#include "tools/calib/refine.hpp"

namespace xover::calib {

/// What was measured on one lane.
struct LaneMeasurement {
  LaneAttrs hardware;            ///< the lane as the transport reports it: name, limits, capabilities, bcopy_copies
  std::vector<PrttPoint> am;     ///< Netgauge PRTTs of active messages (empty: the lane carries none)
  std::vector<GetPoint> get;     ///< timed gets (empty: the lane does no get)
};

/// Everything one calibration run measured.
struct Measurements {
  std::string backend;              ///< "shm" or "tcp"
  std::string host;                 ///< the machine's name
  std::string date;                 ///< when, UTC, ISO 8601
  int messages = 8;                 ///< n of the PRTT(n, ·, s) runs
  BytesPerSecond memcpy_bw = 10e9;  ///< the ranks' memcpy bandwidth, as the transport measured it
  std::vector<LaneMeasurement> lanes;
  Results sweeps;                   ///< the ping-pong of every protocol curve and of `auto`
  /// The alltoall's device figures (device_probe.hpp), threads 1: a posting
  /// thread and a proxy; none when the backend has no put_signal.
  std::optional<DeviceAttrs> device;
  Seconds device_o_burst = 0;       ///< a posting thread's time per put_signal back to back
  /// The ranks' device memory copies (runtime/cuda/cuda_memory.hpp), where
  /// the backend has a GPU; none elsewhere.
  std::optional<DeviceCopy> device_copy;
  /// What the simulation of each sweep point on the previous draft took
  /// beyond the point's cost line: the simulator's own structure, which the
  /// lines leave out (a ping-pong's acknowledgements, a near-empty last
  /// fragment's fixed costs). The figures are fitted to the measured times
  /// less it, so that the simulation, not only the lines, meets the
  /// measurements; empty for a first draft.
  PointSeconds simulated_excess;
  /// The protocol core's own time per message (core_probe.hpp), written on
  /// the lanes whose gets the target serves; not probed: none written.
  CoreTimes core;
  /// How the figures were sampled (rounds, time, stability; rounds.hpp),
  /// for the comment block; empty when not said.
  std::string sampling;
};

/// A fitted protocol cost line T(n) = c + m·n over the sizes it ran.
struct ProtocolFit {
  std::string curve;
  LineFit line;                     ///< relative least squares of the median time per message
  Bytes from = 0, to = 0;           ///< the sizes fitted
  double model_median_error = 0;    ///< median |model − measured| / measured on the calibrated lanes
  double model_worst_error = 0;     ///< the largest such error
};

/// A size where the measured `auto` curve changes line.
struct Breakpoint {
  Bytes before = 0;          ///< the last size of the line before
  Bytes after = 0;           ///< the first size of the new line
  std::string from, to;      ///< the protocols `auto` ran at those two sizes
};

struct Calibration {
  PlatformDraft draft;                   ///< the platform to write, its comment block filled
  std::vector<ProtocolFit> protocols;
  std::vector<Breakpoint> breakpoints;
  std::vector<std::string> notes;        ///< figures clipped or replaced, and why
  Seconds device_o_burst = 0;            ///< Measurements::device_o_burst, for the report
};

/// How much of the fitting calibrate() does.
enum class FitDepth {
  Probes,  ///< the probes' figures and the protocols' cost lines: a round's quick look
  Sweeps,  ///< and then every figure fitted to the protocols' sweeps (refine.hpp)
};

/// Fits every lane and protocol and drafts the platform.
/// @throws std::invalid_argument when a lane has too few points to fit.
Calibration calibrate(const Measurements& m, FitDepth depth = FitDepth::Sweeps);

}  // namespace xover::calib
