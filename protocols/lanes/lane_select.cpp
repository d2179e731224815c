#include "protocols/lanes/lane_select.hpp"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <stdexcept>

namespace xover {

std::string lanes_text(const Path& path, const std::vector<LaneShare>& lanes, LanesText style) {
  const bool results = style == LanesText::Results;
  std::string out;
  for (const LaneShare& share : lanes) {
    if (!out.empty())
      out += results ? " " : ", ";
    out += path.lanes[share.lane].name;
    char buf[32] = "";
    if (results)
      std::snprintf(buf, sizeof buf, ":%.3g", share.weight);
    else if (lanes.size() > 1)
      std::snprintf(buf, sizeof buf, " %.0f%%", share.weight * 100);
    out += buf;
  }
  return out.empty() && !results ? "-" : out;
}

std::optional<std::size_t> select_latency_lane(const Path& path, LaneCaps caps) {
  std::optional<std::size_t> best;
  auto score = [&](std::size_t i) {
    const LaneAttrs& lane = path.lanes[i];
    return lane.latency + lane.o_send - lane.sent_after() + lane.o_recv;
  };
  for (std::size_t i = 0; i < path.lanes.size(); ++i) {
    if (!path.lanes[i].caps.has_any(caps))
      continue;
    if (!best || score(i) < score(*best) ||
        (score(i) == score(*best) && path.lanes[i].bandwidth > path.lanes[*best].bandwidth))
      best = i;
  }
  return best;
}

std::vector<LaneShare> select_bw_lanes(const Path& path, LaneCap cap, std::size_t max_lanes, double min_bw_ratio) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < path.lanes.size(); ++i)
    if (path.lanes[i].caps.has(cap))
      order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const LaneAttrs& la = path.lanes[a];
    const LaneAttrs& lb = path.lanes[b];
    if (la.bandwidth != lb.bandwidth)
      return la.bandwidth > lb.bandwidth;
    return la.latency < lb.latency;
  });
  std::vector<LaneShare> out;
  for (std::size_t i : order) {
    if (out.size() == max_lanes)
      break;
    if (!out.empty() && path.lanes[i].bandwidth * min_bw_ratio < path.lanes[out.front().lane].bandwidth)
      break;
    out.push_back({i, 0});
  }
  const double total = std::accumulate(out.begin(), out.end(), 0.0,
                                       [&](double sum, const LaneShare& s) { return sum + path.lanes[s.lane].bandwidth; });
  for (LaneShare& share : out)
    share.weight = path.lanes[share.lane].bandwidth / total;
  return out;
}

const std::vector<LaneShare>& EndpointLanes::bw(const LaneRequirement& requirement) const {
  for (const auto& [resolved, lanes] : bandwidth)
    if (resolved == requirement)
      return lanes;
  throw std::logic_error("EndpointLanes::bw: a lane requirement that select_lanes was not given");
}

bool EndpointLanes::needs_bootstrap(const Path& path) const {
  return am && !path.lanes[*am].caps.has(LaneCap::ConnectToIface);
}

EndpointLanes select_lanes(const Path& path, const LaneConfig& config, std::span<const LaneRequirement> requirements) {
  EndpointLanes out;
  out.am = select_latency_lane(path, {LaneCap::AmShort, LaneCap::AmBcopy});
  out.bootstrap = select_latency_lane(path, {LaneCap::ConnectToIface});
  for (const LaneRequirement& requirement : requirements) {
    const auto resolved = [&](const auto& entry) { return entry.first == requirement; };
    if (std::none_of(out.bandwidth.begin(), out.bandwidth.end(), resolved))
      out.bandwidth.emplace_back(requirement, select_bw_lanes(path, requirement.cap, config.*requirement.max_lanes,
                                                              config.min_bw_ratio));
  }
  return out;
}

}  // namespace xover
