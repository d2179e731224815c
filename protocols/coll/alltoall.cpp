#include "protocols/coll/alltoall.hpp"

#include <algorithm>
#include <cmath>

#include "protocols/registry.hpp"

namespace xover {
namespace {

/// The terms of the unrolled maxima (alltoall.hpp) as lines in n, with γ
/// standing as `gamma`: a line per term, without L + n·G.
std::vector<LinearFunc> terms(AlltoallFlavour flavour, const AlltoallParams& p, LinearFunc gamma) {
  const double n_puts = p.pes - 1.0;
  const double rounds = std::ceil(n_puts / p.device.threads);
  const double last_round = (rounds - 1) * p.device.threads;
  const Seconds od = p.device.device_o;
  const Seconds op = p.device.proxy_o;
  if (flavour == AlltoallFlavour::Direct)
    return {LinearFunc::constant(od) + gamma.scale(n_puts - 1),
            LinearFunc::constant(rounds * od) + gamma.scale(n_puts - 1 - last_round)};
  const LinearFunc wake = LinearFunc::constant(p.device.proxy_wake);
  return {wake + LinearFunc::constant(od + op) + gamma.scale(n_puts - 1),
          wake + LinearFunc::constant(od + n_puts * op),
          wake + LinearFunc::constant(rounds * od + op) + gamma.scale(n_puts - 1 - last_round),
          wake + LinearFunc::constant(rounds * od + (n_puts - last_round) * op)};
}

/// L + n·G: the wire, once the last put is injected.
LinearFunc wire(const AlltoallParams& p) {
  return {p.latency, 1.0 / p.bandwidth};
}

}  // namespace

std::optional<std::size_t> put_lane(const Path& path) {
  for (std::size_t i = 0; i < path.lanes.size(); ++i)
    if (path.lanes[i].caps.has(LaneCap::PutZcopy))
      return i;
  return std::nullopt;
}

Seconds AlltoallParams::injection() const {
  return std::max(gap, static_cast<double>(size) / bandwidth);
}

Seconds PostClock::posted(std::size_t i) const {
  return static_cast<double>(i / params_.device.threads + 1) * params_.device.device_o;
}

Seconds PostClock::serve(Seconds written) {
  served_ = std::max(served_, written + params_.device.proxy_wake) + params_.device.proxy_o;
  return served_;
}

Seconds PostClock::inject(Seconds ready) {
  const Seconds at = std::max(ready, nic_free_);
  nic_free_ = at + params_.injection();
  return at;
}

Seconds alltoall_closed_form(AlltoallFlavour flavour, const AlltoallParams& params) {
  const std::vector<LinearFunc> lines = terms(flavour, params, LinearFunc::constant(params.injection()));
  Seconds last = 0;
  for (const LinearFunc& line : lines)
    last = std::max(last, line.c);
  return last + wire(params).apply(static_cast<double>(params.size));
}

PiecewiseFunc alltoall_cost(AlltoallFlavour flavour, const AlltoallParams& params) {
  // γ = g up to n = ⌊g·B⌋, n·G beyond.
  const Bytes gap_bound = static_cast<Bytes>(std::floor(params.gap * params.bandwidth));
  PiecewiseFunc cost = upper_envelope(terms(flavour, params, LinearFunc::constant(params.gap)), 0, gap_bound);
  if (gap_bound < kSizeMax) {
    const PiecewiseFunc beyond =
        upper_envelope(terms(flavour, params, LinearFunc::per_byte(1.0 / params.bandwidth)), gap_bound + 1, kSizeMax);
    cost.insert(cost.end(), beyond.begin(), beyond.end());
  }
  PiecewiseFunc merged;
  for (Piece& piece : cost) {
    piece.f += wire(params);
    if (!merged.empty() && merged.back().f == piece.f)
      merged.back().to = piece.to;
    else
      merged.push_back(piece);
  }
  return merged;
}

std::vector<EnvelopeRange> alltoall_selection(const AlltoallParams& params, double direct_perf_diff) {
  std::vector<PiecewiseFunc> costs;
  for (const Protocol* protocol : protocols_for(ProtoOp::Alltoall)) {
    PiecewiseFunc cost = alltoall_cost(protocol->flavour, params);
    if (protocol->flavour == AlltoallFlavour::Direct)
      for (Piece& piece : cost)
        piece.f = piece.f.scale(1 + direct_perf_diff / 100);
    costs.push_back(std::move(cost));
  }
  return lower_envelope(costs, 0, kSizeMax);
}

const Protocol coll_alltoall_proxy_proto{.name = "coll/alltoall/proxy",
                                         .description = "alltoall through a CPU proxy serving a command ring (IBRC)",
                                         .op = ProtoOp::Alltoall,
                                         .flavour = AlltoallFlavour::Proxy};

const Protocol coll_alltoall_direct_proto{.name = "coll/alltoall/direct",
                                          .description = "alltoall posted by the device's threads (IBGDA)",
                                          .op = ProtoOp::Alltoall,
                                          .flavour = AlltoallFlavour::Direct};

}  // namespace xover
