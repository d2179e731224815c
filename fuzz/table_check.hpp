// A check shared by the harnesses whose inputs end up choosing protocols
// (settings, platform properties): the thresholds table of a path, built,
// walked and compared with the seed's closed form, must hold together.
#pragma once

#include <stdexcept>

#include "fuzz/harness.hpp"
#include "protocols/select/closed_form.hpp"
#include "protocols/select/threshold_table.hpp"

namespace xover::fuzz {

/// Builds the table of `path` under `config` (an unknown protocol name is
/// refused with std::invalid_argument, which is fine) and checks that its
/// ranges are in order and that lookup gives each range's own protocol.
inline void check_table(const Path& path, const SelectConfig& config) {
  ThresholdTable table;
  try {
    table = ThresholdTable::build(path, config);
  } catch (const std::invalid_argument&) {
    return;
  }
  Bytes next = 0;
  for (const ThresholdRange& range : table.ranges()) {
    check(range.from >= next && range.from <= range.to, "table ranges in order");
    check(range.choice < table.choices().size(), "a range names a choice");
    for (const Bytes n : {range.from, range.to})
      check(table.lookup(n) == &table.choices()[range.choice], "lookup gives the range's protocol");
    if (range.to == kSizeMax)
      break;
    next = range.to + 1;
  }
  compare_closed_form(table, path, config);
}

}  // namespace xover::fuzz
