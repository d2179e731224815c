// The verbs registration cache, where no RDMA device exists: registering
// and deregistering are recorded instead of reaching ibv_reg_mr, and the
// cache's answers are checked against them: sharing off and on, hits,
// refcounts, merges of overlapping and adjacent regions, held regions
// found after a merge's region is evicted, LRU eviction, memory not kept
// deregistered at its last release, failed registrations, and nothing left
// registered at the end.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "runtime/verbs/verbs_rcache.hpp"

namespace xover::runtime::verbs {
namespace {

constexpr std::size_t kPage = 4096;

/// Stands in for ibv_reg_mr: hands out keys, remembers what is registered.
struct Registrar {
  std::map<std::uintptr_t, std::pair<std::uintptr_t, std::size_t>> live;  ///< handle → (start, length)
  std::uintptr_t next = 1;
  int calls = 0;
  bool refuse = false;

  RegCache make(bool share, std::size_t max_unused = 4, Bytes max_unused_bytes = Bytes{1} << 30) {
    RegCache::Limits limits;
    limits.share = share;
    limits.max_unused = max_unused;
    limits.max_unused_bytes = max_unused_bytes;
    limits.page = kPage;
    return RegCache(
        limits,
        [this](std::uintptr_t start, std::size_t length) {
          ++calls;
          if (refuse)
            return MrKeys{};
          const std::uintptr_t h = next++;
          live[h] = {start, length};
          return MrKeys{reinterpret_cast<void*>(h), static_cast<std::uint32_t>(h), static_cast<std::uint32_t>(h + 1000)};
        },
        [this](const MrKeys& keys) { live.erase(reinterpret_cast<std::uintptr_t>(keys.handle)); });
  }
};

const void* at(std::uintptr_t offset) {
  return reinterpret_cast<const void*>(0x10000000 + offset);
}

std::uintptr_t addr(std::uintptr_t offset) {
  return 0x10000000 + offset;
}

TEST(VerbsRegCache, WithoutSharingEveryUsePaysAndReleases) {
  Registrar r;
  RegCache cache = r.make(false);
  RegCache::Region* a = cache.acquire(at(100), 5000, true);
  RegCache::Region* b = cache.acquire(at(100), 5000, true);
  ASSERT_TRUE(a && b);
  EXPECT_NE(a, b);
  EXPECT_EQ(r.calls, 2);
  EXPECT_EQ(a->start, addr(0));  // whole pages
  EXPECT_EQ(a->end, addr(2 * kPage));
  EXPECT_NE(cache.find(at(200), 100), nullptr);
  cache.release(a);
  EXPECT_EQ(r.live.size(), 1U);
  EXPECT_EQ(cache.find(at(200), 100), b);  // the other one still covers it
  cache.release(b);
  EXPECT_TRUE(r.live.empty());
  EXPECT_EQ(cache.find(at(200), 100), nullptr);
  EXPECT_EQ(cache.acquire(at(0), 0, true), nullptr);
}

TEST(VerbsRegCache, AHitTakesARefAndAnUnusedRegionStays) {
  Registrar r;
  RegCache cache = r.make(true);
  RegCache::Region* a = cache.acquire(at(0), 3 * kPage, true);
  RegCache::Region* inside = cache.acquire(at(kPage + 10), 100, true);
  EXPECT_EQ(a, inside);
  EXPECT_EQ(a->refs, 2U);
  EXPECT_EQ(r.calls, 1);
  EXPECT_EQ(cache.stats().hits, 1U);
  cache.release(a);
  cache.release(inside);
  EXPECT_EQ(cache.unused(), 1U);
  EXPECT_EQ(cache.unused_bytes(), 3 * kPage);
  EXPECT_EQ(r.live.size(), 1U);  // cached, not released
  EXPECT_EQ(cache.acquire(at(0), 10, true), a);  // and found again
  EXPECT_EQ(cache.unused(), 0U);
  EXPECT_EQ(r.calls, 1);
}

TEST(VerbsRegCache, OverlappingAndAdjacentRegionsMerge) {
  Registrar r;
  RegCache cache = r.make(true);
  RegCache::Region* a = cache.acquire(at(0), 2 * kPage, true);
  RegCache::Region* b = cache.acquire(at(4 * kPage), kPage, true);
  cache.release(a);
  cache.release(b);  // both unused: dropped at once when merged away
  RegCache::Region* c = cache.acquire(at(kPage), 3 * kPage, true);  // overlaps a, touches b
  ASSERT_TRUE(c);
  EXPECT_EQ(c->start, addr(0));
  EXPECT_EQ(c->end, addr(5 * kPage));
  EXPECT_EQ(cache.stats().merges, 1U);
  EXPECT_EQ(r.live.size(), 1U);
  EXPECT_EQ(cache.live(), 1U);
  EXPECT_EQ(cache.find(at(100), 10), c);
  EXPECT_EQ(cache.find(at(4 * kPage + 1), kPage - 1), c);
  cache.release(c);
  EXPECT_EQ(r.live.size(), 1U);
}

// A merge leaves the regions somebody holds as they are, in the index: once
// the merged region is evicted, a held buffer is still found registered
// (before, the merge took it out of the index, and a zcopy send or a get
// from it read as unregistered memory).
TEST(VerbsRegCache, AHeldRegionIsFoundAfterAMergedOneIsEvicted) {
  Registrar r;
  RegCache cache = r.make(true, 1);
  RegCache::Region* held = cache.acquire(at(0), 2 * kPage, true);
  RegCache::Region* merged = cache.acquire(at(kPage), 4 * kPage, true);  // overlaps the held one
  ASSERT_TRUE(held && merged);
  EXPECT_NE(held, merged);
  EXPECT_EQ(cache.stats().merges, 0U);  // nothing unused to take in
  cache.release(merged);
  cache.release(cache.acquire(at(64 * kPage), kPage, true));  // two unused, one allowed: the merged one goes
  EXPECT_EQ(cache.stats().evictions, 1U);
  EXPECT_EQ(cache.find(at(100), kPage), held);
  EXPECT_TRUE(r.live.contains(reinterpret_cast<std::uintptr_t>(held->keys.handle)));
  cache.release(held);
}

TEST(VerbsRegCache, TheLeastRecentlyUsedGoFirstAndHeldOnesNever) {
  Registrar r;
  RegCache cache = r.make(true, 2, 10 * kPage);
  std::vector<RegCache::Region*> regions;
  for (int i = 0; i < 4; ++i)
    regions.push_back(cache.acquire(at(static_cast<std::uintptr_t>(i) * 4 * kPage), kPage, true));
  cache.release(regions[0]);
  cache.release(regions[1]);
  cache.release(regions[2]);  // three unused, two allowed: the oldest goes
  EXPECT_EQ(cache.stats().evictions, 1U);
  EXPECT_EQ(cache.find(at(0), 1), nullptr);
  EXPECT_NE(cache.find(at(4 * kPage), 1), nullptr);
  EXPECT_EQ(cache.acquire(at(4 * kPage), 1, true), regions[1]);  // used again: the most recent now
  cache.release(regions[1]);
  RegCache::Region* big = cache.acquire(at(64 * kPage), 9 * kPage, true);
  cache.release(big);  // 11 pages unused, 10 allowed
  EXPECT_EQ(cache.find(at(8 * kPage), 1), nullptr);  // regions[2], the oldest
  EXPECT_NE(cache.find(at(4 * kPage), 1), nullptr);
  EXPECT_EQ(cache.find(at(12 * kPage), 1), regions[3]);  // held all along
  EXPECT_EQ(regions[3]->refs, 1U);
}

// Memory the cache may not keep (not xover's own: it may be unmapped and
// mapped again behind a kept registration) is registered while held and
// deregistered at its last release, never found after it.
TEST(VerbsRegCache, MemoryNotKeptIsDeregisteredAtItsLastRelease) {
  Registrar r;
  RegCache cache = r.make(true);
  RegCache::Region* a = cache.acquire(at(0), kPage, false);
  RegCache::Region* again = cache.acquire(at(100), 10, false);  // held: a hit
  EXPECT_EQ(a, again);
  EXPECT_EQ(r.calls, 1);
  cache.release(a);
  EXPECT_EQ(cache.find(at(0), 1), again);
  cache.release(again);
  EXPECT_TRUE(r.live.empty());
  EXPECT_EQ(cache.find(at(0), 1), nullptr);
  EXPECT_EQ(cache.unused(), 0U);
  RegCache::Region* fresh = cache.acquire(at(0), kPage, false);  // the pages may be others now: registered afresh
  EXPECT_EQ(r.calls, 2);
  RegCache::Region* kept = cache.acquire(at(kPage), kPage, true);  // touches it, but a region not kept is no part of a merge
  EXPECT_EQ(kept->start, addr(kPage));
  cache.release(fresh);
  cache.release(kept);
  EXPECT_EQ(r.live.size(), 1U);  // the kept one
  EXPECT_EQ(cache.find(at(0), 1), nullptr);
}

TEST(VerbsRegCache, AFailedRegistrationChangesNothing) {
  Registrar r;
  RegCache cache = r.make(true);
  RegCache::Region* a = cache.acquire(at(0), kPage, true);
  r.refuse = true;
  EXPECT_EQ(cache.acquire(at(kPage / 2), 2 * kPage, true), nullptr);  // the region it would need fails
  EXPECT_EQ(cache.find(at(0), kPage), a);
  EXPECT_EQ(a->refs, 1U);
}

TEST(VerbsRegCache, TheCacheReleasesEverythingAtTheEnd) {
  Registrar r;
  {
    RegCache cache = r.make(true);
    cache.acquire(at(0), kPage, true);
    cache.release(cache.acquire(at(4 * kPage), kPage, true));
  }
  EXPECT_TRUE(r.live.empty());
}

// Random acquires (kept or not) and releases: every region handed out
// covers what was asked, a region is registered while anyone holds it and
// every held buffer is found registered, unused regions stay within the
// bounds, a region not kept is gone at its last release, and nothing
// leaks.
TEST(VerbsRegCache, RandomUseKeepsTheInvariants) {
  for (const bool share : {true, false}) {
    Registrar r;
    {
      RegCache cache = r.make(share, 8, 40 * kPage);
      std::mt19937 rng(share ? 3 : 4);
      std::vector<std::pair<RegCache::Region*, std::pair<std::uintptr_t, Bytes>>> held;
      for (int i = 0; i < 20000; ++i) {
        if (rng() % 10 < 5) {
          const std::uintptr_t offset = rng() % (64 * kPage);
          const Bytes size = 1 + rng() % (6 * kPage);
          RegCache::Region* g = cache.acquire(at(offset), size, rng() % 4 != 0);
          ASSERT_NE(g, nullptr);
          ASSERT_LE(g->start, addr(offset));
          ASSERT_GE(g->end, addr(offset) + size);
          ASSERT_TRUE(r.live.contains(reinterpret_cast<std::uintptr_t>(g->keys.handle)));
          held.push_back({g, {offset, size}});
        } else if (!held.empty()) {
          const std::size_t k = rng() % held.size();
          ASSERT_TRUE(r.live.contains(reinterpret_cast<std::uintptr_t>(held[k].first->keys.handle)));
          cache.release(held[k].first);
          held.erase(held.begin() + static_cast<std::ptrdiff_t>(k));
        }
        for (const auto& [region, range] : held)
          ASSERT_NE(cache.find(at(range.first), range.second), nullptr) << "a held buffer reads as unregistered";
        if (share) {
          ASSERT_LE(cache.unused(), 8U);
          ASSERT_LE(cache.unused_bytes(), 40 * kPage);
        } else {
          ASSERT_EQ(r.live.size(), held.size());
        }
      }
    }
    EXPECT_TRUE(r.live.empty()) << "share " << share;
  }
}

}  // namespace
}  // namespace xover::runtime::verbs
