// The figures by size refine_lanes (refine.hpp) adds beside the lanes'
// own, each kept only where it takes enough off the cost (refine_steps.cpp:
// kWorth): the message factor every lane sees, a lane's own factor, a
// lane's bandwidth step, a lane's overhead step. Each moves the draft and
// `current`, its cost, only where it gains. Private to tools/calib.
#pragma once

#include <cstddef>

#include "tools/calib/refine_search.hpp"

namespace xover::calib {

/// The slope a of a factor factor_steps() made: 1 / its first step past 1, less 1.
double factor_slope(const SizeSteps& factor);

/// The message factor every lane and copy sees (Path::message_factor,
/// draft.bw_factor), by fit_factor, the copy bandwidth searched beside it
/// where `move_copy` (not where a probe identifies it).
void fit_message_factor(PlatformDraft& draft, const SweepsByCurve& by_curve, bool move_copy, double& current,
                        RefineReport& report);

/// One lane's own message factor (LaneAttrs::message_factor), which paces
/// its transfers in place of the nodes' while the copies keep theirs (a
/// cma get bends past the caches otherwise than shared memory's copies),
/// by fit_factor, the lane's bandwidth searched beside it where
/// `move_bandwidth` (not where a probe identifies it).
void fit_lane_message_factor(PlatformDraft& draft, std::size_t lane, const SweepsByCurve& by_curve,
                             bool move_bandwidth, double& current);

/// One lane's bandwidth for operations of b bytes and more (a TCP stream of
/// 64 KiB fragments paces far slower per byte than one 32 KiB message,
/// which the socket takes whole), slower again by 1 + a·log2(n / b) past b
/// in steps at b's doublings (a get of a ping-pong's buffers past the
/// caches): b just past each sweep size from 1 KiB, the bandwidth
/// from b from an eighth of the lane's up to it, the one below b from an
/// eighth to eight times (each a grid on a log scale, then golden section),
/// a from 0 to 4. A first step is kept when it gains
/// as to_beat says, a later one when it gains over the one in place; the lane
/// keeps its own steps otherwise. True when the lane has a step at the end.
bool fit_bandwidth_step(PlatformDraft& draft, std::size_t lane, const SweepsByCurve& by_curve, double& current);

/// One lane's overheads below s bytes and from s bytes on, o_send and
/// o_recv each times one ratio below and another from s (a ping-pong sees
/// their sum, not the split): the fixed costs of small messages change with
/// size by more than a line follows (SMPI's `smpi/os` sections; shared
/// memory's 32 B messages take less time on this project's machine than
/// its 8 B ones). s each sweep size but the smallest up to 64 KiB (past
/// it, fixed costs are a few per cent of a point, and the bandwidth's
/// steps hold what changes there), the
/// ratios from a quarter to four times (each a grid on a log scale, then
/// golden section; the one from s, the one below, the one from s again).
/// A first step is kept when it gains as to_beat says, a later one when it
/// gains over the one in place; the lane keeps its own figures otherwise.
/// True when the lane has steps at the end.
bool fit_overhead_step(PlatformDraft& draft, std::size_t lane, const SweepsByCurve& by_curve, double& current);

}  // namespace xover::calib
