// eager/staged: eager/bcopy from a device buffer. The sender copies the
// message from device memory into a host staging buffer and sends it as one
// copied active message; the receiver copies it from its receive segment
// into its device buffer (Worker::place). The receiver's side is eager's:
// the message carries the eager header and kAmEager.
//
//   T(n) = stage_s(n) + o_s + n/M_s + L + (h+n)/B + o_r + stage_r(n)
// with stage(n) = stage_o + n/stage_bw at each end (Path::device_local,
// device_remote) and h the 16-byte eager header; n ≤ the lane's bcopy
// segment; n/M_s only where the lane's transport copies a bcopy message
// (LaneAttrs::bcopy_copies). An empty message copies nothing: stage(0) = 0.
// The stage copies are the sender's and receiver's CPU time: the copy call
// waits for the DMA. The sender's copy is into its pinned staging buffer
// (stage_s at the pinned figures); the receiver's is out of its receive
// segment, pageable host memory: stage_r(n) = pageable_o + n/pageable_bw
// where its end gives them (DeviceCopy; measured by the cuda backend),
// the pinned figures where it does not.
#include <algorithm>
#include <array>

#include "protocols/core/device_memory.hpp"
#include "protocols/core/stages.hpp"
#include "protocols/eager/eager.hpp"
#include "protocols/mtype/mtype.hpp"
#include "protocols/proto_costs.hpp"
#include "protocols/wire.hpp"

namespace xover {
namespace {

std::optional<ProtoCandidate> probe_staged(const ProbeContext& ctx) {
  if (!ctx.lanes.am || ctx.path.device_local.stage_bw <= 0 || ctx.path.device_remote.stage_bw <= 0)
    return std::nullopt;
  const LaneAttrs& lane = ctx.path.lanes[*ctx.lanes.am];
  const Bytes max_message = std::min(lane.max_bcopy, lane.seg_size);
  if (!lane.caps.has(LaneCap::AmBcopy) || max_message <= wire::kEagerHdr)
    return std::nullopt;
  // An empty message has nothing to copy.
  const PerfFactors empty = cost::am_message(lane, wire::kEagerHdr);
  PerfFactors p = empty;
  p[Factor::LocalCpu] += cost::stage(ctx.path.device_local) + cost::bcopy_send_copy(lane, ctx.path.memcpy_bw_local);
  p[Factor::RemoteCpu] += cost::stage_from_pageable(ctx.path.device_remote);
  return ProtoCandidate{{PerfRange{0, 0, empty}, PerfRange{1, max_message - wire::kEagerHdr, p}}, {{*ctx.lanes.am, 1.0}}};
}

// The sender's one stage: staged, sent, done at return.
void send_staged(Worker& worker, Request& req) {
  const std::size_t lane = req.lanes.front().lane;
  wire::EagerHeader header;
  header.put(req.tag).put(req.seq);
  stages::part_started(req);
  worker.submit([&worker, &req, lane, header]() {
    DeviceMemory& device = *worker.transport().device_memory();
    std::byte* host = req.send_buf.data ? device.staging(req.length) : nullptr;
    if (req.length > 0 && !device.to_host(host, req.send_buf.data, req.length)) {
      stages::part_done(worker, req, Status::Error, true);
      return Status::Error;
    }
    const Status st = worker.transport().am_send(lane, req.peer, kAmEager, header.bytes(), {host, req.length},
                                                 AmMode::Bcopy, Completion());
    if (st == Status::Ok || st == Status::Error)
      stages::part_done(worker, req, st, true);
    return st;
  });
}

constexpr std::array kMessages{kEagerMessage};

}  // namespace

const Protocol eager_staged_proto{.name = "eager/staged",
                                  .description = "device buffer copied to host, then one copied active message",
                                  .wire_id = 7,
                                  .family = ProtoFamily::Eager,
                                  .probe = probe_staged,
                                  .send = send_staged,
                                  .mem_types = mem_bit(MemType::Cuda),
                                  .messages = kMessages};

}  // namespace xover
