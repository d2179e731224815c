#include "runtime/verbs/verbs_figures.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "runtime/verbs/verbs_wire.hpp"

namespace xover::runtime::verbs {

RegLine fit_registration(const std::vector<std::pair<Bytes, Seconds>>& samples) {
  std::set<Bytes> sizes;
  for (const auto& [n, t] : samples)
    sizes.insert(n);
  if (sizes.size() < 2)
    throw std::invalid_argument("a registration line needs samples at two sizes or more, got " +
                                std::to_string(sizes.size()));
  // Least squares of t = c + m·n, centred for accuracy.
  double mean_n = 0;
  double mean_t = 0;
  for (const auto& [n, t] : samples) {
    mean_n += static_cast<double>(n);
    mean_t += t;
  }
  mean_n /= static_cast<double>(samples.size());
  mean_t /= static_cast<double>(samples.size());
  double snn = 0;
  double snt = 0;
  for (const auto& [n, t] : samples) {
    const double dn = static_cast<double>(n) - mean_n;
    snn += dn * dn;
    snt += dn * (t - mean_t);
  }
  RegLine line;
  line.growth = std::max(0.0, snt / snn);
  line.cost = std::max(0.0, mean_t - line.growth * mean_n);
  return line;
}

Seconds one_way_latency(Seconds round_trip, Overheads mine, Overheads theirs) {
  return std::max(0.0, (round_trip - mine.o_send - mine.o_recv - theirs.o_send - theirs.o_recv) / 2);
}

LaneAttrs lane_attrs(const std::string& name, const LaneLimits& limits, const LaneMeasure& measure, RegLine reg) {
  LaneAttrs a;
  a.name = name;
  a.latency = measure.latency;
  a.bandwidth = measure.bandwidth;
  if (!measure.same_host && limits.link_rate > 0)
    a.bandwidth = std::min(a.bandwidth, limits.link_rate);
  a.o_send = measure.overheads.o_send;
  a.o_recv = measure.overheads.o_recv;
  a.gap = 0;
  a.reg_cost = reg.cost;
  a.reg_growth = reg.growth;
  a.max_short = limits.max_inline >= kWireHeader + 8 ? limits.max_inline - kWireHeader : 0;
  a.max_bcopy = limits.segment - kWireHeader;
  a.seg_size = limits.segment - kWireHeader;
  a.max_zcopy = std::min(limits.max_message, kMaxZcopy);
  a.caps = {LaneCap::AmBcopy, LaneCap::AmZcopy, LaneCap::PutZcopy};
  if (a.max_short > 0)
    a.caps.add(LaneCap::AmShort);
  if (limits.reads)
    a.caps.add(LaneCap::GetZcopy);
  if (limits.atomics)
    a.caps.add(LaneCap::Atomics);
  return a;
}

}  // namespace xover::runtime::verbs
