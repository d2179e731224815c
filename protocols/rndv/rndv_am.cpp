// rndv/am: the sender registers and sends an RTS on the AM lane; the receiver
// matches it and answers with an RTR; the sender then streams the data as
// zero-copy active-message fragments striped over the rendezvous lanes by
// bandwidth, and the receiver copies each into the user buffer.
//
//   T(n) = reg(n) + RTS(o_s + L + 48/B + o_r) + RTR(o_s + L + 16/B + o_r) + data(n)
//   data(n) = o_s + L + (16+n)/B + o_r + n/M_r         for n ≤ S
//           = cost::fragment_pipeline(t_s = o_s, t_r = o_r + S/M_r)  above
// with S = segment − header. Counted to the receiver's completion. Figures
// that change with the operation's size (LaneAttrs::o_send_steps, bandwidth_steps,
// the memcpy steps) are taken at 0 for RTS and RTR, at n for a message of one fragment,
// and at S for the fragments of a longer one.
//
// Stages (RndvAmStage): Rts at the sender, Rtr at the receiver, Data at the
// sender; the receiver takes the fragments in its Rtr stage.
#include <algorithm>
#include <array>

#include "protocols/core/stages.hpp"
#include "protocols/proto_costs.hpp"
#include "protocols/rndv/rndv.hpp"
#include "protocols/wire.hpp"

namespace xover {
namespace {

enum class RndvAmStage : std::uint8_t {
  Rts,   ///< sender: register, RTS; wait for the RTR
  Rtr,   ///< receiver, once matched: RTR; then each fragment into the user buffer, complete when all are in
  Data,  ///< sender, on the RTR: every fragment {receiver request, offset}, striped by weight; complete
         ///< when the transport releases the last
};

}  // namespace

PerfFactors reply_message(const LaneAttrs& lane) {
  PerfFactors p = cost::control_message(lane, wire::kRtrHdr);
  std::swap(p[Factor::LocalCpu], p[Factor::RemoteCpu]);
  return p;
}

namespace {

// Payload bytes per data fragment over `lanes`; 0 when a header does not fit.
Bytes fragment_payload(const Path& path, const std::vector<LaneShare>& lanes) {
  Bytes segment = kSizeMax;
  for (const LaneShare& share : lanes)
    segment = std::min({segment, path.lanes[share.lane].seg_size, path.lanes[share.lane].max_zcopy});
  return segment <= wire::kRndvDataHdr ? 0 : segment - wire::kRndvDataHdr;
}

std::optional<ProtoCandidate> probe_rndv_am(const ProbeContext& ctx) {
  const std::vector<LaneShare>& lanes = ctx.bw_lanes;
  if (!ctx.lanes.am || lanes.empty())
    return std::nullopt;
  const Bytes payload = fragment_payload(ctx.path, lanes);
  if (payload == 0)
    return std::nullopt;
  // Control messages carry no payload; fragments carry `payload` bytes each.
  const Path control = ctx.path.at(0);
  const Path fragment = ctx.path.at(payload);
  const LaneAttrs& am = control.lanes[*ctx.lanes.am];
  const LaneAttrs& first = ctx.path.lanes[lanes.front().lane];
  const LaneAttrs& first_fragment = fragment.lanes[lanes.front().lane];
  const LinearFunc recv_copy = cost::copy(ctx.path.memcpy_bw_remote);
  const LinearFunc fragment_copy = cost::copy(fragment.memcpy_bw_remote);

  PerfFactors handshake = cost::control_message(am, wire::kRtsHdr) + reply_message(am);
  handshake[Factor::LocalCpu] += cost::registration(ctx.path, lanes, ctx.config.reg_cache);

  PerfFactors one = cost::am_message(first, wire::kRndvDataHdr);
  one[Factor::RemoteCpu] += recv_copy;
  const PerfFactors many = cost::fragment_pipeline(fragment, lanes, payload, wire::kRndvDataHdr,
                                                   LinearFunc::constant(first_fragment.o_send),
                                                   LinearFunc::constant(first_fragment.o_recv) + fragment_copy);
  return ProtoCandidate{{PerfRange{0, payload, handshake + one}, PerfRange{payload + 1, kSizeMax, handshake + many}},
                        lanes};
}

// The Rts stage.
void send_rndv_am(Worker& worker, Request& req) {
  req.set_stage(RndvAmStage::Rts);
  worker.reg(req, req.send_buf.data, req.length);
  send_rts(worker, req, {});
}

// The Rtr stage, once a receive matched the RTS.
void recv_start_rndv_am(Worker& worker, Request& req) {
  req.set_stage(RndvAmStage::Rtr);
  wire::ControlHeader header;
  header.put(req.remote_id).put(req.id);
  stages::send_control(worker, req.peer, req.length, kAmRtr, header,
                       [&worker, &req] { worker.complete(req, Status::Error); });
}

void rtr_handle(Worker& worker, const AmMessage& msg);
void rndv_data_handle(Worker& worker, const AmMessage& msg);
constexpr std::array kMessages{kRtsMessage, AmKind{kAmRtr, "rtr", rtr_handle},
                               AmKind{kAmRndvData, "rndv-data", rndv_data_handle}};

}  // namespace

const Protocol rndv_am_proto{.name = "rndv/am",
                             .description = "RTS, RTR, zero-copy AM fragments over the bandwidth lanes",
                             .wire_id = 5,
                             .family = ProtoFamily::Rndv,
                             .bw_lanes = LaneRequirement{LaneCap::AmZcopy, &LaneConfig::max_rndv_lanes},
                             .probe = probe_rndv_am,
                             .send = send_rndv_am,
                             .recv_start = recv_start_rndv_am,
                             .messages = kMessages};

namespace {

// The RTR {sender request, receiver request} moves the sender from Rts to
// Data; a second one for the same request is dropped, not sent twice.
void rtr_handle(Worker& worker, const AmMessage& msg) {
  Request::Id receiver = 0;
  Request* req = stages::take_rtr(worker, msg, rndv_am_proto, RndvAmStage::Rts, RndvAmStage::Data, receiver);
  if (!req)
    return;
  stages::send_fragments(worker, *req, kAmRndvData, AmMode::Zcopy,
                         fragment_payload(worker.transport().path(req->peer), req->lanes),
                         [receiver](wire::FragmentHeader& data, Bytes offset) { data.put(receiver).put(offset); });
}

// At the receiver, in the Rtr stage: one fragment {receiver request,
// offset}. The receive's `arrived` holds the bytes that came, each once
// (a repeated fragment is refused), `received` those that fit.
void rndv_data_handle(Worker& worker, const AmMessage& msg) {
  stages::take_fragment(worker, msg, rndv_am_proto, RndvAmStage::Rtr);
}

}  // namespace

}  // namespace xover
