// The verbs registration cache, where no RDMA device exists: registering
// and deregistering are recorded instead of reaching ibv_reg_mr, and the
// cache's answers are checked against them: sharing off and on, hits,
// refcounts, merges of overlapping and adjacent regions, LRU eviction,
// invalidation, failed registrations, and nothing left registered at the
// end.
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
  RegCache::Region* a = cache.acquire(at(100), 5000);
  RegCache::Region* b = cache.acquire(at(100), 5000);
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
  EXPECT_EQ(cache.acquire(at(0), 0), nullptr);
}

TEST(VerbsRegCache, AHitTakesARefAndAnUnusedRegionStays) {
  Registrar r;
  RegCache cache = r.make(true);
  RegCache::Region* a = cache.acquire(at(0), 3 * kPage);
  RegCache::Region* inside = cache.acquire(at(kPage + 10), 100);
  EXPECT_EQ(a, inside);
  EXPECT_EQ(a->refs, 2U);
  EXPECT_EQ(r.calls, 1);
  EXPECT_EQ(cache.stats().hits, 1U);
  cache.release(a);
  cache.release(inside);
  EXPECT_EQ(cache.unused(), 1U);
  EXPECT_EQ(cache.unused_bytes(), 3 * kPage);
  EXPECT_EQ(r.live.size(), 1U);  // cached, not released
  EXPECT_EQ(cache.acquire(at(0), 10), a);  // and found again
  EXPECT_EQ(cache.unused(), 0U);
  EXPECT_EQ(r.calls, 1);
}

TEST(VerbsRegCache, OverlappingAndAdjacentRegionsMerge) {
  Registrar r;
  RegCache cache = r.make(true);
  RegCache::Region* a = cache.acquire(at(0), 2 * kPage);
  RegCache::Region* b = cache.acquire(at(4 * kPage), kPage);
  cache.release(b);  // unused: dropped at once when merged away
  RegCache::Region* c = cache.acquire(at(kPage), 3 * kPage);  // overlaps a, touches b
  ASSERT_TRUE(c);
  EXPECT_EQ(c->start, addr(0));
  EXPECT_EQ(c->end, addr(5 * kPage));
  EXPECT_EQ(cache.stats().merges, 1U);
  EXPECT_FALSE(a->valid);  // still held: registered until released
  EXPECT_EQ(r.live.size(), 2U);
  EXPECT_EQ(cache.live(), 1U);
  EXPECT_EQ(cache.find(at(100), 10), c);
  cache.release(a);
  EXPECT_EQ(r.live.size(), 1U);
  EXPECT_EQ(cache.find(at(4 * kPage + 1), kPage - 1), c);
  cache.release(c);
  EXPECT_EQ(r.live.size(), 1U);
}

TEST(VerbsRegCache, TheLeastRecentlyUsedGoFirstAndHeldOnesNever) {
  Registrar r;
  RegCache cache = r.make(true, 2, 10 * kPage);
  std::vector<RegCache::Region*> regions;
  for (int i = 0; i < 4; ++i)
    regions.push_back(cache.acquire(at(static_cast<std::uintptr_t>(i) * 4 * kPage), kPage));
  cache.release(regions[0]);
  cache.release(regions[1]);
  cache.release(regions[2]);  // three unused, two allowed: the oldest goes
  EXPECT_EQ(cache.stats().evictions, 1U);
  EXPECT_EQ(cache.find(at(0), 1), nullptr);
  EXPECT_NE(cache.find(at(4 * kPage), 1), nullptr);
  EXPECT_EQ(cache.acquire(at(4 * kPage), 1), regions[1]);  // used again: the most recent now
  cache.release(regions[1]);
  RegCache::Region* big = cache.acquire(at(64 * kPage), 9 * kPage);
  cache.release(big);  // 11 pages unused, 10 allowed
  EXPECT_EQ(cache.find(at(8 * kPage), 1), nullptr);  // regions[2], the oldest
  EXPECT_NE(cache.find(at(4 * kPage), 1), nullptr);
  EXPECT_EQ(cache.find(at(12 * kPage), 1), regions[3]);  // held all along
  EXPECT_EQ(regions[3]->refs, 1U);
}

