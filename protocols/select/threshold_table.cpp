#include "protocols/select/threshold_table.hpp"

#include <algorithm>
#include <stdexcept>

#include "protocols/registry.hpp"

namespace xover {
namespace {

void check_names(const std::vector<std::string>& names, const char* key) {
  for (const std::string& name : names) {
    if (protocol_name_known(name))
      continue;
    std::string known;
    for (const Protocol* protocol : protocols_for(ProtoOp::TagSend))
      known += (known.empty() ? "" : ", ") + std::string(protocol->name);
    throw std::invalid_argument(std::string(key) + ": unknown protocol '" + name + "' (known: " + known + ")");
  }
}

bool matches_any(const Protocol& protocol, const std::vector<std::string>& patterns) {
  return std::any_of(patterns.begin(), patterns.end(),
                     [&](const std::string& pattern) { return protocol_matches(protocol, pattern); });
}

// Keeps the parts of `ranges` inside [lo, hi].
void clip(std::vector<PerfRange>& ranges, Bytes lo, Bytes hi) {
  std::vector<PerfRange> out;
  for (PerfRange range : ranges) {
    range.from = std::max(range.from, lo);
    range.to = std::min(range.to, hi);
    if (range.from <= range.to)
      out.push_back(range);
  }
  ranges = std::move(out);
}

void apply_limits(ProtoChoice& choice, const SelectConfig& config) {
  std::vector<PerfRange>& ranges = choice.candidate.ranges;
  switch (choice.protocol->family) {
    case ProtoFamily::Eager:
      if (config.eager_limit)
        clip(ranges, 0, *config.eager_limit);
      break;
    case ProtoFamily::MultiEager:
      if (config.multi_eager_limit)
        clip(ranges, 0, *config.multi_eager_limit);
      break;
    case ProtoFamily::Rndv:
      if (config.rndv_thresh)
        clip(ranges, *config.rndv_thresh, kSizeMax);
      return;
  }
  if (config.rndv_thresh) {
    if (*config.rndv_thresh == 0)
      ranges.clear();
    else
      clip(ranges, 0, *config.rndv_thresh - 1);
  }
}

// Probes `protocol` once per range of sizes between the path's breakpoints,
// with the path resolved there, and keeps each answer's ranges inside its
// own: a cost that is linear on each step. Empty when no range probes.
std::optional<ProtoCandidate> probe_by_step(const Protocol& protocol, const Path& path, const EndpointLanes& lanes,
                                            const SelectConfig& config, MemType mem) {
  static const std::vector<LaneShare> none;
  const std::vector<LaneShare>& bw = protocol.bw_lanes ? lanes.bw(*protocol.bw_lanes) : none;
  std::vector<Bytes> starts = path.breakpoints();
  starts.insert(starts.begin(), 0);
  std::optional<ProtoCandidate> out;
  for (std::size_t i = 0; i < starts.size(); ++i) {
    const Bytes lo = starts[i];
    const Bytes hi = i + 1 < starts.size() ? starts[i + 1] - 1 : kSizeMax;
    // The path as this range's messages see it: their figures at lo, at
    // the pace of their bytes (Path::for_message).
    const Path resolved = starts.size() == 1 && !path.has_message_factor() ? path : path.for_message(lo);
    std::optional<ProtoCandidate> part = protocol.probe(ProbeContext{resolved, lanes, bw, config, mem});
    if (!part)
      continue;
    clip(part->ranges, lo, hi);
    if (!out)
      out = ProtoCandidate{{}, part->lanes};
    for (const PerfRange& range : part->ranges) {
      // A step that changes none of this protocol's figures leaves one range.
      if (!out->ranges.empty() && out->ranges.back().to + 1 == range.from && out->ranges.back().factors == range.factors)
        out->ranges.back().to = range.to;
      else
        out->ranges.push_back(range);
    }
  }
  return out;
}

}  // namespace

ThresholdTable ThresholdTable::build(const Path& path, const SelectConfig& config, MemType mem) {
  check_names(config.forced, "proto");
  check_names(config.disabled, "disable");

  ThresholdTable table;
  table.perf_ = config.perf;
  table.mem_ = mem;
  table.lanes_ = select_lanes(path, config.lanes, lane_requirements());
  for (const Protocol* protocol : protocols_for(ProtoOp::TagSend)) {
    if (!config.forced.empty() && !matches_any(*protocol, config.forced))
      continue;
    if (matches_any(*protocol, config.disabled))
      continue;
    if ((protocol->mem_types & mem_bit(mem)) == 0)
      continue;
    std::optional<ProtoCandidate> candidate = probe_by_step(*protocol, path, table.lanes_, config, mem);
    if (!candidate)
      continue;
    ProtoChoice choice{protocol, std::move(*candidate), protocol->family == ProtoFamily::Rndv ? config.rndv_bias() : 1};
    apply_limits(choice, config);
    if (choice.candidate.ranges.empty())
      continue;
    PiecewiseFunc cost;
    for (const PerfRange& range : choice.candidate.ranges) {
      const PiecewiseFunc part = range.factors.scaled(choice.bias).cost(config.perf, range.from, range.to);
      cost.insert(cost.end(), part.begin(), part.end());
    }
    table.choices_.push_back(std::move(choice));
    table.costs_.push_back(std::move(cost));
  }
  for (const EnvelopeRange& range : lower_envelope(table.costs_, 0, kSizeMax))
    table.ranges_.push_back({range.from, range.to, range.index});
  return table;
}

const std::vector<LaneShare>& ThresholdTable::bw_lanes(const Protocol& protocol) const {
  static const std::vector<LaneShare> none;
  return protocol.bw_lanes ? lanes_.bw(*protocol.bw_lanes) : none;
}

const std::vector<LaneShare>& ThresholdTable::bw_lanes(std::string_view name) const {
  const Protocol* protocol = protocol_named(name);
  if (!protocol)
    throw std::invalid_argument("no protocol is called '" + std::string(name) + "'");
  return bw_lanes(*protocol);
}

const ProtoChoice* ThresholdTable::lookup(Bytes n) const {
  auto it = std::lower_bound(ranges_.begin(), ranges_.end(), n,
                             [](const ThresholdRange& range, Bytes size) { return range.to < size; });
  if (it == ranges_.end() || it->from > n)
    return nullptr;
  return &choices_[it->choice];
}

std::optional<Seconds> ThresholdTable::selection_cost(std::size_t choice, Bytes n) const {
  Seconds t = 0;
  if (!evaluate(costs_[choice], n, t))
    return std::nullopt;
  return t;
}

}  // namespace xover
