// rndv/get: the sender registers and sends an RTS carrying the address and
// remote key; the receiver registers its buffer and reads the data with one
// RDMA get per RMA lane, striped by bandwidth (w_i = B_i / ΣB); it completes
// when the last get completes, then sends an ACK so the sender can release.
//
//   T(n) = reg_s(n) + RTS(o_s + L + (48 + 24k)/B + o_r) + reg_r(n) + get(n) + o_s
//   get(n) = 2·L + 16/B + n/ΣB + max(k·o_s + o_r, o_s + k·o_r),  get(0) = 0
// for k lanes: the receiver posts k gets (o_s each), every share takes
// n/ΣB, and the k completions are taken in (o_r each) as they arrive. The
// receive completes in the same progress call that posts the ACK, so the
// receiver pays the ACK's o_s (and its 8/B where its CPU moves the bytes) before its application sees the data; the
// ACK's flight is off the receiver's critical path. The first request
// leaves a = the first lane's o_send_after before its post ends, so get(n)
// is a shorter (the RTS likewise, cost::control_message; the ACK's o_s is
// all the receiver's). Exact when the posts end before the first
// completion (2L + 16/B + n/ΣB − a ≥ (k−1)·o_s). A share
// above a lane's max_zcopy goes as several gets posted back to back; each
// moves max_zcopy bytes (a gibibyte by default), so the wire hides their
// posting and the formula holds. Figures that change with the operation's
// size (LaneAttrs::o_send_steps, bandwidth_steps) are taken at 0 for RTS,
// ACK and the read request, and at n for the gets: exact on one lane; over k lanes each get moves its share,
// whose step the model takes to be n's. Where every lane's get is the
// receiver's own copy (LaneAttrs::cpu_moves: a cross-memory read), the
// receiver's CPU is busy until each get's data is in, and the gets run
// one after another:
//   get(n) = Σ_i (2·L_i + 16/B_i − a_i) + k·n/ΣB + k·(o_s + o_r),
// all of it the receiver's: the same sum on one lane, and what paces a
// stream of rendezvous messages.
//
// Stages (RndvGetStage): Rts at the sender, Fetch then Ack at the receiver;
// the ACK releases the sender's request and completes it.
#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "protocols/core/stages.hpp"
#include "protocols/proto_costs.hpp"
#include "protocols/rndv/rndv.hpp"
#include "protocols/wire.hpp"