TEST(VerbsRegCache, InvalidationDropsWhatOverlaps) {
  Registrar r;
  RegCache cache = r.make(true);
  RegCache::Region* held = cache.acquire(at(0), kPage);
  RegCache::Region* idle = cache.acquire(at(8 * kPage), kPage);
  cache.release(idle);
  cache.invalidate(at(kPage / 2), 8 * kPage);  // from inside the first to inside the second
  EXPECT_EQ(cache.live(), 0U);
  EXPECT_EQ(cache.find(at(0), 1), nullptr);
  EXPECT_EQ(r.live.size(), 1U);  // the idle one is gone, the held one waits for its release
  EXPECT_FALSE(held->valid);
  cache.release(held);
  EXPECT_TRUE(r.live.empty());
  cache.invalidate(at(0), kPage);  // nothing there: nothing happens
  RegCache::Region* again = cache.acquire(at(0), kPage);
  EXPECT_NE(again, nullptr);
  EXPECT_EQ(r.calls, 3);  // registered afresh
}

TEST(VerbsRegCache, AFailedRegistrationChangesNothing) {
  Registrar r;
  RegCache cache = r.make(true);
  RegCache::Region* a = cache.acquire(at(0), kPage);
  r.refuse = true;
  EXPECT_EQ(cache.acquire(at(kPage / 2), 2 * kPage), nullptr);  // the merge it would need fails
  EXPECT_TRUE(a->valid);
  EXPECT_EQ(cache.find(at(0), kPage), a);
  EXPECT_EQ(a->refs, 1U);
}

TEST(VerbsRegCache, TheCacheReleasesEverythingAtTheEnd) {
  Registrar r;
  {
    RegCache cache = r.make(true);
    cache.acquire(at(0), kPage);
    cache.release(cache.acquire(at(4 * kPage), kPage));
  }
  EXPECT_TRUE(r.live.empty());
}

// Random acquires, releases and invalidations: every region handed out
// covers what was asked, live regions never overlap or touch, a region is
// registered while anyone holds it, and nothing leaks.
TEST(VerbsRegCache, RandomUseKeepsTheInvariants) {
  for (const bool share : {true, false}) {
    Registrar r;
    {
      RegCache cache = r.make(share, 8, 40 * kPage);
      std::mt19937 rng(share ? 3 : 4);
      std::vector<RegCache::Region*> held;
      for (int i = 0; i < 20000; ++i) {
        const int dice = static_cast<int>(rng() % 10);
        if (dice < 5) {
          const std::uintptr_t offset = rng() % (64 * kPage);
          const Bytes size = 1 + rng() % (6 * kPage);
          RegCache::Region* g = cache.acquire(at(offset), size);
          ASSERT_NE(g, nullptr);
          ASSERT_LE(g->start, addr(offset));
          ASSERT_GE(g->end, addr(offset) + size);
          ASSERT_TRUE(r.live.contains(reinterpret_cast<std::uintptr_t>(g->keys.handle)));
          ASSERT_EQ(cache.find(at(offset), size) != nullptr, true);
          held.push_back(g);
        } else if (dice < 9 && !held.empty()) {
          const std::size_t k = rng() % held.size();
          ASSERT_TRUE(r.live.contains(reinterpret_cast<std::uintptr_t>(held[k]->keys.handle)));
          cache.release(held[k]);
          held.erase(held.begin() + static_cast<std::ptrdiff_t>(k));
        } else {
          cache.invalidate(at(rng() % (64 * kPage)), 1 + rng() % (4 * kPage));
        }
        if (share) {
          ASSERT_LE(cache.unused(), 8U);
          ASSERT_LE(cache.unused_bytes(), 40 * kPage);
        } else {
          ASSERT_EQ(r.live.size(), held.size());
        }
      }
      if (share) {
        // Live regions, by start: disjoint and not touching.
        std::vector<std::pair<std::uintptr_t, std::uintptr_t>> spans;
        for (std::uintptr_t o = 0; o < 80 * kPage; o += kPage)
          if (const RegCache::Region* g = cache.find(at(o), 1); g && g->valid &&
                                                               (spans.empty() || spans.back().first != g->start))
            spans.emplace_back(g->start, g->end);
        for (std::size_t k = 1; k < spans.size(); ++k)
          EXPECT_LT(spans[k - 1].second, spans[k].first);
      }
    }
    EXPECT_TRUE(r.live.empty()) << "share " << share;
  }
}

}  // namespace
}  // namespace xover::runtime::verbs
