// rndv/get: the sender registers and sends an RTS carrying the address and
// remote key; the receiver registers its buffer and reads the data with one
// RDMA get per RMA lane, striped by bandwidth (w_i = B_i / ΣB); it completes
// when the last get completes, then sends an ACK so the sender can release.
//
//   T(n) = reg_s(n) + RTS(o_s + L + o_r) + reg_r(n) + get(n)
//   get(n) = 2·L + n/ΣB + max(k·o_s + o_r, o_s + k·o_r)
// for k lanes: the receiver posts k gets (o_s each), every share takes
// n/ΣB, and the k completions are taken in (o_r each) as they arrive. The
// ACK is off the receiver's critical path and not counted. Exact when the
// posts end before the first completion (2L + n/ΣB ≥ (k−1)·o_s). A share
// above a lane's max_zcopy goes as several gets posted back to back; each
// moves max_zcopy bytes (a gibibyte by default), so the wire hides their
// posting and the formula holds.
#include <algorithm>

#include "protocols/proto_costs.hpp"
#include "protocols/rndv/rndv.hpp"

namespace xover {
namespace {

std::optional<ProtoCandidate> probe_rndv_get(const ProbeContext& ctx) {
  const std::vector<LaneShare>& lanes = ctx.lanes.rma;
  if (!ctx.lanes.am || lanes.empty())
    return std::nullopt;
  const LaneAttrs& am = ctx.path.lanes[*ctx.lanes.am];
  const LaneAttrs& first = ctx.path.lanes[lanes.front().lane];
  const double k = static_cast<double>(lanes.size());
  BytesPerSecond total_bw = 0;
  Seconds latency = 0;
  for (const LaneShare& share : lanes) {
    total_bw += ctx.path.lanes[share.lane].bandwidth;
    latency = std::max(latency, ctx.path.lanes[share.lane].latency);
  }
  const LinearFunc reg = cost::registration(ctx.path, lanes, ctx.config.reg_cache);

  PerfFactors p = cost::control_message(am);
  p[Factor::LocalCpu] += reg;
  p[Factor::RemoteCpu] += reg;
  p[Factor::RemoteCpu] += LinearFunc::constant(std::max(k * first.o_send + first.o_recv, first.o_send + k * first.o_recv));
  p[Factor::Latency] += LinearFunc::constant(2 * latency);
  p[Factor::Network] += LinearFunc::per_byte(1.0 / total_bw);
  p.gap = std::max(p.gap, first.gap);
  return ProtoCandidate{{PerfRange{0, kSizeMax, p}}, lanes};
}

}  // namespace

const Protocol rndv_get_proto{"rndv/get", "RTS with key, striped RDMA get by the receiver, ACK", ProtoFamily::Rndv,
                              probe_rndv_get};

}  // namespace xover
