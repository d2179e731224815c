// Host memory xover owns (protocols/core/host_memory.hpp): page-aligned,
// zeroed, owned by the pool for the rest of the process once mapped (so a
// transport may keep its registrations), reused by a later buffer of about
// its size on the same pages; memory from elsewhere is not owned.
#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <thread>
#include <vector>

#include "protocols/core/host_memory.hpp"

namespace xover {
namespace {

TEST(HostMemory, BuffersArePageAlignedZeroedAndOwned) {
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  HostBuffer a(100);
  ASSERT_NE(a.data(), nullptr);
  EXPECT_EQ(a.size(), 100U);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a.data()) % page, 0U);
  for (std::byte b : a.bytes())
    EXPECT_EQ(b, std::byte{0});
  EXPECT_TRUE(host_memory_owned(a.data(), 100));
  EXPECT_TRUE(host_memory_owned(a.data() + 10, page - 10));  // the block is whole pages
  EXPECT_FALSE(host_memory_owned(a.data(), page + 1));
  std::vector<std::byte> elsewhere(100);
  EXPECT_FALSE(host_memory_owned(elsewhere.data(), 100));
  int on_stack = 0;
  EXPECT_FALSE(host_memory_owned(&on_stack, sizeof on_stack));
}

// A freed buffer's pages stay the pool's: the next buffer of about its
// size gets them again (zeroed), still owned; one much smaller does not.
TEST(HostMemory, AFreedBufferGoesBackToThePoolNotToTheSystem) {
  std::byte* first = nullptr;
  {
    HostBuffer a(Bytes{1} << 20);
    first = a.data();
    a.data()[5] = std::byte{7};
  }
  EXPECT_TRUE(host_memory_owned(first, Bytes{1} << 20));  // still mapped, still the pool's
  HostBuffer small(100);
  EXPECT_NE(small.data(), first);
  HostBuffer again((Bytes{1} << 20) - 4096);
  EXPECT_EQ(again.data(), first);
  EXPECT_EQ(again.data()[5], std::byte{0});
  HostBuffer moved(std::move(again));
  EXPECT_EQ(moved.data(), first);
  EXPECT_EQ(again.data(), nullptr);  // NOLINT(bugprone-use-after-move): what a move leaves
}

TEST(HostMemory, ThreadsTakeAndGiveAtOnce) {
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([] {
      for (int i = 0; i < 200; ++i) {
        HostBuffer b(static_cast<Bytes>(1 + (i % 7) * 5000));
        b.data()[0] = std::byte{1};
        ASSERT_TRUE(host_memory_owned(b.data(), b.size()));
      }
    });
  for (std::thread& t : threads)
    t.join();
}

}  // namespace
}  // namespace xover
