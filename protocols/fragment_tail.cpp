// The last fragment's fixed costs in a fragmented message's line
// (fragment_tail.hpp).
#include "protocols/fragment_tail.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace xover::cost {
namespace {

/// One line of Δ in n over a range, and the factor of the stage that pays it.
struct Piece {
  LinearFunc line;
  Factor factor;
};

/// The pieces of max(pieces) over [from, to], in order: where each is the
/// largest, split at the sizes where two meet.
std::vector<PerfRange> upper_envelope(const std::array<Piece, 3>& pieces, Bytes from, Bytes to,
                                      const PerfFactors& many, const LinearFunc& paid) {
  std::vector<double> cuts{static_cast<double>(from), static_cast<double>(to) + 1};
  for (std::size_t i = 0; i < pieces.size(); ++i)
    for (std::size_t j = i + 1; j < pieces.size(); ++j)
      if (const std::optional<double> x = pieces[i].line.intersect(pieces[j].line);
          x && *x > static_cast<double>(from) && *x < static_cast<double>(to) + 1)
        cuts.push_back(std::ceil(*x));
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  std::vector<PerfRange> out;
  for (std::size_t c = 0; c + 1 < cuts.size(); ++c) {
    const auto lo = static_cast<Bytes>(cuts[c]);
    const auto hi = static_cast<Bytes>(cuts[c + 1]) - 1;
    if (hi < lo)
      continue;
    const double mid = (static_cast<double>(lo) + static_cast<double>(hi)) / 2;
    const Piece* top = &pieces[0];
    for (const Piece& p : pieces)
      if (p.line.apply(mid) > top->line.apply(mid))
        top = &p;
    PerfFactors f = many;
    f[top->factor] += top->line + paid.scale(-1);
    if (!out.empty() && out.back().factors == f)
      out.back().to = hi;
    else
      out.push_back({lo, hi, f});
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
  const Seconds t_s = per_fragment_send.apply(s);
  const Seconds t_r = per_fragment_recv.apply(s);
  const Seconds gate = std::max(lane.gap, (s + static_cast<double>(header)) / lane.bandwidth);
  const Seconds q = std::max({t_s, gate, t_r});
  const Seconds behind = std::max(0.0, t_r - std::max(t_s, gate));
  std::vector<PerfRange> out;
  for (int k = 2; k <= most; ++k) {
    // r = n − (k − 1)·S: each stage's time of the last fragment as a line in n.
    const double full = static_cast<double>(k - 1) * s;
    const auto in_n = [full](const LinearFunc& of_r) { return LinearFunc{of_r.c - of_r.m * full, of_r.m}; };
    const LinearFunc recv = in_n(per_fragment_recv);
    const LinearFunc wire_less = in_n(LinearFunc{-s / lane.bandwidth, 1 / lane.bandwidth});
    const Seconds backlog = static_cast<double>(k - 2) * behind;
    const LinearFunc after = wire_less + LinearFunc::constant(-t_r - backlog);
    const std::array<Piece, 3> pieces{Piece{recv, Factor::RemoteCpu},
                                      Piece{recv + in_n(per_fragment_send) + after, Factor::LocalCpu},
                                      Piece{recv + LinearFunc::constant(gate) + after, Factor::Network}};
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
