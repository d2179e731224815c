// eager/short, eager/bcopy, eager/zcopy: the whole message in one active
// message on the AM lane, matched at the receiver by its tag, no handshake.
//
//   short: o_s + L + n/B + o_r + n/M_r          (inline; n + hdr ≤ max_short)
//   bcopy: o_s + n/M_s + L + n/B + o_r + n/M_r  (bounce buffer; ≤ segment)
//   zcopy: reg(n) + o_s + L + n/B + o_r + n/M_r (registered; ≤ segment)
//
// M_s, M_r: memcpy bandwidth at each end; the receiver always copies out of
// its receive segment into the user buffer. reg(n) as cost::registration.
#include <algorithm>

#include "protocols/eager/eager.hpp"
#include "protocols/proto_costs.hpp"
#include "protocols/wire.hpp"

namespace xover {
namespace {

std::optional<ProtoCandidate> probe_single(const ProbeContext& ctx, LaneCap cap, Bytes max_message) {
  if (!ctx.lanes.am || !ctx.path.lanes[*ctx.lanes.am].caps.has(cap) || max_message <= wire::kEagerHdr)
    return std::nullopt;
  const LaneAttrs& lane = ctx.path.lanes[*ctx.lanes.am];
  PerfFactors p = cost::am_message(lane);
  p[Factor::RemoteCpu] += cost::copy(ctx.path.memcpy_bw_remote);
  if (cap == LaneCap::AmBcopy)
    p[Factor::LocalCpu] += cost::copy(ctx.path.memcpy_bw_local);
  if (cap == LaneCap::AmZcopy)
    p[Factor::LocalCpu] += cost::registration(ctx.path, {{*ctx.lanes.am, 1.0}}, ctx.config.reg_cache);
  return ProtoCandidate{{PerfRange{0, max_message - wire::kEagerHdr, p}}, {{*ctx.lanes.am, 1.0}}};
}

const LaneAttrs* am_lane(const ProbeContext& ctx) {
  return ctx.lanes.am ? &ctx.path.lanes[*ctx.lanes.am] : nullptr;
}

std::optional<ProtoCandidate> probe_short(const ProbeContext& ctx) {
  const LaneAttrs* lane = am_lane(ctx);
  return lane ? probe_single(ctx, LaneCap::AmShort, lane->max_short) : std::nullopt;
}

std::optional<ProtoCandidate> probe_bcopy(const ProbeContext& ctx) {
  const LaneAttrs* lane = am_lane(ctx);
  return lane ? probe_single(ctx, LaneCap::AmBcopy, std::min(lane->max_bcopy, lane->seg_size)) : std::nullopt;
}

std::optional<ProtoCandidate> probe_zcopy(const ProbeContext& ctx) {
  const LaneAttrs* lane = am_lane(ctx);
  return lane ? probe_single(ctx, LaneCap::AmZcopy, std::min(lane->max_zcopy, lane->seg_size)) : std::nullopt;
}

}  // namespace

const Protocol eager_short_proto{"eager/short", "inline active message", ProtoFamily::Eager, probe_short};
const Protocol eager_bcopy_proto{"eager/bcopy", "copied active message", ProtoFamily::Eager, probe_bcopy};
const Protocol eager_zcopy_proto{"eager/zcopy", "zero-copy active message", ProtoFamily::Eager, probe_zcopy};

}  // namespace xover
