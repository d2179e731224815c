// rndv/pipe: a rendezvous for device buffers between ranks that cannot map
// each other's memory, pipelined through host fragments (the shape of UCX's
// rndv with memory-type staging). The sender sends an RTS; the receiver
// matches it and answers with an RTR; the sender then copies its buffer to
// host memory one fragment at a time and sends each as a copied active
// message, striped over the rendezvous lanes; the receiver copies each
// fragment from its receive segment into its device buffer. The two ends'
// copies overlap: the receiver lands fragment k while the sender stages k+1.
//
//   T(n) = RTS(o_s + L + 48/B + o_r) + RTR(o_s + L + 16/B + o_r) + data(n)
//   data(n) = t_s(n) + L + (16+n)/B + t_r(n)                for n ≤ S
//           = cost::fragment_pipeline(t_s, t_r)            above
//   t_s(x) = o_s + stage_s(x) + x/M_s,  t_r(x) = o_r + stage_r(x)
// with S = the smallest bcopy segment of the lanes − header, stage(x) =
// stage_o + x/stage_bw at each end, stage(0) = 0 (an empty message copies
// nothing), x/M_s only where the first lane's transport copies a bcopy
// message (LaneAttrs::bcopy_copies). Counted to the receiver's completion.
//
// Stages (RndvPipeStage): Rts at the sender, Rtr at the receiver, Data at
// the sender.
#include <algorithm>
#include <array>

#include "protocols/core/device_memory.hpp"
#include "protocols/core/stages.hpp"
#include "protocols/mtype/mtype.hpp"
#include "protocols/proto_costs.hpp"
#include "protocols/rndv/rndv.hpp"
#include "protocols/wire.hpp"

