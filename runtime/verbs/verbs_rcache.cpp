#include "runtime/verbs/verbs_rcache.hpp"

#include <algorithm>
#include <vector>

namespace xover::runtime::verbs {

RegCache::RegCache(Limits limits, Register reg, Deregister dereg)
    : limits_(limits), reg_(std::move(reg)), dereg_(std::move(dereg)) {
  if (limits_.page == 0)
    limits_.page = 1;
}

RegCache::~RegCache() {
  for (auto& [raw, region] : owned_) {
    dereg_(region->keys);
    ++stats_.deregistrations;
  }
}

RegCache::Region* RegCache::acquire(const void* base, Bytes size, bool keep) {
  if (size == 0)
    return nullptr;
  const auto addr = reinterpret_cast<std::uintptr_t>(base);
  std::uintptr_t start = addr / limits_.page * limits_.page;
  std::uintptr_t end = (addr + size + limits_.page - 1) / limits_.page * limits_.page;
  if (!limits_.share)
    return insert(start, end, false);

  // Regions overlapping or touching [start, end): a hit when one covers
  // it; otherwise, for a region to keep, the unused kept ones become part
  // of the union to register. Held regions stay as they are.
  std::vector<Region*> taken;
  const std::uintptr_t from = start > longest_ ? start - longest_ : 0;
  for (auto it = index_.lower_bound(from); it != index_.end() && it->first <= end; ++it) {
    Region* r = it->second;
    if (r->end < start)
      continue;
    if (r->start <= addr && r->end >= addr + size) {
      if (r->refs++ == 0) {
        unused_.erase(r->lru);
        unused_bytes_ -= r->end - r->start;
      }
      ++stats_.hits;
      return r;
    }
    if (keep && r->keep && r->refs == 0)
      taken.push_back(r);
  }
  for (const Region* r : taken) {
    start = std::min(start, r->start);
    end = std::max(end, r->end);
  }
  Region* merged = insert(start, end, keep);
  if (!merged)
    return nullptr;
  if (!taken.empty())
    ++stats_.merges;
  for (Region* r : taken) {
    unused_.erase(r->lru);
    unused_bytes_ -= r->end - r->start;
    destroy(r);
  }
  evict();
  return merged;
}

RegCache::Region* RegCache::insert(std::uintptr_t start, std::uintptr_t end, bool keep) {
  const MrKeys keys = reg_(start, end - start);
  if (!keys.handle)
    return nullptr;
  ++stats_.registrations;
  auto owned = std::make_unique<Region>();
  Region* r = owned.get();
  r->start = start;
  r->end = end;
  r->keys = keys;
  r->refs = 1;
  r->keep = keep;
  owned_.emplace(r, std::move(owned));
  index_.emplace(start, r);
  longest_ = std::max(longest_, end - start);
  return r;
}

void RegCache::release(Region* region) {
  if (!region || region->refs == 0)
    return;
  if (--region->refs > 0)
    return;
  if (!limits_.share || !region->keep) {
    destroy(region);
    return;
  }
  unused_.push_front(region);
  region->lru = unused_.begin();
  unused_bytes_ += region->end - region->start;
  evict();
}

const RegCache::Region* RegCache::find(const void* base, Bytes size) const {
  const auto a = reinterpret_cast<std::uintptr_t>(base);
  const std::uintptr_t b = a + std::max<Bytes>(size, 1);
  const std::uintptr_t lowest = a > longest_ ? a - longest_ : 0;
  for (auto it = index_.upper_bound(a); it != index_.begin();) {
    --it;
    if (it->first < lowest)
      break;
    if (it->second->end >= b)
      return it->second;
  }
  return nullptr;
}

void RegCache::destroy(Region* region) {
  const auto [first, last] = index_.equal_range(region->start);
  for (auto it = first; it != last; ++it)
    if (it->second == region) {
      index_.erase(it);
      break;
    }
  dereg_(region->keys);
  ++stats_.deregistrations;
  owned_.erase(region);
}

void RegCache::evict() {
  while (!unused_.empty() && (unused_.size() > limits_.max_unused || unused_bytes_ > limits_.max_unused_bytes)) {
    ++stats_.evictions;
    Region* oldest = unused_.back();
    unused_.pop_back();
    unused_bytes_ -= oldest->end - oldest->start;
    destroy(oldest);
  }
}

}  // namespace xover::runtime::verbs
