// rndv/ipc: a rendezvous for device buffers between ranks on one node (UCX's
// cuda_ipc). The sender exports its buffer's IPC handle and sends it in the
// RTS; the receiver matches it, maps the sender's allocation (once per
// allocation: DeviceMemory::ipc_open caches the mapping), copies the bytes
// device to device into its own buffer, completes and sends an ACK that
// releases the sender.
//
//   T(n) = RTS(o_s + L + (48 + 6·24)/B + o_r) + stage_o_r + n/ipc_bw_r + o_s
// the receiver's copy (its fixed part stage_o, its rate ipc_bw) and the
// ACK's o_s paid before the receive completes, as rndv/get's; the first
// mapping of an allocation is not in the line (the cache keeps it, as the
// registration cache keeps registrations).
//
// The RTS carries the handle in its (lane, key, address) entries: four
// entries of two handle words each, then (lane, offset, allocation size),
// then (lane, allocation number, its address at the sender); every entry's
// lane is the AM lane. A receive whose bytes would run past
// the allocation maps nothing and fails.
//
// Stages (RndvIpcStage): Rts at the sender; Copy at the receiver.
#include <algorithm>
#include <array>
#include <cstring>

#include "protocols/core/device_memory.hpp"
#include "protocols/core/stages.hpp"
#include "protocols/mtype/mtype.hpp"
#include "protocols/proto_costs.hpp"
#include "protocols/rndv/rndv.hpp"
#include "protocols/wire.hpp"

namespace xover {
namespace {

enum class RndvIpcStage : std::uint8_t {
  Rts,   ///< sender: export the handle, RTS; wait for the ACK
  Copy,  ///< receiver, once matched: map, copy, complete, ACK
};

constexpr std::size_t kHandleEntries = IpcBuffer::kHandleBytes / 16;
constexpr std::size_t kRtsEntries = kHandleEntries + 2;

std::optional<ProtoCandidate> probe_ipc(const ProbeContext& ctx) {
  if (!ctx.lanes.am || ctx.path.device_local.ipc_bw <= 0 || ctx.path.device_remote.ipc_bw <= 0)
    return std::nullopt;
  const LaneAttrs& am = ctx.path.lanes[*ctx.lanes.am];
  PerfFactors empty = cost::control_message(am, wire::kRtsHdr + wire::kRtsLaneHdr * kRtsEntries);
  empty[Factor::RemoteCpu] += LinearFunc::constant(am.o_send);
  PerfFactors p = empty;
  p[Factor::RemoteCpu] += LinearFunc{ctx.path.device_remote.stage_o, 1.0 / ctx.path.device_remote.ipc_bw};
  return ProtoCandidate{{PerfRange{0, 0, empty}, PerfRange{1, kSizeMax, p}}, {{*ctx.lanes.am, 1.0}}};
}

// The Rts stage.
void send_ipc(Worker& worker, Request& req) {
  req.set_stage(RndvIpcStage::Rts);
  IpcBuffer buffer;
  if (req.length > 0 && !worker.transport().device_memory()->ipc_export(req.send_buf.data, buffer)) {
    worker.complete(req, Status::Error);
    return;
  }
  const std::size_t lane = req.lanes.front().lane;
  std::vector<std::pair<std::size_t, RemoteAddr>> entries;
  for (std::size_t i = 0; i < kHandleEntries; ++i) {
    RemoteAddr words;
    std::memcpy(&words.key, buffer.handle.data() + 16 * i, 8);
    std::memcpy(&words.addr, buffer.handle.data() + 16 * i + 8, 8);
    entries.emplace_back(lane, words);
  }
  entries.emplace_back(lane, RemoteAddr{buffer.offset, buffer.size});
  entries.emplace_back(lane, RemoteAddr{buffer.id, buffer.base});
  send_rts(worker, req, entries);
}

// The Copy stage, once a receive matched the RTS.
void recv_start_ipc(Worker& worker, Request& req) {
  req.set_stage(RndvIpcStage::Copy);
  DeviceMemory* device = worker.transport().device_memory();
  const Bytes fit = std::min(req.length, req.recv_buf.size);
  Status status = req.length > req.recv_buf.size ? Status::Error : Status::Ok;
  // A peer may name rndv/ipc toward a rank with no device memory: the
  // receive fails, the ACK still releases the sender.
  if (req.remote.size() != kRtsEntries || !device) {
    status = Status::Error;
  } else if (fit > 0) {
    // A phantom receive (simulation) maps nothing and pays the copy.
    const std::byte* from = nullptr;
    bool mapped = req.recv_buf.data == nullptr;
    if (!mapped) {
      IpcBuffer buffer;
      for (std::size_t i = 0; i < kHandleEntries; ++i) {
        std::memcpy(buffer.handle.data() + 16 * i, &req.remote[i].key, 8);
        std::memcpy(buffer.handle.data() + 16 * i + 8, &req.remote[i].addr, 8);
      }
      buffer.offset = req.remote[kHandleEntries].key;
      buffer.size = req.remote[kHandleEntries].addr;
      buffer.id = req.remote[kHandleEntries + 1].key;
      buffer.base = req.remote[kHandleEntries + 1].addr;
      const std::byte* base = buffer.offset <= buffer.size && fit <= buffer.size - buffer.offset
                                  ? device->ipc_open(req.peer, buffer)
                                  : nullptr;
      mapped = base != nullptr;
      from = mapped ? base + buffer.offset : nullptr;
    }
    if (!mapped || !device->copy_device(req.recv_buf.data, from, fit))
      status = Status::Error;
  }
  worker.complete(req, status);
  wire::ControlHeader header;
  header.put(req.remote_id);
  stages::send_control(worker, req.peer, req.length, kAmIpcAck, header, [] {});
}

void ipc_ack_handle(Worker& worker, const AmMessage& msg);
constexpr std::array kMessages{kRtsMessage, AmKind{kAmIpcAck, "ipc-ack", ipc_ack_handle}};

}  // namespace

const Protocol rndv_ipc_proto{.name = "rndv/ipc",
                              .description = "RTS with the buffer's IPC handle, device-to-device copy by the receiver, ACK",
                              .wire_id = 9,
                              .family = ProtoFamily::Rndv,
                              .probe = probe_ipc,
                              .send = send_ipc,
                              .recv_start = recv_start_ipc,
                              .mem_types = mem_bit(MemType::Cuda),
                              .messages = kMessages};

namespace {

// At the sender, in the Rts stage: the ACK {sender request}.
void ipc_ack_handle(Worker& worker, const AmMessage& msg) {
  wire::HeaderReader header(msg.header);
  Request* req = worker.find(static_cast<Request::Id>(header.get()), RequestKind::Send);
  if (!header.exact() || !req || req->protocol != &rndv_ipc_proto || req->peer != msg.source ||
      req->stage<RndvIpcStage>() != RndvIpcStage::Rts) {
    worker.count_bad_header();
    return;
  }
  worker.complete(*req);
}

}  // namespace

}  // namespace xover
