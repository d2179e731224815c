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
// Both then meet the NIC, which injects one put every max(g, n·G), and the
// wire, L + n·G. The arithmetic of one PE, put i = 0 … N − 1 (N = P − 1,
// put i goes to PE (self + i + 1) mod P):
//
//   posted  c_i = (⌊i/T⌋ + 1)·o_d           T threads post in rounds of device_o
//   served  q_i = max(q_{i−1}, c_i + W) + o_p          proxy only; W = proxy_wake
//   injected s_i = max(r_i, s_{i−1} + γ),  γ = max(g, n·G),  r_i = q_i or c_i
//   landed  s_i + L + n·G
//
// The exchange ends when the last put lands. Unrolling the maxima (each is
// taken at the first put of a posting round, and is linear in the round, so
// at the first or the last round; J = ⌈N/T⌉ rounds, a = (J − 1)·T):
//
//   direct  S = max(o_d + (N−1)·γ,  J·o_d + (N−1−a)·γ)
//   proxy   S = W + max(o_d + o_p + (N−1)·γ,  o_d + N·o_p,
//                       J·o_d + o_p + (N−1−a)·γ,  J·o_d + (N−a)·o_p)
//   T = S + L + n·G
//
// which is the seed's T ≈ L + 2·o + M·G (M = (P − 1)·n) refined: the
// proxy's o is paid N times in series and hidden only when the NIC is the
// slower server (γ ≥ o_p); the direct flavour's o is overlapped T-fold. The
// target pays nothing to take a put in (it polls the signal), and the PEs
// start together. Exact on a platform where no two flows share a link.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

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

  /// The NIC's time per put: γ = max(g, n·G).
  Seconds injection() const;
};

/// The schedule of one PE, put by put, in the arithmetic above: the stages
/// of both flavours (1: post, 2: serve, proxy only, 3: inject) that the
/// simulator's PE, proxy and NIC run, and that the closed form unrolls.
/// Dates are relative to the exchange's start; calls go in put order.
class PostClock {
 public:
  explicit PostClock(const AlltoallParams& params) : params_(params) {}

  /// c_i: the date put i's command (or work request) is written.
  Seconds posted(std::size_t i) const;
  /// q: the proxy takes a command written at `written` (its c_i), which it
  /// sees W later, and returns the date it is done with it.
  Seconds serve(Seconds written);
  /// s: the NIC takes a put ready at `ready` and returns its injection date.
  Seconds inject(Seconds ready);

 private:
  AlltoallParams params_;
  Seconds served_ = 0;
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
