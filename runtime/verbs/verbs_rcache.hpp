// The registrations of one protection domain, and their cache, after UCX's
// rcache: regions keyed by address range, refcounted, merged, LRU-bounded.
// Device-free: registering and deregistering are callbacks (ibv_reg_mr and
// ibv_dereg_mr in the transport; recorders in the unit tests).
//
// Every region is page-aligned (the kernel pins whole pages anyway). With
// sharing off (the protocol core's reg_cache=off), acquire() registers
// every time and release() deregisters at once: each use pays the real
// cost, as the cost model charges it. With sharing on:
//   - a request inside a live region reuses it (a hit: refcount + 1);
//   - a request that overlaps or touches live regions registers their
//     union once, and the regions it covers are invalidated: gone from the
//     index, deregistered as soon as nobody holds them;
//   - a region nobody holds stays registered, in least-recently-used
//     order, until more than `max_unused` regions or `max_unused_bytes`
//     bytes are unused; then the oldest go;
//   - invalidate() drops whatever overlaps a range (memory about to be
//     unmapped), in the same way.
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
    bool valid = true;       ///< in the index; false once invalidated
    std::list<Region*>::iterator lru;  ///< in unused_ while refs == 0 and valid
  };

  struct Stats {
    std::size_t hits = 0;
    std::size_t registrations = 0;
    std::size_t deregistrations = 0;
    std::size_t merges = 0;         ///< registrations that took live regions in
    std::size_t evictions = 0;
  };

  RegCache(Limits limits, Register reg, Deregister dereg);
  /// Deregisters every region, held or not.
  ~RegCache();
  RegCache(const RegCache&) = delete;
  RegCache& operator=(const RegCache&) = delete;

  /// A region covering [base, base + size), held until release(); null when
  /// the registration failed (errno says why) or size is 0.
  Region* acquire(const void* base, Bytes size);
  void release(Region* region);
  /// The live region that covers [base, base + size), or null.
  const Region* find(const void* base, Bytes size) const;
  /// Drops every region overlapping [base, base + size) from the cache.
  void invalidate(const void* base, Bytes size);

  const Stats& stats() const { return stats_; }
  /// Regions in the index (live and not invalidated).
  std::size_t live() const { return index_.size(); }
  std::size_t unused() const { return unused_.size(); }
  Bytes unused_bytes() const { return unused_bytes_; }

 private:
  Region* insert(std::uintptr_t start, std::uintptr_t end);
  /// Takes a region out of the index; deregisters it now if nobody holds it.
  void retire(Region* region);
  void destroy(Region* region);
  void evict();

  Limits limits_;
  Register reg_;
  Deregister dereg_;
  std::multimap<std::uintptr_t, Region*> index_;  ///< live regions by start
  std::uintptr_t longest_ = 0;                     ///< the longest region ever indexed
  std::map<Region*, std::unique_ptr<Region>> owned_;
  std::list<Region*> unused_;                      ///< valid, refs == 0; most recent first
  Bytes unused_bytes_ = 0;
  Stats stats_;
};

}  // namespace xover::runtime::verbs
