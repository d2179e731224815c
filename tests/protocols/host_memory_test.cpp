// Host memory xover owns (protocols/core/host_memory.hpp): page-aligned,
// from half a huge page on huge-page-aligned and advised for transparent
// huge pages, zeroed, owned by the pool for the rest of the process once mapped (so a
// transport may keep its registrations), reused by a later buffer of about
// its size on the same pages; memory from elsewhere is not owned.
#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
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

constexpr Bytes kHuge = Bytes{2} << 20;

/// What /proc/self/smaps says of the mapping that holds `at`: its
/// THPeligible line's value, or -1 where it has none.
int thp_eligible(const void* at) {
  std::ifstream smaps("/proc/self/smaps");
  const auto address = reinterpret_cast<std::uintptr_t>(at);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    std::uintptr_t lo = 0;
    std::uintptr_t hi = 0;
    char dash = 0;
    std::istringstream range(line);
    if (range >> std::hex >> lo >> dash >> hi && dash == '-' && line.find(':') > line.find(' ')) {
      inside = lo <= address && address < hi;
      continue;
    }
    if (inside && line.rfind("THPeligible:", 0) == 0)
      return std::stoi(line.substr(12));
  }
  return -1;
}

// A buffer of half a huge page or more lies on whole huge pages, aligned,
// and is advised for transparent huge pages (cross-memory attach copies
// them at several times the speed of small pages): where the kernel has
// them on, its mapping is eligible.
TEST(HostMemory, LargeBuffersLieOnHugePages) {
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  HostBuffer half(kHuge / 2);
  HostBuffer three(3 * (Bytes{1} << 20));
  HostBuffer below(kHuge / 2 - page);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(half.data()) % kHuge, 0U);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(three.data()) % kHuge, 0U);
  EXPECT_TRUE(host_memory_owned(half.data(), kHuge));
  EXPECT_TRUE(host_memory_owned(three.data(), 2 * kHuge));
  EXPECT_FALSE(host_memory_owned(three.data(), 2 * kHuge + 1));
  EXPECT_TRUE(host_memory_owned(below.data(), kHuge / 2 - page));  // small pages: whole pages only
  EXPECT_FALSE(host_memory_owned(below.data(), kHuge / 2 - page + 1));
  three.data()[three.size() - 1] = std::byte{1};
  std::ifstream enabled("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string modes;
  std::getline(enabled, modes);
  if (modes.empty() || modes.find("[never]") != std::string::npos)
    GTEST_SKIP() << "transparent huge pages are off here (" << (modes.empty() ? "no sysfs entry" : modes)
                 << "): the advice cannot show";
  EXPECT_EQ(thp_eligible(three.data()), 1);
  EXPECT_EQ(thp_eligible(half.data()), 1);
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
  HostBuffer again((Bytes{1} << 20) + 4096);  // the same whole huge page
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