namespace xover {
namespace {

enum class RndvPipeStage : std::uint8_t {
  Rts,   ///< sender: RTS; wait for the RTR
  Rtr,   ///< receiver, once matched: RTR; then each fragment into the device buffer
  Data,  ///< sender, on the RTR: each fragment staged and sent, striped by weight
};

// Payload bytes per fragment over `lanes`; 0 when a header does not fit.
Bytes fragment_payload(const Path& path, const std::vector<LaneShare>& lanes) {
  Bytes segment = kSizeMax;
  for (const LaneShare& share : lanes)
    segment = std::min({segment, path.lanes[share.lane].seg_size, path.lanes[share.lane].max_bcopy});
  return segment <= wire::kRndvDataHdr ? 0 : segment - wire::kRndvDataHdr;
}

std::optional<ProtoCandidate> probe_pipe(const ProbeContext& ctx) {
  const std::vector<LaneShare>& lanes = ctx.bw_lanes;
  if (!ctx.lanes.am || lanes.empty() || ctx.path.device_local.stage_bw <= 0 || ctx.path.device_remote.stage_bw <= 0)
    return std::nullopt;
  const Bytes payload = fragment_payload(ctx.path, lanes);
  if (payload == 0)
    return std::nullopt;
  const LaneAttrs& am = ctx.path.lanes[*ctx.lanes.am];
  const LaneAttrs& first = ctx.path.lanes[lanes.front().lane];
  const LinearFunc send_copies =
      cost::stage(ctx.path.device_local) + cost::bcopy_send_copy(first, ctx.path.memcpy_bw_local);
  const LinearFunc recv_copies = cost::stage(ctx.path.device_remote);

  const PerfFactors handshake = cost::control_message(am, wire::kRtsHdr) + reply_message(am);
  // An empty message is one empty fragment: nothing to copy.
  const PerfFactors empty = handshake + cost::am_message(first, wire::kRndvDataHdr);
  PerfFactors one = cost::am_message(first, wire::kRndvDataHdr);
  one[Factor::LocalCpu] += send_copies;
  one[Factor::RemoteCpu] += recv_copies;
  const PerfFactors many =
      cost::fragment_pipeline(ctx.path, lanes, payload, wire::kRndvDataHdr,
                              LinearFunc::constant(first.o_send) + send_copies,
                              LinearFunc::constant(first.o_recv) + recv_copies);
  return ProtoCandidate{{PerfRange{0, 0, empty}, PerfRange{1, payload, handshake + one},
                         PerfRange{payload + 1, kSizeMax, handshake + many}},
                        lanes};
}

// The Rts stage.
void send_pipe(Worker& worker, Request& req) {
  req.set_stage(RndvPipeStage::Rts);
  send_rts(worker, req, {});
}

// The Rtr stage, once a receive matched the RTS.
void recv_start_pipe(Worker& worker, Request& req) {
  req.set_stage(RndvPipeStage::Rtr);
  wire::ControlHeader header;
  header.put(req.remote_id).put(req.id);
  stages::send_control(worker, req.peer, req.length, kAmPipeRtr, header,
                       [&worker, &req] { worker.complete(req, Status::Error); });
}

// The Data stage: each fragment staged into host memory right before it is
// handed to the transport, which copies it (bcopy), so one staging buffer
// serves them all.
void send_staged_fragments(Worker& worker, Request& req, Request::Id receiver, Bytes payload) {
  Bytes offset = 0;
  do {
    const Bytes n = std::min(payload, req.length - offset);
    const std::size_t lane = req.lanes[worker.next_lane(req)].lane;
    wire::FragmentHeader header;
    header.put(receiver).put(offset);
    stages::part_started(req);
    worker.submit([&worker, &req, lane, header, offset, n]() {
      const Transport::MessageScope scope(worker.transport(), req.length, req.peer);
      DeviceMemory& device = *worker.transport().device_memory();
      std::byte* host = device.staging(n);
      const std::byte* from = req.send_buf.slice(offset, n).data;
      const Status st = n > 0 && !device.to_host(from ? host : nullptr, from, n)
                            ? Status::Error
                            : worker.transport().am_send(lane, req.peer, kAmPipeData, header.bytes(),
                                                         {from ? host : nullptr, n}, AmMode::Bcopy, Completion());
      if (st != Status::NoResource)
        req.offset = offset + n;
      if (st == Status::Ok || st == Status::Error)
        stages::part_done(worker, req, st, req.offset == req.length);
      return st;
    });
    offset += n;
  } while (offset < req.length);
}

void pipe_rtr_handle(Worker& worker, const AmMessage& msg);
void pipe_data_handle(Worker& worker, const AmMessage& msg);
constexpr std::array kMessages{kRtsMessage, AmKind{kAmPipeRtr, "pipe-rtr", pipe_rtr_handle},
                               AmKind{kAmPipeData, "pipe-data", pipe_data_handle}};

}  // namespace

const Protocol rndv_pipe_proto{.name = "rndv/pipe",
                               .description = "RTS, RTR, device buffer staged to host fragment by fragment",
                               .wire_id = 8,
                               .family = ProtoFamily::Rndv,
                               .bw_lanes = LaneRequirement{LaneCap::AmBcopy, &LaneConfig::max_rndv_lanes},
                               .probe = probe_pipe,
                               .send = send_pipe,
                               .recv_start = recv_start_pipe,
                               .mem_types = mem_bit(MemType::Cuda),
                               .messages = kMessages};

namespace {

// The RTR {sender request, receiver request} moves the sender from Rts to
// Data; a second one for the same request is dropped.
void pipe_rtr_handle(Worker& worker, const AmMessage& msg) {
  Request::Id receiver = 0;
  Request* req = stages::take_rtr(worker, msg, rndv_pipe_proto, RndvPipeStage::Rts, RndvPipeStage::Data, receiver);
  if (!req)
    return;
  send_staged_fragments(worker, *req, receiver, fragment_payload(worker.transport().path(req->peer), req->lanes));
}

void pipe_data_handle(Worker& worker, const AmMessage& msg) {
  stages::take_fragment(worker, msg, rndv_pipe_proto, RndvPipeStage::Rtr);
}

}  // namespace

}  // namespace xover
