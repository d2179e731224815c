// The calibration record of a draft (formats/calibration_record.hpp):
// which probe gave each figure, and the fit set, the workloads and curves
// whose measurements the figures were fitted to. Pure, private to calib/.
#pragma once

#include <map>
#include <string>

#include "protocols/workload/results.hpp"
#include "tools/calib/platform_writer.hpp"

namespace xover::calib {

/// The probes a lane's figures come from, before anything of the fit set
/// is added (calibration.cpp says how each is fitted):
///   latency    "prtt" (PRTT(1,0,0)/2 − o_s − o_r) or "get" (the gets'
///              intercept; not on a lane whose active messages were probed)
///   bandwidth  "prtt" (PRTT(1,0,s)'s slope less the copies) or "get" (the gets' slope)
///   o_send     "post" (timed around the posts); o_recv "delayed-prtt" (PRTT(n,d,s)
///              less the posts and delays); gap "train" (PRTT(n,0,s))
/// and "transport" for a figure the lane's probes do not give (a lane of
/// gets only: its overheads and gap, as its transport reports them).
/// `am_probed`: the lane's active messages were probed; `timed_gets`: its
/// bandwidth came from gets.
void set_probe_sources(const LaneAttrs& lane, bool am_probed, bool timed_gets,
                       std::map<std::string, std::string>& sources);

/// `key` ("mm.o_send", "memcpy") took something of the fit set's
/// measurements: "PROBE+fit-set", or "fit-set" where it had no probe.
void add_fit_set_source(std::map<std::string, std::string>& sources, const std::string& key);

/// Every figure of `after` that differs from `before` (lanes matched by
/// name: latency, bandwidth with its steps, o_send and o_recv with theirs,
/// gap, the lane's message factor; the copy bandwidth and its steps, the
/// nodes' message factor) was fitted to the fit set: "fit-set".
void set_refined_sources(const PlatformDraft& before, const PlatformDraft& after,
                         std::map<std::string, std::string>& sources);

/// The fit set of sweeps measured by the ping-pong workload: "pingpong:CURVE"
/// for every curve `sweeps` holds samples of, `auto` included (its points
/// are the fitted protocols' at each size, and its hand-overs are read from
/// it), in name order.
std::vector<FitEntry> pingpong_fit_set(const Results& sweeps);

}  // namespace xover::calib
