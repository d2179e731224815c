// eager/multi/bcopy, eager/multi/zcopy (Open MPI ob1 multi-eager, after UCX's
// multi-fragment eager): a message cut into fragments of one receive segment
// (S = segment − header), sent back to back over the eager lanes with no
// handshake. The receiver matches the first fragment and copies each one into
// the user buffer (or buffers them until complete when no receive is posted).
//
//   n ≤ S:  one fragment: o_s [+ n/M_s] + L + n/B + o_r + n/M_r
//   n > S:  cost::fragment_pipeline with per fragment
//           t_s = o_s + S/M_s (bcopy) or o_s (zcopy), t_r = o_r + S/M_r;
//   zcopy adds reg(n) on every eager lane's memory domain before the first.
#include <algorithm>

#include "protocols/eager/eager.hpp"
#include "protocols/proto_costs.hpp"
#include "protocols/wire.hpp"

namespace xover {
namespace {

std::optional<ProtoCandidate> probe_multi(const ProbeContext& ctx, bool zcopy) {
  const std::vector<LaneShare>& lanes = zcopy ? ctx.lanes.eager_zcopy : ctx.lanes.eager_bcopy;
  if (lanes.empty())
    return std::nullopt;
  Bytes segment = kSizeMax;
  for (const LaneShare& share : lanes) {
    const LaneAttrs& lane = ctx.path.lanes[share.lane];
    segment = std::min({segment, lane.seg_size, zcopy ? lane.max_zcopy : lane.max_bcopy});
  }
  if (segment <= wire::kMultiHdr)
    return std::nullopt;
  const Bytes payload = segment - wire::kMultiHdr;
  const LaneAttrs& first = ctx.path.lanes[lanes.front().lane];
  const LinearFunc send_copy = zcopy ? LinearFunc{} : cost::copy(ctx.path.memcpy_bw_local);
  const LinearFunc recv_copy = cost::copy(ctx.path.memcpy_bw_remote);

  PerfFactors one = cost::am_message(first);
  one[Factor::LocalCpu] += send_copy;
  one[Factor::RemoteCpu] += recv_copy;
  PerfFactors many = cost::fragment_pipeline(ctx.path, lanes, payload, LinearFunc::constant(first.o_send) + send_copy,
                                             LinearFunc::constant(first.o_recv) + recv_copy);
  if (zcopy) {
    const LinearFunc reg = cost::registration(ctx.path, lanes, ctx.config.reg_cache);
    one[Factor::LocalCpu] += reg;
    many[Factor::LocalCpu] += reg;
  }
  return ProtoCandidate{{PerfRange{0, payload, one}, PerfRange{payload + 1, kSizeMax, many}}, lanes};
}

std::optional<ProtoCandidate> probe_multi_bcopy(const ProbeContext& ctx) {
  return probe_multi(ctx, false);
}

std::optional<ProtoCandidate> probe_multi_zcopy(const ProbeContext& ctx) {
  return probe_multi(ctx, true);
}

}  // namespace

const Protocol eager_multi_bcopy_proto{"eager/multi/bcopy", "copied eager fragments, no handshake",
                                       ProtoFamily::MultiEager, probe_multi_bcopy};
const Protocol eager_multi_zcopy_proto{"eager/multi/zcopy", "zero-copy eager fragments, no handshake",
                                       ProtoFamily::MultiEager, probe_multi_zcopy};

}  // namespace xover
