// The registration cache: registrations kept after their request is done,
// so that sending from the same buffer again registers nothing (UCX's
// rcache, without its memory hooks). A region is found by address range —
// any cached region of the same peer and lane that covers the bytes will do
// — and the cache is bounded: past its capacity, the least recently used
// regions that no request is using are handed back for deregistration. A
// region in use is never handed back, so the cache may stand over its
// capacity while more requests than that are in flight.
#pragma once

#include <cstddef>
#include <list>
#include <vector>

#include "protocols/core/transport.hpp"

namespace xover {

class RegCache {
 public:
  /// Regions kept when nothing uses them (the Worker's bound).
  static constexpr std::size_t kDefaultCapacity = 4096;

  explicit RegCache(std::size_t capacity = kDefaultCapacity) : capacity_(capacity) {}

  /// A region registered toward `peer` on `lane` that covers
  /// [base, base + size), now used once more and the most recently used;
  /// null when none does.
  const MemoryRegion* acquire(Rank peer, std::size_t lane, const std::byte* base, Bytes size);
  /// Keeps `region`, just registered toward `peer` on `lane`, used once and
  /// the most recently used. Appends to `evicted` the regions to deregister:
  /// the least recently used of those no request uses, while the cache
  /// holds more than its capacity.
  void insert(Rank peer, std::size_t lane, const MemoryRegion& region, std::vector<MemoryRegion>& evicted);
  /// One use of `region` (from acquire or insert toward `peer`) is over.
  void release(Rank peer, const MemoryRegion& region);
  /// Regions kept, used or not.
  std::size_t size() const { return regions_.size(); }

 private:
  struct Entry {
    Rank peer = 0;
    std::size_t lane = 0;
    MemoryRegion region;
    std::size_t users = 0;
  };
  std::list<Entry> regions_;  ///< the most recently used first
  std::size_t capacity_;
};

}  // namespace xover
