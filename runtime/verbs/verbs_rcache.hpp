// The registrations of one protection domain, and their cache, after UCX's
// rcache: regions keyed by address range, refcounted, merged, LRU-bounded.
// Device-free: registering and deregistering are callbacks (ibv_reg_mr and
// ibv_dereg_mr in the transport; recorders in the unit tests).
//
// A registration pins the pages its addresses had when it was made; if the
// memory is unmapped and the addresses mapped again, a cached registration
// still names the old pages, and a transfer through it moves the wrong
// bytes without an error. So a region is kept past its last release only
// when the caller says its memory cannot go away behind the cache (`keep`:
// memory xover owns, protocols/core/host_memory.hpp, which is never
// unmapped); any other region is deregistered when its last holder
// releases it.
//
// Every region is page-aligned (the kernel pins whole pages anyway). With
// sharing off (the protocol core's reg_cache=off), acquire() registers
// every time and release() deregisters at once: each use pays the real
// cost, as the cost model charges it. With sharing on:
//   - a request inside a live region reuses it (a hit: refcount + 1);
//   - a request to keep that overlaps or touches unused kept regions
//     registers their union once and drops them; regions somebody holds
//     are left as they are, in the index, until released (a held buffer
//     is always found);
//   - a kept region nobody holds stays registered, in least-recently-used
//     order, until more than `max_unused` regions or `max_unused_bytes`
//     bytes are unused; then the oldest go.
// find() answers which live region covers a buffer, for the local keys of
// a zcopy send, a get or a put; it never changes the cache.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>

#include "protocols/units.hpp"

namespace xover::runtime::verbs {

/// What a registration gave: the handle to release it by, and its keys.
struct MrKeys {
  void* handle = nullptr;  ///< null: the registration failed
  std::uint32_t lkey = 0;
  std::uint32_t rkey = 0;
};

class RegCache {
 public:
  using Register = std::function<MrKeys(std::uintptr_t start, std::size_t length)>;
  using Deregister = std::function<void(const MrKeys&)>;

  struct Limits {
    bool share = true;
    std::size_t max_unused = 1024;
    Bytes max_unused_bytes = Bytes{1} << 30;
    std::size_t page = 4096;
  };

  struct Region {
    std::uintptr_t start = 0;
    std::uintptr_t end = 0;  ///< one past the last byte
    MrKeys keys;
    std::uint32_t refs = 0;
    bool keep = false;       ///< stays registered after its last release (memory that cannot go away)
    std::list<Region*>::iterator lru;  ///< in unused_ while refs == 0
  };

  struct Stats {
    std::size_t hits = 0;
    std::size_t registrations = 0;
    std::size_t deregistrations = 0;
    std::size_t merges = 0;         ///< registrations that took unused regions in
    std::size_t evictions = 0;
  };

  RegCache(Limits limits, Register reg, Deregister dereg);
  /// Deregisters every region, held or not.
  ~RegCache();
  RegCache(const RegCache&) = delete;
  RegCache& operator=(const RegCache&) = delete;

  /// A region covering [base, base + size), held until release(); null when
  /// the registration failed (errno says why) or size is 0. `keep`: the
  /// memory cannot be unmapped while the cache lives, so the region may
  /// stay registered after its last release (with sharing on).
  Region* acquire(const void* base, Bytes size, bool keep);
  void release(Region* region);
  /// A live region that covers [base, base + size), or null.
  const Region* find(const void* base, Bytes size) const;

  const Stats& stats() const { return stats_; }
  /// Regions registered now, held or not.
  std::size_t live() const { return index_.size(); }
  std::size_t unused() const { return unused_.size(); }
  Bytes unused_bytes() const { return unused_bytes_; }

 private:
  Region* insert(std::uintptr_t start, std::uintptr_t end, bool keep);
  /// Takes a region nobody holds out of the index and deregisters it.
  void destroy(Region* region);
  void evict();

  Limits limits_;
  Register reg_;
  Deregister dereg_;
  std::multimap<std::uintptr_t, Region*> index_;  ///< every registered region by start (they may overlap)
  std::uintptr_t longest_ = 0;                     ///< the longest region ever indexed
  std::map<Region*, std::unique_ptr<Region>> owned_;
  std::list<Region*> unused_;                      ///< kept, refs == 0; most recent first
  Bytes unused_bytes_ = 0;
  Stats stats_;
};

}  // namespace xover::runtime::verbs
