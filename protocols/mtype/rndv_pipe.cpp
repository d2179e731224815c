// rndv/pipe: a rendezvous for device buffers between ranks that cannot map
// each other's memory, pipelined through host fragments (the shape of UCX's
// rndv with memory-type staging). The sender sends an RTS; the receiver
// matches it and answers with an RTR; the sender then keeps up to the
// device memory's pipeline depth of fragments in flight, each in a staging
// slot of its own: the copy of the fragment to host memory started
// (DeviceMemory::copy_async), and, once that copy completes, the fragment
// sent as a copied active message, striped over the rendezvous lanes, its
// slot then free for the next. Fragments may leave, and land, in any order.
// The receiver copies each fragment out of its receive segment (which the
// transport takes back when the handler returns) into a staging slot and
// starts the slot's copy into its device buffer, also at most the depth at
// once: a fragment that lands while that many are in flight waits in host
// memory (not pinned) for a slot. The receive completes when every byte is
// in and every such copy has completed. The ends' copies
// overlap: the receiver lands fragment k while the sender stages k+1.
// A request released while copies of its are in flight (a transport
// failure completes it at once) stays out of the worker's pool until they
// have completed (Worker::copy_done); their completions then only give
// their slots back.
//
//   T(n) = RTS(o_s + L + 48/B + o_r) + RTR(o_s + L + 16/B + o_r) + data(n)
//   data(n) = t_s(n) + L + (16+n)/B + t_r(n)                for n ≤ S
//           = cost::fragment_pipeline(t_s, t_r)            above
//   t_s(x) = o_s + stage_s(x) + x/M_s,  t_r(x) = o_r + x/M_r + stage_r(x)
// with S = the smallest bcopy segment of the lanes − header, stage(x) =
// stage_o + x/stage_bw at each end (from pinned memory: the staging slots),
// stage(0) = 0 (an empty message copies nothing), x/M_s only where the
// first lane's transport copies a bcopy message (LaneAttrs::bcopy_copies),
// x/M_r the receiver's copy out of its receive segment into a slot.
// Counted to the receiver's completion. The copies are priced as their
// end's time, as the simulator charges them; on a GPU a started copy
// leaves the CPU free, so there the line is an upper bound of the ends'
// stages (none of this has run on a GPU).
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
  const LinearFunc recv_copies = cost::copy(ctx.path.memcpy_bw_remote) + cost::stage(ctx.path.device_remote);

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

// The Data stage. A fragment: where its bytes go at the receiver, which
// part of the message, and its staging slot (null for a phantom payload).
struct Fragment {
  Request::Id receiver = 0;
  Bytes payload = 0;  ///< the message's fragment size
  Bytes offset = 0;
  Bytes n = 0;
  std::byte* slot = nullptr;
};

void fill_pipeline(Worker& worker, Request& req, Request::Id receiver, Bytes payload);

// Its copy to host is done (or failed): the fragment goes, behind the sends
// queued before it; once the transport has taken it its slot is free, and
// the next fragment's copy starts.
void send_fragment(Worker& worker, Request& req, const Fragment& f, Status copied) {
  const std::size_t lane = req.lanes[worker.next_lane(req)].lane;
  wire::FragmentHeader header;
  header.put(f.receiver).put(f.offset);
  worker.submit([&worker, &req, lane, header, f, copied]() {
    Status st = copied;
    if (st != Status::Error) {
      const Transport::MessageScope scope(worker.transport(), req.length, req.peer);
      st = worker.transport().am_send(lane, req.peer, kAmPipeData, header.bytes(), {f.slot, f.n}, AmMode::Bcopy,
                                      Completion());
      if (st == Status::NoResource)
        return st;
    }
    if (f.slot)
      worker.transport().device_memory()->give_staging(f.slot);
    if (st == Status::Error)
      req.offset = req.length;  // no fragment after a failed one
    stages::part_done(worker, req, st, req.offset == req.length);
    if (!req.done)
      fill_pipeline(worker, req, f.receiver, f.payload);
    return st;
  });
}

// The next fragment: a slot taken, its copy to host started.
void start_fragment(Worker& worker, Request& req, Fragment f) {
  DeviceMemory& device = *worker.transport().device_memory();
  const std::byte* from = req.send_buf.slice(f.offset, f.n).data;
  stages::part_started(req);
  f.slot = from && f.n > 0 ? device.take_staging(f.n) : nullptr;
  if (from && f.n > 0 && !f.slot) {
    send_fragment(worker, req, f, Status::Error);
    return;
  }
  Status st = Status::Ok;
  if (f.n > 0) {
    const Transport::MessageScope scope(worker.transport(), req.length, req.peer);
    st = device.copy_async(DeviceMemory::CopyKind::ToHost, f.slot, from, f.n, [&worker, &req, f](Status copied) {
      if (worker.copy_done(req))
        send_fragment(worker, req, f, copied);
      else
        worker.transport().device_memory()->give_staging(f.slot);
    });
  }
  if (st == Status::InProgress)
    worker.copy_started(req);
  else
    send_fragment(worker, req, f, st);
}

