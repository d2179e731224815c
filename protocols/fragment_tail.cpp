// The last fragment's fixed costs in a fragmented message's line
// (fragment_tail.hpp).
#include "protocols/fragment_tail.hpp"

#include <algorithm>
#include <array>

#include "protocols/perf/envelope.hpp"

namespace xover::cost {
namespace {

/// One line of Δ in n over a range, and the factor of the stage that pays it.
struct TailPiece {
  LinearFunc line;
  Factor factor;
};

/// The pieces of max(pieces) over [from, to], in order: the selection's
/// lower envelope of the lines negated, each range the factors with its
/// piece added and what the line already pays taken off.
std::vector<PerfRange> upper_envelope(const std::array<TailPiece, 3>& pieces, Bytes from, Bytes to,
                                      const PerfFactors& many, const LinearFunc& paid) {
  std::vector<PiecewiseFunc> negated;
  for (const TailPiece& p : pieces)
    negated.push_back({xover::Piece{from, to, p.line.scale(-1)}});
  std::vector<PerfRange> out;
  for (const EnvelopeRange& range : lower_envelope(negated, from, to)) {
    const TailPiece& top = pieces[range.index];
    PerfFactors f = many;
    f[top.factor] += top.line + paid.scale(-1);
    if (!out.empty() && out.back().factors == f)
      out.back().to = range.to;
    else
      out.push_back({range.from, range.to, f});
  }
  return out;
}

}  // namespace

std::vector<PerfRange> pipeline_ranges(const Path& fragment, const std::vector<LaneShare>& lanes, Bytes payload,
                                       Bytes header, const LinearFunc& per_fragment_send,
                                       const LinearFunc& per_fragment_recv, const PerfFactors& many, int most) {
  if (lanes.size() != 1 || most < 2)
    return {{payload + 1, kSizeMax, many}};
  const LaneAttrs& lane = fragment.lanes[lanes.front().lane];
  const double s = static_cast<double>(payload);
  // A sender whose CPU moves the bytes (LaneAttrs::cpu_moves) has each
  // fragment's wire time in its stage: the last fragment leaves t_s(r)
  // after that stage for the one before ends, and lands (r+h)/B later.
  // The CPUs' time per payload byte (LaneAttrs::o_send_per_byte,
  // o_recv_per_byte) is in their stages; the sender's comes after a
  // fragment leaves, so that the last leaves (S − r)·m_s later in its stage
  // than a full one (`early`).
  const LinearFunc send_stage =
      per_fragment_send + LinearFunc::per_byte(lane.o_send_per_byte) +
      (lane.cpu_moves ? LinearFunc{static_cast<double>(header) / lane.bandwidth, 1 / lane.bandwidth} : LinearFunc{});
  const LinearFunc recv_stage = per_fragment_recv + LinearFunc::per_byte(lane.o_recv_per_byte);
  const Seconds t_s = send_stage.apply(s);
  const Seconds t_r = recv_stage.apply(s);
  const Seconds gate = std::max(lane.gap, (s + static_cast<double>(header)) / lane.bandwidth);
  const Seconds q = std::max({t_s, gate, t_r});
  const Seconds behind = std::max(0.0, t_r - std::max(t_s, gate));
  std::vector<PerfRange> out;
  for (int k = 2; k <= most; ++k) {
    // r = n − (k − 1)·S: each stage's time of the last fragment as a line in n.
    const double full = static_cast<double>(k - 1) * s;
    const auto in_n = [full](const LinearFunc& of_r) { return LinearFunc{of_r.c - of_r.m * full, of_r.m}; };
    const LinearFunc recv = in_n(recv_stage);
    const LinearFunc early = in_n(LinearFunc{-s * lane.o_send_per_byte, lane.o_send_per_byte});
    const LinearFunc wire_less = in_n(LinearFunc{-s / lane.bandwidth, 1 / lane.bandwidth});
    const Seconds backlog = static_cast<double>(k - 2) * behind;
    const LinearFunc after = wire_less + LinearFunc::constant(-t_r - backlog);
    const std::array<TailPiece, 3> pieces{TailPiece{recv, Factor::RemoteCpu},
                                          TailPiece{recv + in_n(send_stage) + early.scale(-1) +
                                                        (lane.cpu_moves ? LinearFunc::constant(-t_r - backlog) : after),
                                                    Factor::LocalCpu},
                                          TailPiece{recv + LinearFunc::constant(gate) + after, Factor::Network}};
    // What the line pays for the last fragment: r·Q/S.
    const LinearFunc paid = in_n(LinearFunc::per_byte(q / s));
    const std::vector<PerfRange> ranges = upper_envelope(
        pieces, static_cast<Bytes>(full) + 1, static_cast<Bytes>(full) + payload, many, paid);
    out.insert(out.end(), ranges.begin(), ranges.end());
  }
  out.push_back({static_cast<Bytes>(most) * payload + 1, kSizeMax, many});
  return out;
}

}  // namespace xover::cost
