// The bytes of one message that have arrived, as disjoint ranges: what says
// that a message whose fragments come in any order, over any lane, is
// whole, and what tells a new fragment from one that repeats bytes already
// in (a corrupt or hostile peer's), which must not count twice. Fragments
// in order keep one range; any order costs O(log n) a fragment.
#pragma once

#include <iterator>
#include <map>

#include "protocols/units.hpp"

namespace xover {

class Arrived {
 public:
  /// Adds the bytes [offset, offset + n), which the caller has checked lie
  /// inside the message. False, adding nothing, when any of them is in already.
  bool add(Bytes offset, Bytes n) {
    if (n == 0)
      return true;
    const Bytes end = offset + n;
    const auto next = ranges_.upper_bound(offset);  // the first range that starts past `offset`
    const auto prev = next == ranges_.begin() ? ranges_.end() : std::prev(next);
    if ((prev != ranges_.end() && prev->second > offset) || (next != ranges_.end() && next->first < end))
      return false;
    const bool joins_prev = prev != ranges_.end() && prev->second == offset;
    const bool joins_next = next != ranges_.end() && next->first == end;
    if (joins_prev) {
      prev->second = joins_next ? next->second : end;
      if (joins_next)
        ranges_.erase(next);
    } else if (joins_next) {
      const Bytes next_end = next->second;
      ranges_.erase(next);
      ranges_.emplace(offset, next_end);
    } else {
      ranges_.emplace_hint(next, offset, end);
    }
    bytes_ += n;
    return true;
  }
  /// The bytes in so far.
  Bytes bytes() const { return bytes_; }
  /// Forgets every range: no byte in.
  void clear() {
    if (!ranges_.empty())
      ranges_.clear();
    bytes_ = 0;
  }

 private:
  std::map<Bytes, Bytes> ranges_;  ///< begin -> end: neither overlapping nor touching
  Bytes bytes_ = 0;
};

}  // namespace xover