// Starts fragments while fewer than the pipeline's depth are in flight.
// Where copies complete at once (the simulator) a fragment goes out and
// frees its place inside start_fragment: the loop, not a recursion through
// send_fragment, moves on (`pumping` marks it).
void fill_pipeline(Worker& worker, Request& req, Request::Id receiver, Bytes payload) {
  if (req.pumping)
    return;
  req.tail_used = true;
  req.pumping = true;
  const std::size_t depth = worker.transport().device_memory()->pipeline_depth();
  while (req.offset < req.length && req.outstanding < depth && !req.done) {
    const Bytes n = std::min(payload, req.length - req.offset);
    const Fragment f{receiver, payload, req.offset, n, nullptr};
    req.offset += n;
    start_fragment(worker, req, f);
  }
  req.pumping = false;
}

void send_staged_fragments(Worker& worker, Request& req, Request::Id receiver, Bytes payload) {
  if (req.length == 0) {
    // One empty fragment, so that the receiver sees the message.
    stages::part_started(req);
    send_fragment(worker, req, Fragment{receiver, payload, 0, 0, nullptr}, Status::Ok);
    return;
  }
  fill_pipeline(worker, req, receiver, payload);
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

void land_fragment(Worker& worker, Request& req, Bytes offset, const std::byte* bytes, Bytes fit);

// A fragment's copy into the device buffer is done (or failed): its slot
// is free, and the fragments held for one start their copies (a loop, not
// a recursion, where copies complete at once: `pumping` marks it); the
// receive completes once every byte is in and every copy done.
void fragment_landed(Worker& worker, Request& req, std::byte* slot, Bytes fit, Status st) {
  DeviceMemory& device = *worker.transport().device_memory();
  if (slot)
    device.give_staging(slot);
  if (st == Status::Error)
    req.status = Status::Error;
  req.received += fit;
  --req.outstanding;
  if (req.done)
    req.held.clear();
  if (!req.pumping) {
    req.pumping = true;
    while (!req.held.empty() && !req.done && req.outstanding < device.pipeline_depth()) {
      const Request::HeldFragment next = std::move(req.held.back());
      req.held.pop_back();
      land_fragment(worker, req, next.offset, next.bytes.data(), next.bytes.size());
    }
    req.pumping = false;
  }
  if (req.outstanding == 0 && req.held.empty() && req.arrived.bytes() == req.length)
    worker.complete(req, req.length > req.recv_buf.size ? Status::Error : req.status);
}

// Copies `fit` bytes of a fragment (the receive segment's, or held) into a
// staging slot and starts the slot's copy into the device buffer at `offset`.
void land_fragment(Worker& worker, Request& req, Bytes offset, const std::byte* bytes, Bytes fit) {
  DeviceMemory& device = *worker.transport().device_memory();
  std::byte* to = req.recv_buf.slice(offset, fit).data;
  ++req.outstanding;
  std::byte* slot = to && bytes && fit > 0 ? device.take_staging(fit) : nullptr;
  if (to && bytes && fit > 0 && !slot) {
    fragment_landed(worker, req, nullptr, fit, Status::Error);
    return;
  }
  Status st = Status::Ok;
  if (fit > 0) {
    const Transport::MessageScope scope(worker.transport(), req.length, req.peer);
    worker.transport().copy(slot, bytes, fit);
    st = device.copy_async(DeviceMemory::CopyKind::ToDevice, to, slot, fit, [&worker, r = &req, slot, fit](Status landed) {
      if (worker.copy_done(*r))
        fragment_landed(worker, *r, slot, fit, landed);
      else
        worker.transport().device_memory()->give_staging(slot);
    });
  }
  if (st == Status::InProgress)
    worker.copy_started(req);
  else
    fragment_landed(worker, req, slot, fit, st);
}

// A data fragment {receiver request, offset} + payload, in the Rtr stage:
// each byte once (a repeated fragment is refused), copied out of the
// receive segment into a staging slot whose copy into the device buffer
// then starts, or, while the depth of such copies is in flight, held until
// one completes. A fragment that fits no such receive is a bad header.
void pipe_data_handle(Worker& worker, const AmMessage& msg) {
  wire::HeaderReader header(msg.header);
  Request* req = worker.find(static_cast<Request::Id>(header.get()), RequestKind::Recv);
  const Bytes offset = header.get();
  if (!header.exact() || !req || req->protocol != &rndv_pipe_proto || req->stage<RndvPipeStage>() != RndvPipeStage::Rtr ||
      req->peer != msg.source || offset > req->length || msg.payload.size > req->length - offset ||
      !req->arrived.add(offset, msg.payload.size)) {
    worker.count_bad_header();
    return;
  }
  const Bytes fit = offset < req->recv_buf.size ? std::min(msg.payload.size, req->recv_buf.size - offset) : 0;
  const bool staged = fit > 0 && msg.payload.data && req->recv_buf.data;
  if (staged && req->outstanding >= worker.transport().device_memory()->pipeline_depth()) {
    req->held.push_back({offset, {msg.payload.data, msg.payload.data + fit}});
    return;
  }
  land_fragment(worker, *req, offset, msg.payload.data, fit);
}

}  // namespace

}  // namespace xover
