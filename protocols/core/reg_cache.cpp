#include "protocols/core/reg_cache.hpp"

#include <cstdint>

namespace xover {
namespace {

/// Whether `region` holds [base, base + size). Phantom buffers (null, in
/// simulation) have no addresses to compare: only the same size matches.
bool covers(const MemoryRegion& region, const std::byte* base, Bytes size) {
  if (!base || !region.base)
    return !base && !region.base && region.size == size;
  const auto begin = reinterpret_cast<std::uintptr_t>(base);
  const auto have = reinterpret_cast<std::uintptr_t>(region.base);
  return begin >= have && begin - have <= region.size && size <= region.size - (begin - have);
}

}  // namespace

const MemoryRegion* RegCache::acquire(Rank peer, std::size_t lane, const std::byte* base, Bytes size) {
  // A linear walk, most recently used first: a sender that reuses its
  // buffer finds it at the front, and the walk is bounded by the capacity.
  for (auto it = regions_.begin(); it != regions_.end(); ++it) {
    if (it->peer != peer || it->lane != lane || !covers(it->region, base, size))
      continue;
    ++it->users;
    regions_.splice(regions_.begin(), regions_, it);
    return &regions_.front().region;
  }
  return nullptr;
}

void RegCache::insert(Rank peer, std::size_t lane, const MemoryRegion& region, std::vector<MemoryRegion>& evicted) {
  regions_.push_front(Entry{peer, lane, region, 1});
  for (auto it = regions_.end(); regions_.size() > capacity_ && it != regions_.begin();) {
    --it;
    if (it->users == 0) {
      evicted.push_back(it->region);
      it = regions_.erase(it);
    }
  }
}

void RegCache::release(Rank peer, const MemoryRegion& region) {
  for (Entry& e : regions_)
    if (e.peer == peer && e.region.key == region.key && e.region.base == region.base && e.region.size == region.size &&
        e.users > 0) {
      --e.users;
      return;
    }
}

}  // namespace xover