namespace xover {
namespace {

enum class RndvGetStage : std::uint8_t {
  Rts,    ///< sender: register on the RMA lanes, RTS with (lane, key, address) per lane; wait for the ACK
  Fetch,  ///< receiver, once matched: register, post the gets share by share
  Ack,    ///< receiver, every get posted: when the last completes, complete and send the ACK
};

// The gets' lanes together: their bandwidths added, the longest latency.
std::pair<BytesPerSecond, Seconds> lanes_reach(const Path& path, const std::vector<LaneShare>& lanes) {
  BytesPerSecond total_bw = 0;
  Seconds latency = 0;
  for (const LaneShare& share : lanes) {
    total_bw += path.lanes[share.lane].bandwidth;
    latency = std::max(latency, path.lanes[share.lane].latency);
  }
  return {total_bw, latency};
}

// Gets their target's CPU serves (LaneAttrs::get_served, TCP): the target
// (the rendezvous sender) takes each request in and sends its share back
// in its transport, without the protocol core, so at the overheads less
// the core's part (o'_r, o'_s, a' = min(a, o'_s): LaneAttrs::serving_*):
// k·(o'_r(0) + o'_s) + n·m_s of its CPU, the first reply leaving a' and
// its time per byte after it has left; the receiver posts the k requests
// and reads the replies out of the sockets, max(k·o_s + o_r, o_s + k·o_r)
// + n·m_r. On one lane one get is
//   (o_s − a) + L + 16/B + o'_r(0) + (o'_s − a') + L + n/B + o_r + n·m_r,
// exact while the target's n·m_s after its reply has left ends before the
// next message reaches it (in a ping-pong: the reply's flight, the reader's
// n·m_r and the pong's RTS); over k lanes the target serves the requests
// one after another and the sum is an estimate.
void served_gets(const ProbeContext& ctx, const std::vector<LaneShare>& lanes, PerfFactors& p) {
  const Path control = ctx.path.at(0);
  const LaneAttrs& first = ctx.path.lanes[lanes.front().lane];
  const double k = static_cast<double>(lanes.size());
  const auto [total_bw, latency] = lanes_reach(ctx.path, lanes);
  const LaneAttrs& request = control.lanes[lanes.front().lane];
  p[Factor::LocalCpu] += LinearFunc{k * (request.serving_o_recv() + first.serving_o_send()), first.o_send_per_byte};
  p[Factor::RemoteCpu] += LinearFunc{std::max(k * first.o_send + first.o_recv, first.o_send + k * first.o_recv),
                                     first.o_recv_per_byte};
  p[Factor::Latency] +=
      LinearFunc{2 * latency - first.sent_after() - first.serving_sent_after(), -first.o_send_per_byte};
  p[Factor::Network] += LinearFunc{static_cast<double>(wire::kRmaHdr) / request.bandwidth, 1.0 / total_bw};
}

std::optional<ProtoCandidate> probe_rndv_get(const ProbeContext& ctx) {
  const std::vector<LaneShare>& lanes = ctx.bw_lanes;
  if (!ctx.lanes.am || lanes.empty())
    return std::nullopt;
  // RTS and ACK carry no payload: their figures are the lane's at 0.
  const Path control = ctx.path.at(0);
  const LaneAttrs& am = control.lanes[*ctx.lanes.am];
  const LaneAttrs& first = ctx.path.lanes[lanes.front().lane];
  const double k = static_cast<double>(lanes.size());
  const auto [total_bw, latency] = lanes_reach(ctx.path, lanes);
  const LinearFunc reg = cost::registration(ctx.path, lanes, ctx.config.reg_cache);

  PerfFactors p = cost::control_message(am, wire::kRtsHdr + wire::kRtsLaneHdr * lanes.size());
  p[Factor::LocalCpu] += reg;
  p[Factor::RemoteCpu] += reg;
  p[Factor::RemoteCpu] += LinearFunc::constant(cost::post_cpu(am, wire::kAckHdr));
  if (std::all_of(lanes.begin(), lanes.end(),
                  [&](const LaneShare& share) { return ctx.path.lanes[share.lane].cpu_moves; })) {
    // Gets the receiver's CPU makes itself (LaneAttrs::cpu_moves): each
    // keeps it until its data is in, so the k gets run one after another,
    // o_s + 2L_i + 16/B_i + n/ΣB − a_i each, and the k completions follow.
    Seconds own = k * (first.o_send + first.o_recv);
    for (const LaneShare& share : lanes)
      own += 2 * ctx.path.lanes[share.lane].latency - ctx.path.lanes[share.lane].sent_after() +
             static_cast<double>(wire::kRmaHdr) / control.lanes[share.lane].bandwidth;
    p[Factor::RemoteCpu] += LinearFunc{own, k / total_bw};
  } else if (std::all_of(lanes.begin(), lanes.end(),
                         [&](const LaneShare& share) { return ctx.path.lanes[share.lane].get_served; })) {
    served_gets(ctx, lanes, p);
  } else {
    p[Factor::RemoteCpu] +=
        LinearFunc::constant(std::max(k * first.o_send + first.o_recv, first.o_send + k * first.o_recv));
    // The first read request leaves o_send_after before its post ends.
    p[Factor::Latency] += LinearFunc::constant(2 * latency - first.sent_after());
    // The read request carries no payload either.
    const BytesPerSecond request_bw = control.lanes[lanes.front().lane].bandwidth;
    p[Factor::Network] += LinearFunc{static_cast<double>(wire::kRmaHdr) / request_bw, 1.0 / total_bw};
  }
  p.gap = std::max(p.gap, first.gap);
  // An empty message reads nothing: RTS, then straight to the ACK.
  PerfFactors empty = cost::control_message(am, wire::kRtsHdr + wire::kRtsLaneHdr * lanes.size());
  empty[Factor::LocalCpu] += LinearFunc::constant(reg.c);
  empty[Factor::RemoteCpu] += LinearFunc::constant(cost::post_cpu(am, wire::kAckHdr));
  return ProtoCandidate{{PerfRange{0, 0, empty}, PerfRange{1, kSizeMax, p}}, lanes};
}

// The Rts stage.
void send_rndv_get(Worker& worker, Request& req) {
  req.set_stage(RndvGetStage::Rts);
  worker.reg(req, req.send_buf.data, req.length);
  std::vector<std::pair<std::size_t, RemoteAddr>> remote;
  for (std::size_t i = 0; i < req.lanes.size(); ++i)
    remote.emplace_back(req.lanes[i].lane, worker.transport().remote_addr(req.regions[i], req.send_buf.data));
  send_rts(worker, req, remote);
}

// The Ack stage's work, once the last get is in (or none is posted).
void finish_gets(Worker& worker, Request& req) {
  worker.release_regions(req);
  worker.complete(req, req.status == Status::Error || req.length > req.recv_buf.size ? Status::Error : Status::Ok);
  wire::ControlHeader header;
  header.put(req.remote_id);
  stages::send_control(worker, req.peer, req.length, kAmAck, header, [] {});
}

// The Fetch stage, once a receive matched the RTS: the lanes the sender
// registered on, weighted by bandwidth as this side sees them for a message
// of this size (its bandwidth steps, as the probe takes them). Gets that
// complete while it still posts leave finishing to the Ack stage.
void recv_start_rndv_get(Worker& worker, Request& req) {
  req.set_stage(RndvGetStage::Fetch);
  const Path& path = worker.transport().path(req.peer);
  const Bytes fit = std::min(req.length, req.recv_buf.size);
  double total_bw = 0;
  for (const LaneShare& share : req.lanes) {
    if (share.lane >= path.lanes.size() || !path.lanes[share.lane].caps.has(LaneCap::GetZcopy)) {
      req.status = Status::Error;
      finish_gets(worker, req);
      return;
    }
    total_bw += path.lanes[share.lane].bandwidth_at(fit);
  }
  if (fit == 0 || req.lanes.empty()) {
    finish_gets(worker, req);
    return;
  }
  worker.reg(req, req.recv_buf.data, fit);
  double before = 0;
  Bytes start = 0;
  for (std::size_t i = 0; i < req.lanes.size(); ++i) {
    before += path.lanes[req.lanes[i].lane].bandwidth_at(fit);
    const Bytes end = i + 1 == req.lanes.size() ? fit : static_cast<Bytes>(std::llround(fit * (before / total_bw)));
    const Bytes max_get = std::max<Bytes>(path.lanes[req.lanes[i].lane].max_zcopy, 1);
    for (Bytes offset = start; offset < end;) {
      const Bytes n = std::min(max_get, end - offset);
      const RemoteAddr remote{req.remote[i].key, req.remote[i].addr + offset};
      stages::part_started(req);
      worker.submit([&worker, &req, lane = req.lanes[i].lane, offset, n, remote]() {
        auto done = [&worker, &req](Status s) {
          if (s == Status::Error)
            req.status = Status::Error;
          if (--req.outstanding == 0 && req.stage<RndvGetStage>() == RndvGetStage::Ack)
            finish_gets(worker, req);
        };
        const Transport::MessageScope scope(worker.transport(), req.length, req.peer);
        const Status st = worker.transport().get(lane, req.peer, req.recv_buf.slice(offset, n), remote, done);
        if (st == Status::Ok || st == Status::Error)
          done(st);
        return st;
      });
      offset += n;
    }
    start = end;
  }
  req.set_stage(RndvGetStage::Ack);
  if (req.outstanding == 0)
    finish_gets(worker, req);
}

void ack_handle(Worker& worker, const AmMessage& msg);
constexpr std::array kMessages{kRtsMessage, AmKind{kAmAck, "ack", ack_handle}};

}  // namespace

const Protocol rndv_get_proto{.name = "rndv/get",
                              .description = "RTS with key, striped RDMA get by the receiver, ACK",
                              .wire_id = 6,
                              .family = ProtoFamily::Rndv,
                              .bw_lanes = LaneRequirement{LaneCap::GetZcopy, &LaneConfig::max_rndv_lanes},
                              .probe = probe_rndv_get,
                              .send = send_rndv_get,
                              .recv_start = recv_start_rndv_get,
                              .messages = kMessages};

namespace {

// At the sender, in the Rts stage: the ACK {sender request}.
void ack_handle(Worker& worker, const AmMessage& msg) {
  wire::HeaderReader header(msg.header);
  Request* req = worker.find(static_cast<Request::Id>(header.get()), RequestKind::Send);
  if (!header.exact() || !req || req->protocol != &rndv_get_proto || req->peer != msg.source) {
    worker.count_bad_header();
    return;
  }
  worker.release_regions(*req);
  worker.complete(*req);
}

}  // namespace

}  // namespace xover
