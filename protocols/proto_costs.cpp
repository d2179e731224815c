#include "protocols/proto_costs.hpp"

#include <algorithm>

namespace xover::cost {

PerfFactors am_message(const LaneAttrs& lane, Bytes header) {
  PerfFactors p = control_message(lane, header);
  p[lane.cpu_moves ? Factor::LocalCpu : Factor::Network].m = 1.0 / lane.bandwidth;
  // The CPUs' time per payload byte (LaneAttrs::o_send_per_byte,
  // o_recv_per_byte): the sender's comes after the message has left, so it
  // comes off the latency as o_send_after does; the receiver's is its own.
  p[Factor::LocalCpu].m += lane.o_send_per_byte;
  p[Factor::Latency].m -= lane.o_send_per_byte;
  p[Factor::RemoteCpu].m += lane.o_recv_per_byte;
  return p;
}

PerfFactors control_message(const LaneAttrs& lane, Bytes header) {
  PerfFactors p;
  // The sender is busy o_s, but the message leaves o_send_after before the
  // end of it: that overlap comes off the latency, so that one message sums
  // to (o_s − o_send_after) + L + ..., and a stream is still paced by the
  // whole o_s.
  p[Factor::LocalCpu] = LinearFunc::constant(lane.o_send);
  p[Factor::Latency] = LinearFunc::constant(lane.latency - lane.sent_after());
  // Where the sender's CPU moves the bytes (LaneAttrs::cpu_moves) their
  // wire time is its own: the same sum, but a stream paced by o_s + h/B.
  p[lane.cpu_moves ? Factor::LocalCpu : Factor::Network] += LinearFunc::constant(static_cast<double>(header) /
                                                                                 lane.bandwidth);
  p[Factor::RemoteCpu] = LinearFunc::constant(lane.o_recv);
  p.gap = lane.gap;
  return p;
}

Seconds post_cpu(const LaneAttrs& lane, Bytes bytes) {
  return lane.o_send + (lane.cpu_moves ? static_cast<double>(bytes) / lane.bandwidth : 0);
}

LinearFunc registration(const Path& path, const std::vector<LaneShare>& lanes, bool reg_cache) {
  LinearFunc reg;
  if (reg_cache)
    return reg;
  for (const LaneShare& share : lanes)
    reg += LinearFunc{path.lanes[share.lane].reg_cost, path.lanes[share.lane].reg_growth};
  return reg;
}

LinearFunc copy(BytesPerSecond bandwidth) {
  return LinearFunc::per_byte(1.0 / bandwidth);
}

LinearFunc bcopy_send_copy(const LaneAttrs& lane, BytesPerSecond bandwidth) {
  return lane.bcopy_copies ? copy(bandwidth) : LinearFunc{};
}

LinearFunc stage(const DeviceCopy& device) {
  return LinearFunc{device.stage_o, 1.0 / device.stage_bw};
}

LinearFunc stage_from_pageable(const DeviceCopy& device) {
  return device.pageable_bw > 0 ? LinearFunc{device.pageable_o, 1.0 / device.pageable_bw} : stage(device);
}

PerfFactors fragment_pipeline(const Path& path, const std::vector<LaneShare>& lanes, Bytes payload, Bytes header,
                              const LinearFunc& per_fragment_send, const LinearFunc& per_fragment_recv) {
  const double s = static_cast<double>(payload);
  const double wire = s + static_cast<double>(header);
  const LaneAttrs& first = path.lanes[lanes.front().lane];
  const Seconds t_wire = wire / first.bandwidth;
  // A sender whose CPU moves the bytes (LaneAttrs::cpu_moves) is busy with
  // each fragment's wire time too, after the fragment has left: its stage
  // is t_s + (S+h)/B, and a + (S+h)/B of it comes after the fragment leaves.
  // Its time per payload byte (LaneAttrs::o_send_per_byte) comes after the
  // fragment leaves too; the receiver's (o_recv_per_byte) is in its stage.
  const Seconds moving = (first.cpu_moves ? t_wire : 0) + s * first.o_send_per_byte;
  const Seconds t_send = per_fragment_send.apply(s) + moving;
  const Seconds t_recv = per_fragment_recv.apply(s) + s * first.o_recv_per_byte;

  // Per-byte rate of each stage when the pipe is full.
  const SecondsPerByte m_send = t_send / s;
  const SecondsPerByte m_recv = t_recv / s;
  SecondsPerByte m_net = 0;
  for (const LaneShare& share : lanes) {
    const LaneAttrs& lane = path.lanes[share.lane];
    m_net = std::max(m_net, share.weight * std::max(lane.gap, wire / lane.bandwidth) / s);
  }
  const SecondsPerByte m_star = std::max({m_send, m_recv, m_net});

  // The slowest stage carries the n-dependent part; each stage keeps its own
  // share of the fill so that the factors still sum to T(n).
  PerfFactors p;
  p[Factor::LocalCpu] = LinearFunc::constant(t_send);
  p[Factor::RemoteCpu] = LinearFunc::constant(t_recv);
  p[Factor::Network] = LinearFunc::constant(t_wire);
  // The last fragment may travel on any lane: the slowest lane's latency.
  Seconds latency = 0;
  for (const LaneShare& share : lanes)
    latency = std::max(latency, path.lanes[share.lane].latency);
  // The first fragment leaves o_send_after before the sender's stage ends,
  // and every later time with it: the fill is that much shorter.
  p[Factor::Latency] = LinearFunc::constant(latency - first.sent_after() - moving);
  Factor bottleneck = Factor::Network;
  if (m_star == m_send)
    bottleneck = Factor::LocalCpu;
  else if (m_star == m_recv)
    bottleneck = Factor::RemoteCpu;
  p[bottleneck] += LinearFunc{-s * m_star, m_star};
  p.gap = first.gap;
  return p;
}

}  // namespace xover::cost
