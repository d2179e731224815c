// The registration cache: found by address range per peer and lane, bounded
// by least-recent use, never handing back a region a request still uses.
#include <gtest/gtest.h>

#include <array>

#include "protocols/core/reg_cache.hpp"

namespace xover {
namespace {

std::array<std::byte, 4096> memory;

MemoryRegion region(std::uint64_t key, std::size_t offset, Bytes size) {
  return {key, memory.data() + offset, size};
}

TEST(RegCache, ARegionServesEveryRangeItCoversOnItsPeerAndLane) {
  RegCache cache(8);
  std::vector<MemoryRegion> evicted;
  cache.insert(1, 0, region(7, 0, 1024), evicted);
  const MemoryRegion* hit = cache.acquire(1, 0, memory.data() + 100, 500);
  ASSERT_NE(hit, nullptr);
  EXPECT_EQ(hit->key, 7u);
  EXPECT_NE(cache.acquire(1, 0, memory.data(), 1024), nullptr);
  EXPECT_EQ(cache.acquire(1, 0, memory.data() + 1000, 100), nullptr) << "past the region's end";
  EXPECT_EQ(cache.acquire(2, 0, memory.data(), 10), nullptr) << "another peer";
  EXPECT_EQ(cache.acquire(1, 1, memory.data(), 10), nullptr) << "another lane";
  EXPECT_TRUE(evicted.empty());
}

TEST(RegCache, PhantomBuffersMatchOnlyTheSameSize) {
  RegCache cache(8);
  std::vector<MemoryRegion> evicted;
  cache.insert(0, 0, {3, nullptr, 1024}, evicted);
  EXPECT_EQ(cache.acquire(0, 0, nullptr, 512), nullptr);
  EXPECT_NE(cache.acquire(0, 0, nullptr, 1024), nullptr);
  EXPECT_EQ(cache.acquire(0, 0, memory.data(), 512), nullptr);
}

TEST(RegCache, PastItsCapacityTheLeastRecentlyUsedUnusedRegionGoes) {
  RegCache cache(2);
  std::vector<MemoryRegion> evicted;
  cache.insert(0, 0, region(1, 0, 100), evicted);
  cache.insert(0, 0, region(2, 1000, 100), evicted);
  cache.release(0, region(1, 0, 100));
  cache.release(0, region(2, 1000, 100));
  // Region 1 used again: region 2 is now the least recently used.
  ASSERT_NE(cache.acquire(0, 0, memory.data(), 100), nullptr);
  cache.release(0, region(1, 0, 100));
  cache.insert(0, 0, region(3, 2000, 100), evicted);
  ASSERT_EQ(evicted.size(), 1u);
  EXPECT_EQ(evicted[0].key, 2u);
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(cache.acquire(0, 0, memory.data() + 1000, 100), nullptr);
}

TEST(RegCache, ARegionInUseIsNeverHandedBack) {
  RegCache cache(1);
  std::vector<MemoryRegion> evicted;
  cache.insert(0, 0, region(1, 0, 100), evicted);
  cache.insert(0, 0, region(2, 1000, 100), evicted);
  EXPECT_TRUE(evicted.empty()) << "both in use: the cache stands over its capacity";
  EXPECT_EQ(cache.size(), 2u);
  cache.release(0, region(1, 0, 100));
  cache.insert(0, 0, region(3, 2000, 100), evicted);
  ASSERT_EQ(evicted.size(), 1u);
  EXPECT_EQ(evicted[0].key, 1u);
  EXPECT_EQ(cache.size(), 2u);
}

}  // namespace
}  // namespace xover
