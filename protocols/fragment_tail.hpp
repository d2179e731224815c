// The last, shorter fragment of a fragmented message, in its cost line.
//
// cost::fragment_pipeline's line spreads a message's bytes over fragments
// as if the last were as full as the others: exact when n is a multiple of
// the fragment payload S, otherwise below what a message pays, which sends
// its last fragment whole, fixed costs and all. A message of a power of
// two is (k − 1) full fragments and a near-empty last one (16 KiB in 8 KiB
// segments less a header: two full and 32 bytes), so its line leaves out
// one fragment's fixed costs: the receiver's o_r at least, 5–10 % of a
// message of 2–7 fragments, enough to move where selection hands over
// against the simulation.
//
// With k − 1 full fragments and a last of r bytes on one lane, in the
// three-stage pipeline the simulator runs (sender t_s, NIC gate
// G_S = max(g, (S+h)/B), then L and the receiver t_r), the last fragment
// completes
//   Δ(r) = max( t_r(r),
//               t_r(r) + t_s(r) + (r − S)/B − t_r(S) − backlog,
//               t_r(r) + G_S   + (r − S)/B − t_r(S) − backlog )
// after the one before, where backlog = (k − 2)·max(0, t_r(S) − max(t_s(S), G_S))
// is how far a receiver-bound pipeline's receiver runs behind the
// arrivals; the line pays r·Q/S there (Q = max(t_s, G_S, t_r) at S). A
// sender time per payload byte m_s (LaneAttrs::o_send_per_byte) is in t_s
// and spent after a fragment leaves: the second term gains (S − r)·m_s. The
// difference, a maximum of lines in n, goes into the factor of the stage
// that pays it (receiver, sender, network), one range per piece.
#pragma once

#include <vector>

#include "protocols/proto.hpp"

namespace xover::cost {

/// The ranges of a message of more than one fragment of `payload` bytes
/// (each with a `header`) over `lanes` of `fragment` (the path's figures at
/// the fragment's size), from payload + 1 bytes on: for 2 to `most`
/// fragments, `many` (the fragment_pipeline factors) with the last
/// fragment's difference above, exact on one lane where the figures do not
/// change between r and S bytes; past most·payload bytes (the difference
/// is then at most a fragment's fixed costs over `most` fragments, and the
/// line stays exact at whole fragments) and over several lanes (whose last
/// fragment may take any lane), `many` alone.
std::vector<PerfRange> pipeline_ranges(const Path& fragment, const std::vector<LaneShare>& lanes, Bytes payload,
                                       Bytes header, const LinearFunc& per_fragment_send,
                                       const LinearFunc& per_fragment_recv, const PerfFactors& many, int most = 8);

}  // namespace xover::cost
