#include "protocols/select/table_store.hpp"

#include <algorithm>

namespace xover {
namespace {

// What a path costs: the path without its nodes' and lanes' names, which
// no table reads.
Path costs_of(const Path& path) {
  Path out = path;
  out.from.clear();
  out.to.clear();
  for (LaneAttrs& lane : out.lanes)
    lane.name.clear();
  return out;
}

bool same_costs(const Path& a, const Path& b) {
  return a.lanes == b.lanes && a.memcpy_bw_local == b.memcpy_bw_local && a.memcpy_bw_remote == b.memcpy_bw_remote &&
         a.memcpy_local_steps == b.memcpy_local_steps && a.memcpy_remote_steps == b.memcpy_remote_steps &&
         a.device_local == b.device_local && a.device_remote == b.device_remote &&
         a.message_factor == b.message_factor;
}

}  // namespace

const ThresholdTable& TableStore::table(const Path& path, const SelectConfig& config, MemType mem) {
  Path costs = costs_of(path);
  auto found = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& entry) {
    return entry.table->mem() == mem && entry.config == config && same_costs(entry.costs, costs);
  });
  if (found != entries_.end())
    return *found->table;
  auto built = std::make_unique<ThresholdTable>(ThresholdTable::build(path, config, mem));
  entries_.push_back(Entry{std::move(costs), config, std::move(built)});
  return *entries_.back().table;
}

}  // namespace xover
