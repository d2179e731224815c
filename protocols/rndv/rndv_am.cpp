// rndv/am: the sender registers and sends an RTS on the AM lane; the receiver
// matches it and answers with an RTR; the sender then streams the data as
// zero-copy active-message fragments striped over the rendezvous lanes by
// bandwidth, and the receiver copies each into the user buffer.
//
//   T(n) = reg(n) + RTS(o_s + L + o_r) + RTR(o_s + L + o_r) + data(n)
//   data(n) = o_s + L + n/B + o_r + n/M_r              for n ≤ S
//           = cost::fragment_pipeline(t_s = o_s, t_r = o_r + S/M_r)  above
// with S = segment − header. Counted to the receiver's completion.
#include <algorithm>

#include "protocols/proto_costs.hpp"
#include "protocols/rndv/rndv.hpp"
#include "protocols/wire.hpp"

namespace xover {

PerfFactors reply_message(const LaneAttrs& lane) {
  PerfFactors p = cost::control_message(lane);
  std::swap(p[Factor::LocalCpu], p[Factor::RemoteCpu]);
  return p;
}

namespace {

std::optional<ProtoCandidate> probe_rndv_am(const ProbeContext& ctx) {
  const std::vector<LaneShare>& lanes = ctx.lanes.rndv_am;
  if (!ctx.lanes.am || lanes.empty())
    return std::nullopt;
  Bytes segment = kSizeMax;
  for (const LaneShare& share : lanes)
    segment = std::min({segment, ctx.path.lanes[share.lane].seg_size, ctx.path.lanes[share.lane].max_zcopy});
  if (segment <= wire::kRndvDataHdr)
    return std::nullopt;
  const Bytes payload = segment - wire::kRndvDataHdr;
  const LaneAttrs& am = ctx.path.lanes[*ctx.lanes.am];
  const LaneAttrs& first = ctx.path.lanes[lanes.front().lane];
  const LinearFunc recv_copy = cost::copy(ctx.path.memcpy_bw_remote);

  PerfFactors handshake = cost::control_message(am) + reply_message(am);
  handshake[Factor::LocalCpu] += cost::registration(ctx.path, lanes, ctx.config.reg_cache);

  PerfFactors one = cost::am_message(first);
  one[Factor::RemoteCpu] += recv_copy;
  const PerfFactors many = cost::fragment_pipeline(ctx.path, lanes, payload, LinearFunc::constant(first.o_send),
                                                   LinearFunc::constant(first.o_recv) + recv_copy);
  return ProtoCandidate{{PerfRange{0, payload, handshake + one}, PerfRange{payload + 1, kSizeMax, handshake + many}},
                        lanes};
}

}  // namespace

const Protocol rndv_am_proto{"rndv/am", "RTS, RTR, zero-copy AM fragments over the bandwidth lanes", ProtoFamily::Rndv,
                             probe_rndv_am};

}  // namespace xover
