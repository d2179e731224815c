// Cost pieces shared by the protocols' probes. Each returns factors for one
// step; a protocol adds its steps. Formulas are LogGP (Alexandrov et al.):
// a message of n bytes costs o_send at the sender, L + n·G on the wire and
// o_recv at the receiver, with G = 1/bandwidth.
#pragma once

#include <vector>

#include "protocols/lanes/lane.hpp"
#include "protocols/lanes/lane_select.hpp"
#include "protocols/perf/perf_factors.hpp"

namespace xover::cost {

/// One active message of n payload bytes and a `header` on `lane`:
/// local o_send, latency L, network (header + n)/B, remote o_recv. The
/// part of o_send spent after the message has left (LaneAttrs::o_send_after)
/// is taken off the latency factor: the sender's CPU keeps all of o_send
/// (what paces a stream), one message's sum has o_send − o_send_after. The
/// CPUs' time per payload byte (LaneAttrs::o_send_per_byte, o_recv_per_byte)
/// is in the local and remote factors, the sender's taken off the latency
/// too (it comes after the message has left).
PerfFactors am_message(const LaneAttrs& lane, Bytes header);

/// A control message (RTS, RTR, ACK) of `header` bytes on `lane`.
PerfFactors control_message(const LaneAttrs& lane, Bytes header);

/// The sender's CPU time of a message of `bytes` on the wire whose flight is
/// off the critical path: o_s, and bytes/B where the sender's CPU moves the
/// bytes (LaneAttrs::cpu_moves).
Seconds post_cpu(const LaneAttrs& lane, Bytes bytes);

/// Registering an n-byte buffer with the memory domain of each lane in
/// `lanes` (the seed: cost = Σ md reg cost, growth = Σ md reg growth); zero
/// when the registration cache is on.
LinearFunc registration(const Path& path, const std::vector<LaneShare>& lanes, bool reg_cache);

/// Copying n bytes at `bandwidth`: n / bandwidth.
LinearFunc copy(BytesPerSecond bandwidth);

/// The sender's copy of an n-byte bcopy active message on `lane` into the
/// transport's buffer, n / bandwidth, where the transport makes one
/// (LaneAttrs::bcopy_copies); zero where it sends from the user's buffer.
LinearFunc bcopy_send_copy(const LaneAttrs& lane, BytesPerSecond bandwidth);

/// One copy of n bytes between an end's device and host memory:
/// stage_o + n / stage_bw.
LinearFunc stage(const DeviceCopy& device);

/// One copy of n bytes from pageable host memory into an end's device
/// memory: pageable_o + n / pageable_bw, or stage() where the end gives no
/// pageable figure.
LinearFunc stage_from_pageable(const DeviceCopy& device);

/// Fragments of `payload` bytes (plus a `header` each) sent back to back
/// over `lanes`, each costing `per_fragment_send` at the sender and
/// `per_fragment_recv` at the receiver (lines in the fragment's size). A
/// three-stage pipeline — sender CPU, NIC, receiver CPU — with k identical
/// fragments completes in
///   fill + (k − 1)·max(stage time), fill = t_s − a + (S+h)/B + L + t_r,
/// (a flow shop of identical jobs); with k = n/S this is
///   T(n) = fill + (n − S)·m*,
///   m* = max(t_s/S, max_i w_i·max(g_i, (S+h)/B_i)/S, t_r/S),
/// where a is the first lane's o_send_after (plus S·m_s, the sender's time
/// per payload byte, LaneAttrs::o_send_per_byte, and its wire time where
/// its CPU moves the bytes; t_s and t_r take S·m_s and S·m_r, m_r the
/// receiver's time per byte): every fragment leaves a before
/// the sender's stage for it ends, so every time after shifts by a, while
/// the sender's stage keeps all of t_s (the latency factor carries −a).
/// Exact when n is a multiple of S on one lane; otherwise the last, shorter
/// fragment makes it an upper bound within one fragment's time. Over several
/// lanes L is the largest lane latency (the last fragment may take any lane)
/// and the fill uses the first lane's wire time: an estimate, not exact.
/// Valid for n ≥ S; below S it is one message.
PerfFactors fragment_pipeline(const Path& path, const std::vector<LaneShare>& lanes, Bytes payload, Bytes header,
                              const LinearFunc& per_fragment_send, const LinearFunc& per_fragment_recv);

}  // namespace xover::cost
