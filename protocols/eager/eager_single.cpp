// eager/short, eager/bcopy, eager/zcopy: the whole message in one active
// message on the AM lane, matched at the receiver by its tag, no handshake.
//
//   short: o_s + L + (h+n)/B + o_r + n/M_r          (inline; h + n ≤ max_short)
//   bcopy: o_s + n/M_s + L + (h+n)/B + o_r + n/M_r  (bounce buffer; ≤ segment)
//   zcopy: reg(n) + o_s + L + (h+n)/B + o_r + n/M_r (registered; ≤ segment)
// with h the 16-byte eager header.
//
// M_s, M_r: memcpy bandwidth at each end; the receiver always copies out of
// its receive segment into the user buffer, the sender into the transport's
// buffer only where the transport makes that copy (LaneAttrs::bcopy_copies;
// TCP writes the user's bytes into the socket: no n/M_s).
// o_s is the sender's part before the message leaves, o_s − o_send_after
// (cost::am_message). reg(n) as cost::registration.
//
// One stage at each end, so no stage is kept in the request. The sender
// sends {tag, seq} + payload and, for short and bcopy, completes; zcopy
// completes when the transport is done with the buffer. The receiver's
// handler hands the message to matching, which copies it into the posted
// receive or holds it as unexpected.
#include <algorithm>
#include <array>

#include "protocols/core/stages.hpp"
#include "protocols/eager/eager.hpp"
#include "protocols/proto_costs.hpp"
#include "protocols/wire.hpp"

namespace xover {
namespace {

std::optional<ProtoCandidate> probe_single(const ProbeContext& ctx, LaneCap cap, Bytes max_message) {
  if (!ctx.lanes.am || !ctx.path.lanes[*ctx.lanes.am].caps.has(cap) || max_message <= wire::kEagerHdr)
    return std::nullopt;
  const LaneAttrs& lane = ctx.path.lanes[*ctx.lanes.am];
  PerfFactors p = cost::am_message(lane, wire::kEagerHdr);
  p[Factor::RemoteCpu] += cost::copy(ctx.path.memcpy_bw_remote);
  if (cap == LaneCap::AmBcopy)
    p[Factor::LocalCpu] += cost::bcopy_send_copy(lane, ctx.path.memcpy_bw_local);
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

// The sender's stage.
void send_eager(Worker& worker, Request& req, AmMode mode) {
  const std::size_t lane = req.lanes.front().lane;
  if (mode == AmMode::Zcopy)
    worker.reg(req, req.send_buf.data, req.length);
  wire::EagerHeader header;
  header.put(req.tag).put(req.seq);
  stages::part_started(req);
  worker.submit([&worker, &req, lane, mode, header]() {
    // Short and bcopy are done at return: no completion is built for them.
    const Status st = worker.transport().am_send(
        lane, req.peer, kAmEager, header.bytes(), req.send_buf, mode,
        mode == AmMode::Zcopy ? Completion([&worker, &req](Status s) { stages::part_done(worker, req, s, true); })
                              : Completion());
    if (st == Status::Ok || st == Status::Error)
      stages::part_done(worker, req, st, true);
    return st;
  });
}

void send_short(Worker& worker, Request& req) {
  send_eager(worker, req, AmMode::Short);
}

void send_bcopy(Worker& worker, Request& req) {
  send_eager(worker, req, AmMode::Bcopy);
}

void send_zcopy(Worker& worker, Request& req) {
  send_eager(worker, req, AmMode::Zcopy);
}

constexpr std::array kMessages{kEagerMessage};

}  // namespace

// The receiver's stage: {tag, seq} + the whole payload.
void eager_handle(Worker& worker, const AmMessage& msg) {
  wire::HeaderReader header(msg.header);
  const Tag tag = header.get();
  const std::uint64_t seq = header.get();
  if (!header.exact()) {
    worker.count_bad_header();
    return;
  }
  worker.arrive_eager(msg.source, tag, seq, msg.payload);
}

const Protocol eager_short_proto{.name = "eager/short",
                                 .description = "inline active message",
                                 .wire_id = 0,
                                 .family = ProtoFamily::Eager,
                                 .probe = probe_short,
                                 .send = send_short,
                                 .messages = kMessages};
const Protocol eager_bcopy_proto{.name = "eager/bcopy",
                                 .description = "copied active message",
                                 .wire_id = 1,
                                 .family = ProtoFamily::Eager,
                                 .probe = probe_bcopy,
                                 .send = send_bcopy,
                                 .messages = kMessages};
const Protocol eager_zcopy_proto{.name = "eager/zcopy",
                                 .description = "zero-copy active message",
                                 .wire_id = 2,
                                 .family = ProtoFamily::Eager,
                                 .probe = probe_zcopy,
                                 .send = send_zcopy,
                                 .messages = kMessages};

}  // namespace xover
