// The cache of peers' allocations mapped through CUDA IPC
// (runtime/cuda/cuda_ipc_cache.hpp), with the runtime's open and close
// played by a ledger: which allocations are mapped, how often each was
// opened, and a refusal where the driver would refuse.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "runtime/cuda/cuda_ipc_cache.hpp"

namespace xover::runtime {
namespace {

/// The runtime's side: each open maps at a new address here; open refuses
/// an allocation number listed in `refuse` while any mapping is open.
struct Ledger {
  std::map<const std::byte*, std::uint64_t> open;  ///< mapped address, allocation number
  std::map<std::uint64_t, int> opens;              ///< opens per allocation number
  std::set<std::uint64_t> refuse;
  std::uintptr_t next = 0x1000;

  IpcMappings cache() {
    return IpcMappings(
        [this](const IpcBuffer& b) -> const std::byte* {
          if (refuse.count(b.id) && !open.empty())
            return nullptr;
          const auto* at = reinterpret_cast<const std::byte*>(next += 0x1000);
          open[at] = b.id;
          ++opens[b.id];
          return at;
        },
        [this](const std::byte* mapped) { open.erase(mapped); });
  }
};

IpcBuffer allocation(std::uint64_t id, std::uint64_t base, Bytes size) {
  IpcBuffer b;
  b.id = id;
  b.base = base;
  b.size = size;
  return b;
}

TEST(CudaIpcMappings, AnAllocationIsMappedOnceWhileItLives) {
  Ledger ledger;
  IpcMappings cache = ledger.cache();
  const std::byte* first = cache.map(1, allocation(7, 0x10000, 4096));
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(cache.map(1, allocation(7, 0x10000, 4096)), first);
  EXPECT_EQ(ledger.opens[7], 1);
  EXPECT_EQ(cache.size(), 1U);
}

// The peer freed its allocation and made another at the same address.
TEST(CudaIpcMappings, ANewNumberAtTheAddressClosesTheOldMapping) {
  Ledger ledger;
  IpcMappings cache = ledger.cache();
  ASSERT_NE(cache.map(1, allocation(7, 0x10000, 4096)), nullptr);
  ASSERT_NE(cache.map(1, allocation(8, 0x10000, 4096)), nullptr);
  EXPECT_EQ(ledger.open.size(), 1U);
  EXPECT_EQ(ledger.open.begin()->second, 8U);
  EXPECT_EQ(cache.size(), 1U);
}

// The peer freed it and made a larger one from a lower address across it:
// two live allocations never overlap, so the old one is gone.
TEST(CudaIpcMappings, ANewAllocationOverlappingACachedOneClosesIt) {
  Ledger ledger;
  IpcMappings cache = ledger.cache();
  ASSERT_NE(cache.map(1, allocation(7, 0x20000, 4096)), nullptr);
  ASSERT_NE(cache.map(1, allocation(9, 0x40000, 4096)), nullptr);
  ASSERT_NE(cache.map(2, allocation(3, 0x20000, 4096)), nullptr) << "another peer's, at the same address";
  ASSERT_NE(cache.map(1, allocation(10, 0x1f000, 8192)), nullptr);
  std::set<std::uint64_t> mapped;
  for (const auto& [at, id] : ledger.open)
    mapped.insert(id);
  EXPECT_EQ(mapped, (std::set<std::uint64_t>{3, 9, 10}));
  EXPECT_EQ(cache.size(), 3U);
  // Adjacent is not overlapping.
  ASSERT_NE(cache.map(1, allocation(11, 0x41000, 4096)), nullptr);
  EXPECT_EQ(cache.size(), 4U);
}

TEST(CudaIpcMappings, ReleasingAPeerClosesItsMappingsOnly) {
  Ledger ledger;
  IpcMappings cache = ledger.cache();
  ASSERT_NE(cache.map(1, allocation(7, 0x10000, 4096)), nullptr);
  ASSERT_NE(cache.map(1, allocation(8, 0x20000, 4096)), nullptr);
  ASSERT_NE(cache.map(2, allocation(7, 0x10000, 4096)), nullptr);
  cache.release_peer(1);
  EXPECT_EQ(cache.size(), 1U);
  ASSERT_EQ(ledger.open.size(), 1U);
  ASSERT_NE(cache.map(1, allocation(7, 0x10000, 4096)), nullptr);
  EXPECT_EQ(ledger.opens[7], 3) << "mapped again after its release";
}

// The driver refuses an allocation this process holds mapped under another
// handle: the peer's mappings go and the map is tried once more.
TEST(CudaIpcMappings, ARefusalClosesThePeersMappingsAndTriesOnceMore) {
  Ledger ledger;
  IpcMappings cache = ledger.cache();
  ASSERT_NE(cache.map(1, allocation(7, 0x10000, 4096)), nullptr);
  ASSERT_NE(cache.map(2, allocation(5, 0x10000, 4096)), nullptr);
  ledger.refuse = {9};
  EXPECT_EQ(cache.map(1, allocation(9, 0x80000, 4096)), nullptr) << "peer 2's mapping is still open";
  EXPECT_EQ(cache.size(), 1U) << "peer 1's mappings went on the refusal";
  cache.release_peer(2);
  EXPECT_NE(cache.map(1, allocation(9, 0x80000, 4096)), nullptr);
}

TEST(CudaIpcMappings, EveryMappingIsClosedWithTheCache) {
  Ledger ledger;
  {
    IpcMappings cache = ledger.cache();
    ASSERT_NE(cache.map(1, allocation(7, 0x10000, 4096)), nullptr);
    ASSERT_NE(cache.map(3, allocation(8, 0x10000, 4096)), nullptr);
  }
  EXPECT_TRUE(ledger.open.empty());
}

}  // namespace
}  // namespace xover::runtime
