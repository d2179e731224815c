// The alltoall of the `003_…` seed (NVSHMEM over InfiniBand): each of P
// processing elements (PEs) puts n bytes to each of the other P − 1, every
// put carrying its completion signal, in two flavours:
//
//   coll/alltoall/proxy   (IBRC) the PE's threads write one command per put
//                         into a ring; one proxy thread per PE serves them one
//                         by one (parse, fence, post, poll: proxy_o each) and
//                         posts to the NIC
//   coll/alltoall/direct  (IBGDA) the PE's threads build and post the work
//                         requests themselves, `threads` at a time
//
// Both then meet the NIC (or the engine that plays it on one GPU), which
// injects one put every γ, and the wire, L + n/B. The arithmetic of one PE,
// put i = 0 … N − 1 (N = P − 1, put i goes to PE (self + i + 1) mod P),
// with the device's figures (DeviceAttrs, the GPU lane among them):
//
//   o = o_d + s·(k − 1), k = min(T, N)   a post at the posting width's contention
//   posted   c_i = max(c_{i−T}, q_{i−C}) + o   T threads post in turn, after
//                                        the launch (c_{i−T} = launch for
//                                        i < T); q_{i−C}: the proxy's ring of
//                                        C commands is full (proxy only)
//   ready    r_i = c_{b_i}, b_i = min((⌊i/D⌋ + 1)·D, N) − 1   direct: the
//                                        request is seen when its batch's
//                                        doorbell rings
//            r_i = q_i = max(q_{i−R}, c_i + W) + o_p   proxy: R threads, W the
//                                        wake-up, each thread one command at
//                                        a time
//   injected s_i = max(r_i, s_{i−1} + γ),  γ = max(g, g_e, n/B),
//            B = min(the lane's bandwidth, the engine's B_e)
//   landed   s_i + L + n/B
//
// No ready date depends on n (posting costs the same at every size; only
// the NIC or engine moves bytes), so the exchange, which ends when the last
// put lands, is
//
//   S = max_i (r_i + (N − 1 − i)·γ),   T = S + L + n/B
//
// a maximum of lines in γ, of which only those on the upper hull of the
// points (N − 1 − i, r_i) ever lead: the closed form's cost lines. With the
// GPU lane's defaults (no launch or contention, D = 1, R = 1, a ring never
// full) the maxima fall at the first or the last posting round (J = ⌈N/T⌉
// rounds, a = (J − 1)·T):
//
//   direct  S = max(o_d + (N−1)·γ,  J·o_d + (N−1−a)·γ)
//   proxy   S = W + max(o_d + o_p + (N−1)·γ,  o_d + N·o_p,
//                       J·o_d + o_p + (N−1−a)·γ,  J·o_d + (N−a)·o_p)
//
// which is the seed's T ≈ L + 2·o + M·G (M = (P − 1)·n) refined: the
// proxy's o is paid N times in series (N/R with R threads) and hidden only
// when the NIC is the slower server (γ ≥ o_p); the direct flavour's o is
// overlapped T-fold. The target pays nothing to take a put in (it polls
// the signal), and the PEs start together. Exact on a platform where no two
// flows share a link.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "protocols/lanes/lane.hpp"
#include "protocols/perf/envelope.hpp"
#include "protocols/proto.hpp"
#include "protocols/units.hpp"

namespace xover {

/// One alltoall: `pes` PEs, `size` bytes from each to each other, every PE
/// behind one NIC with the lane's L, bandwidth and gap.
struct AlltoallParams {
  std::uint32_t pes = 2;
  Bytes size = 0;
  Seconds latency = 0;
  BytesPerSecond bandwidth = 1e9;
  Seconds gap = 0;
  DeviceAttrs device;

  /// B: the pace of a put's bytes, the lane's bandwidth or the engine's,
  /// whichever is smaller.
  BytesPerSecond pace() const;
  /// The least time between two puts, the lane's gap or the engine's.
  Seconds put_gap() const;
  /// The NIC's (or engine's) time per put: γ = max(g, g_e, n/B).
  Seconds injection() const;
  /// o: a post at the exchange's posting width, o_d + s·(min(T, P − 1) − 1).
  Seconds post_cost() const;
};

/// The schedule of one PE, put by put, in the arithmetic above: the stages
/// of a flavour (post; serve, proxy only; inject) that the simulator's PE,
/// proxy and NIC run, and that the closed form unrolls. Dates are relative
/// to the exchange's start; calls go in put order.
class PostClock {
 public:
  PostClock(AlltoallFlavour flavour, const AlltoallParams& params);

  /// The dates of one put.
  struct Dates {
    Seconds posted = 0;  ///< c_i: its command (or work request) written
    Seconds ready = 0;   ///< r_i: the NIC may take it (its doorbell rung, or the proxy done with it)
  };
  /// The next put's dates: put 0 on the first call, then 1, 2, …
  Dates next();
  /// s: the NIC takes a put ready at `ready` and returns its injection date.
  Seconds inject(Seconds ready);

 private:
  Seconds posted_at(std::size_t i) const;

  AlltoallFlavour flavour_;
  AlltoallParams params_;
  Seconds post_o_ = 0;
  std::size_t puts_ = 0;
  std::size_t next_ = 0;
  std::vector<Seconds> written_;  ///< proxy: the last T dates c (a ring)
  std::vector<Seconds> served_;   ///< proxy: the last max(R, C) dates q that can still bind (a ring)
  Seconds nic_free_ = 0;
};

/// The lane an alltoall puts on toward a peer: the first of `path` that
/// carries put_zcopy (put_signal needs it); none when no lane does.
std::optional<std::size_t> put_lane(const Path& path);

/// T: the closed form above, in seconds from the start to the last landing.
Seconds alltoall_closed_form(AlltoallFlavour flavour, const AlltoallParams& params);

/// The cost of one flavour against n for `params.pes` PEs (params.size is
/// ignored): the closed form as pieces, a line per range where one term of
/// the maxima leads, split at n = g·B where the NIC turns bandwidth-bound.
PiecewiseFunc alltoall_cost(AlltoallFlavour flavour, const AlltoallParams& params);

/// The alltoall's protocols (ProtoOp::Alltoall), one per flavour, listed in
/// protocols/registry.cpp.
extern const Protocol coll_alltoall_proxy_proto;
extern const Protocol coll_alltoall_direct_proto;

/// Which flavour carries each size for `params.pes` PEs: the lower envelope
/// of the alltoall protocols' costs (protocols_for(ProtoOp::Alltoall),
/// protocols/registry.hpp), the direct flavour's scaled by
/// 1 + direct_perf_diff/100 (it must win by that much, since it keeps the
/// device's threads busy posting). Envelope indices are positions in that list.
std::vector<EnvelopeRange> alltoall_selection(const AlltoallParams& params, double direct_perf_diff);

}  // namespace xover
