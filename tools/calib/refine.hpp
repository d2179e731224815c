// The lanes' figures fitted to the protocols' own ping-pong sweeps.
//
// The probes measure the bare transport; the protocols' sweeps measure what
// a user's ping-pong sees, through the protocol core. Where the two
// disagree (a loopback probe's round trip slower than the whole protocol
// stack's, a stream's pace that fragments of one message do not reach),
// the model, and the simulation that follows it, inherit the probes'
// error. As SMPI fits its factors to ping-pong measurements, refine_lanes
// moves each lane figure and the copy bandwidth that no probe identifies
// (calibrate leaves a probe's figure as it is), one at a time, to the
// value that minimises the relative errors (model − measured) / measured
// over every forced protocol's sweep, squared up to 10 % and linearly past
// it (Huber's loss: a point the machine spoiled pulls no harder than a
// 10 % miss), by coordinate descent (a grid, then golden section within
// the best cell), until a pass improves the sum by less than 0.1 %.
// The probes' figures are where it starts.
//
//   std::vector<SweepPoint> points = ...;   // (curve, size, median)
//   RefineReport r = refine_lanes(draft, points);
#pragma once

#include <string>
#include <vector>

#include <map>
#include <optional>
#include <set>
#include <utility>

#include "protocols/select/threshold_table.hpp"
#include "protocols/units.hpp"
#include "tools/calib/platform_writer.hpp"

namespace xover::calib {

/// The path between the draft's two nodes, as the simulator loads it.
Path draft_path(const PlatformDraft& draft);

/// The time `table`'s choice at n costs by its cost line (Latency); none
/// when no protocol of the table carries n.
std::optional<Seconds> model_time(const ThresholdTable& table, Bytes n);

/// One measured point of a forced protocol's sweep.
struct SweepPoint {
  std::string curve;     ///< the forced protocol (a name `proto` accepts)
  Bytes size = 0;
  Seconds measured = 0;  ///< the median time per message
};

/// Seconds per (curve, size) point of the sweeps.
using PointSeconds = std::map<std::pair<std::string, Bytes>, Seconds>;

struct RefineReport {
  double rel_rms_before = 0;          ///< relative RMS of model against measured, before
  double rel_rms_after = 0;           ///< the same after
  std::size_t points = 0;             ///< points fitted
  int passes = 0;                     ///< passes over every figure
  /// "lane mm: o_send 0.0180 -> 0.0405 us", one per figure moved, then each
  /// step and lane message factor added ("lane cma: message factor from
  /// 524288 B: slope 0.3000").
  std::vector<std::string> changes;
  /// The message factor fitted (draft.bw_factor): 1 / (1 + slope·log2(n / from))
  /// past `from`; from 0 when none is.
  Bytes factor_from = 0;
  double factor_slope = 0;
};

/// The relative RMS of the model of `draft` against `points`; a point whose
/// size the forced protocol does not carry counts as a 100 % miss.
double model_rel_rms(const PlatformDraft& draft, const std::vector<SweepPoint>& points);

/// Moves the draft's lane figures (o_send, o_recv and latency of each lane,
/// from a quarter to four times their value, or from 0 to the fastest
/// point's time where it is 0; o_send_after, where there is one, from 0 to
/// o_send (the caller keeps it at most o_send after); the gap likewise but not past twice the
/// fastest point's time, a ping-pong's round trip, unless it is there; the
/// bandwidth, with its steps, from an eighth to eight times) and its copy
/// bandwidth (with its steps, likewise) to the least squares of the
/// relative errors over `points`; a figure with steps by size moves them in
/// proportion. Then, where each takes 1 % off the fit's cost and at least
/// a 1 % miss's square per point (less would be fitting noise): a lane's overheads
/// for operations from one sweep size on (o_send and o_recv steps, SMPI's
/// `smpi/os` sections, both by one ratio: a ping-pong sees their sum), a
/// lane's bandwidth from one size on, and a message factor (draft.bw_factor, SMPI's
/// bw-factor): past a sweep size n0 from 64 KiB, a message's every
/// per-byte cost slowed by a factor 1 + a·log2(n / n0), in steps at n0's
/// doublings (a ping-pong's buffers outgrowing the caches, which no probe
/// of one buffer sees), and for each lane with a bandwidth its own message
/// factor of the same shape (LaneAttrs::message_factor, its link's
/// `xover:bw_factor`: its transfers bend in place of the nodes' factor, the
/// copies keep theirs, as a cma get bends otherwise than shared memory's
/// copies), fitted before its bandwidth step, whose slope could stand in
/// for it on a get; a change line "lane cma: message factor from N B:
/// slope a" says each one found. Each factor's slope is searched with the
/// figure it multiplies beside it (the copy bandwidth for the nodes', the
/// lane's bandwidth for a lane's), which must then hold the sizes below n0
/// alone. The lanes are fitted again beside them.
/// Nothing moves when `points` is empty.
///
/// `identified`: the figures a probe identifies, by the calibration
/// record's key ("mm.o_send", "mm.gap", "cma.bandwidth", "memcpy";
/// provenance.hpp): none of them moves, nor a step by size of one (a
/// lane's overhead steps stay where both its overheads are identified, its
/// bandwidth steps where its bandwidth is), nor does a message factor's
/// search move one beside it. What is left to the fit is what no probe
/// identifies; the report's changes name every figure it moved.
RefineReport refine_lanes(PlatformDraft& draft, const std::vector<SweepPoint>& points,
                          const std::set<std::string>& identified = {});

}  // namespace xover::calib
