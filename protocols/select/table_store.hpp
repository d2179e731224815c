// Thresholds tables kept for reuse: one per distinct (path costs, memory
// type, settings), however many peers, or Workers, ask for it. A table
// holds lanes by index, never by name, so two paths whose lanes differ
// only in their names (each source's own links) share one; any figure that
// differs, the message factor included, gets a table of its own.
//
//   TableStore store;
//   const ThresholdTable& t = store.table(path, config, MemType::Host);
//
// The simulator's network keeps one for all its ranks (Transport::
// shared_tables), so that P ranks on alike routes hold one table, not P.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "protocols/select/select_config.hpp"
#include "protocols/select/threshold_table.hpp"

namespace xover {

class TableStore {
 public:
  /// The table of `mem` buffers under `config` for a path that costs what
  /// `path` does, built on the first ask. The reference stays valid while
  /// the store lives. Throws as ThresholdTable::build does.
  const ThresholdTable& table(const Path& path, const SelectConfig& config, MemType mem);
  /// Tables built so far.
  std::size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    Path costs;  ///< Path::costs()
    SelectConfig config;
    std::unique_ptr<ThresholdTable> table;
  };
  std::vector<Entry> entries_;
};

}  // namespace xover
