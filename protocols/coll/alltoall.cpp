#include "protocols/coll/alltoall.hpp"

#include <algorithm>
#include <cmath>

#include "protocols/registry.hpp"

namespace xover {
namespace {

/// The ready dates r_i of one PE's puts, in put order.
std::vector<Seconds> ready_dates(AlltoallFlavour flavour, const AlltoallParams& p) {
  PostClock clock(flavour, p);
  std::vector<Seconds> ready(p.pes - 1);
  for (Seconds& r : ready)
    r = clock.next().ready;
  return ready;
}

/// The terms of S = max_i (r_i + (N − 1 − i)·γ) (alltoall.hpp) as lines in
/// n, with γ standing as `gamma`: the upper hull of the points
/// (N − 1 − i, r_i), the only terms that lead for some γ ≥ 0.
std::vector<LinearFunc> terms(AlltoallFlavour flavour, const AlltoallParams& p, LinearFunc gamma) {
  struct Term {
    double puts_behind;
    Seconds ready;
  };
  const std::vector<Seconds> ready = ready_dates(flavour, p);
  std::vector<Term> hull;
  // By puts behind increasing (i decreasing): ready dates never increase.
  for (std::size_t i = ready.size(); i-- > 0;) {
    const Term t{static_cast<double>(ready.size() - 1 - i), ready[i]};
    if (!hull.empty() && hull.back().ready <= t.ready)
      hull.pop_back();  // as early and fewer puts behind: never leads
    while (hull.size() >= 2) {
      const Term& a = hull[hull.size() - 2];
      const Term& b = hull.back();
      const double turn =
          (b.puts_behind - a.puts_behind) * (t.ready - a.ready) - (b.ready - a.ready) * (t.puts_behind - a.puts_behind);
      if (turn < 0)  // a right turn: b stays on the hull
        break;
      hull.pop_back();
    }
    hull.push_back(t);
  }
  std::vector<LinearFunc> lines;
  for (const Term& t : hull)
    lines.push_back(LinearFunc::constant(t.ready) + gamma.scale(t.puts_behind));
  return lines;
}

/// L + n/B: the wire, once the last put is injected.
LinearFunc wire(const AlltoallParams& p) {
  return {p.latency, 1.0 / p.pace()};
}

}  // namespace

std::optional<std::size_t> put_lane(const Path& path) {
  for (std::size_t i = 0; i < path.lanes.size(); ++i)
    if (path.lanes[i].caps.has(LaneCap::PutZcopy))
      return i;
  return std::nullopt;
}

BytesPerSecond AlltoallParams::pace() const {
  return std::min(bandwidth, device.engine_bw);
}

Seconds AlltoallParams::put_gap() const {
  return std::max(gap, device.engine_gap);
}

Seconds AlltoallParams::injection() const {
  return std::max(put_gap(), static_cast<double>(size) / pace());
}

Seconds AlltoallParams::post_cost() const {
  const std::uint32_t posters = std::clamp<std::uint32_t>(std::min(device.threads, pes - 1), 1, device.threads);
  return device.device_o + device.post_slope * (posters - 1.0);
}

PostClock::PostClock(AlltoallFlavour flavour, const AlltoallParams& params)
    : flavour_(flavour), params_(params), post_o_(params.post_cost()), puts_(params.pes - 1) {
  if (flavour_ != AlltoallFlavour::Proxy)
    return;
  const DeviceAttrs& d = params.device;
  const std::size_t most = std::max<std::size_t>(puts_, 1);
  written_.assign(std::min<std::size_t>(d.threads, most), d.launch);
  const std::size_t binding = d.ring_capacity < puts_ ? std::max(d.ring_capacity, d.proxy_threads) : d.proxy_threads;
  served_.assign(std::min(binding, most), 0);
}

Seconds PostClock::posted_at(std::size_t i) const {
  return params_.device.launch + static_cast<double>(i / params_.device.threads + 1) * post_o_;
}

PostClock::Dates PostClock::next() {
  const std::size_t i = next_++;
  const DeviceAttrs& d = params_.device;
  if (flavour_ == AlltoallFlavour::Direct) {
    const std::size_t rung = std::min((i / d.doorbell_batch + 1) * d.doorbell_batch, puts_) - 1;
    return {posted_at(i), posted_at(rung)};
  }
  Seconds posted = written_[i % written_.size()];
  if (i >= d.ring_capacity)
    posted = std::max(posted, served_[(i - d.ring_capacity) % served_.size()]);
  posted += post_o_;
  written_[i % written_.size()] = posted;
  Seconds served = posted + d.proxy_wake;
  if (i >= d.proxy_threads)
    served = std::max(served, served_[(i - d.proxy_threads) % served_.size()]);
  served += d.proxy_o;
  served_[i % served_.size()] = served;
  return {posted, served};
}

Seconds PostClock::inject(Seconds ready) {
  const Seconds at = std::max(ready, nic_free_);
  nic_free_ = at + params_.injection();
  return at;
}

Seconds alltoall_closed_form(AlltoallFlavour flavour, const AlltoallParams& params) {
  const std::vector<Seconds> ready = ready_dates(flavour, params);
  const Seconds gamma = params.injection();
  Seconds last = 0;
  for (std::size_t i = 0; i < ready.size(); ++i)
    last = std::max(last, ready[i] + static_cast<double>(ready.size() - 1 - i) * gamma);
  return last + wire(params).apply(static_cast<double>(params.size));
}

PiecewiseFunc alltoall_cost(AlltoallFlavour flavour, const AlltoallParams& params) {
  // γ = max(g, g_e) up to n = ⌊γ·B⌋, n/B beyond.
  const Bytes gap_bound = static_cast<Bytes>(std::floor(params.put_gap() * params.pace()));
  PiecewiseFunc cost = upper_envelope(terms(flavour, params, LinearFunc::constant(params.put_gap())), 0, gap_bound);
  if (gap_bound < kSizeMax) {
    const PiecewiseFunc beyond =
        upper_envelope(terms(flavour, params, LinearFunc::per_byte(1.0 / params.pace())), gap_bound + 1, kSizeMax);
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
