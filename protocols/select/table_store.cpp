#include "protocols/select/table_store.hpp"

#include <algorithm>
#include <utility>

namespace xover {

const ThresholdTable& TableStore::table(const Path& path, const SelectConfig& config, MemType mem) {
  Path costs = path.costs();
  auto found = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& entry) {
    return entry.table->mem() == mem && entry.config == config && entry.costs == costs;
  });
  if (found != entries_.end())
    return *found->table;
  auto built = std::make_unique<ThresholdTable>(ThresholdTable::build(path, config, mem));
  entries_.push_back(Entry{std::move(costs), config, std::move(built)});
  return *entries_.back().table;
}

}  // namespace xover
