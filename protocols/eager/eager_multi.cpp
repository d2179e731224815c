// eager/multi/bcopy, eager/multi/zcopy (Open MPI ob1 multi-eager, after UCX's
// multi-fragment eager): a message cut into fragments of one receive segment
// (S = segment − header), sent back to back over the eager lanes with no
// handshake. The receiver matches the first fragment and copies each one into
// the user buffer (or buffers them until complete when no receive is posted).
//
//   n ≤ S:  one fragment: o_s [+ n/M_s] + L + (h+n)/B + o_r + n/M_r
//   n > S:  cost::fragment_pipeline with per fragment
//           t_s = o_s + S/M_s (bcopy) or o_s (zcopy), t_r = o_r + S/M_r,
//           and for 2 to 8 fragments the last, shorter one's own costs
//           (cost::pipeline_ranges, fragment_tail.hpp);
//   zcopy adds reg(n) on every eager lane's memory domain before the first.
// n/M_s (S/M_s) only where the first lane's transport copies a bcopy
// message (LaneAttrs::bcopy_copies). The sender's stage keeps all of o_s;
// one fragment's, and the pipeline's fill, leave o_send_after early
// (cost::am_message, cost::fragment_pipeline).
// Figures that change with the operation's size (LaneAttrs::o_send_steps,
// bandwidth_steps, the memcpy steps) are taken at n for one fragment and at S for many.
//
// One stage at each end, so no stage is kept in the request. The sender
// cuts the message and sends every fragment {tag, seq, total, offset} back
// to back, lane by lane by weight; it completes when the last is handed
// over (bcopy) or released (zcopy). Each fragment at the receiver goes to
// matching, which binds the message on its first fragment and copies every
// fragment into the user buffer, or holds them all while no receive is
// posted.
#include <algorithm>
#include <array>

#include "protocols/core/stages.hpp"
#include "protocols/eager/eager.hpp"
#include "protocols/fragment_tail.hpp"
#include "protocols/proto_costs.hpp"
#include "protocols/wire.hpp"

namespace xover {
namespace {

// Payload bytes per fragment over `lanes`; 0 when a header does not fit.
Bytes fragment_payload(const Path& path, const std::vector<LaneShare>& lanes, bool zcopy) {
  Bytes segment = kSizeMax;
  for (const LaneShare& share : lanes) {
    const LaneAttrs& lane = path.lanes[share.lane];
    segment = std::min({segment, lane.seg_size, zcopy ? lane.max_zcopy : lane.max_bcopy});
  }
  return segment <= wire::kMultiHdr ? 0 : segment - wire::kMultiHdr;
}

std::optional<ProtoCandidate> probe_multi(const ProbeContext& ctx, bool zcopy) {
  const std::vector<LaneShare>& lanes = ctx.bw_lanes;
  if (lanes.empty())
    return std::nullopt;
  const Bytes payload = fragment_payload(ctx.path, lanes, zcopy);
  if (payload == 0)
    return std::nullopt;
  const LaneAttrs& first = ctx.path.lanes[lanes.front().lane];
  const LinearFunc send_copy = zcopy ? LinearFunc{} : cost::bcopy_send_copy(first, ctx.path.memcpy_bw_local);
  const LinearFunc recv_copy = cost::copy(ctx.path.memcpy_bw_remote);
  // Past one fragment, every operation moves `payload` bytes.
  const Path fragment = ctx.path.at(payload);
  const LaneAttrs& first_fragment = fragment.lanes[lanes.front().lane];
  const LinearFunc fragment_send_copy =
      zcopy ? LinearFunc{} : cost::bcopy_send_copy(first_fragment, fragment.memcpy_bw_local);
  const LinearFunc fragment_recv_copy = cost::copy(fragment.memcpy_bw_remote);

  PerfFactors one = cost::am_message(first, wire::kMultiHdr);
  one[Factor::LocalCpu] += send_copy;
  one[Factor::RemoteCpu] += recv_copy;
  const LinearFunc send_stage = LinearFunc::constant(first_fragment.o_send) + fragment_send_copy;
  const LinearFunc recv_stage = LinearFunc::constant(first_fragment.o_recv) + fragment_recv_copy;
  PerfFactors many = cost::fragment_pipeline(fragment, lanes, payload, wire::kMultiHdr, send_stage, recv_stage);
  if (zcopy) {
    const LinearFunc reg = cost::registration(ctx.path, lanes, ctx.config.reg_cache);
    one[Factor::LocalCpu] += reg;
    many[Factor::LocalCpu] += reg;
  }
  // Past one fragment, the last one's fixed costs too (fragment_tail.hpp).
  std::vector<PerfRange> ranges{PerfRange{0, payload, one}};
  for (PerfRange& range : cost::pipeline_ranges(fragment, lanes, payload, wire::kMultiHdr, send_stage, recv_stage, many))
    ranges.push_back(std::move(range));
  return ProtoCandidate{std::move(ranges), lanes};
}

std::optional<ProtoCandidate> probe_multi_bcopy(const ProbeContext& ctx) {
  return probe_multi(ctx, false);
}

std::optional<ProtoCandidate> probe_multi_zcopy(const ProbeContext& ctx) {
  return probe_multi(ctx, true);
}

// The sender's stage: every fragment, back to back.
void send_multi(Worker& worker, Request& req, bool zcopy) {
  const Bytes payload = fragment_payload(worker.transport().path(req.peer), req.lanes, zcopy);
  const AmMode mode = zcopy ? AmMode::Zcopy : AmMode::Bcopy;
  if (zcopy)
    worker.reg(req, req.send_buf.data, req.length);
  stages::send_fragments(worker, req, kAmMulti, mode, payload, [&req](wire::FragmentHeader& header, Bytes offset) {
    header.put(req.tag).put(req.seq).put(req.length).put(offset);
  });
}

void send_multi_bcopy(Worker& worker, Request& req) {
  send_multi(worker, req, false);
}

void send_multi_zcopy(Worker& worker, Request& req) {
  send_multi(worker, req, true);
}

// The receiver's stage: one fragment {tag, seq, total, offset}.
void multi_handle(Worker& worker, const AmMessage& msg) {
  wire::HeaderReader header(msg.header);
  Incoming in;
  in.tag = header.get();
  in.seq = header.get();
  in.size = header.get();
  const Bytes offset = header.get();
  if (!header.exact()) {
    worker.count_bad_header();
    return;
  }
  in.source = msg.source;
  worker.arrive(in, offset, msg.payload);
}

constexpr std::array kMessages{AmKind{kAmMulti, "multi", multi_handle}};

}  // namespace

const Protocol eager_multi_bcopy_proto{.name = "eager/multi/bcopy",
                                       .description = "copied eager fragments, no handshake",
                                       .wire_id = 3,
                                       .family = ProtoFamily::MultiEager,
                                       .bw_lanes = LaneRequirement{LaneCap::AmBcopy, &LaneConfig::max_eager_lanes},
                                       .probe = probe_multi_bcopy,
                                       .send = send_multi_bcopy,
                                       .messages = kMessages};
const Protocol eager_multi_zcopy_proto{.name = "eager/multi/zcopy",
                                       .description = "zero-copy eager fragments, no handshake",
                                       .wire_id = 4,
                                       .family = ProtoFamily::MultiEager,
                                       .bw_lanes = LaneRequirement{LaneCap::AmZcopy, &LaneConfig::max_eager_lanes},
                                       .probe = probe_multi_zcopy,
                                       .send = send_multi_zcopy,
                                       .messages = kMessages};

}  // namespace xover
