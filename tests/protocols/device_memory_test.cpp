// DeviceMemory's own bookkeeping, which every device runtime shares: which
// buffers it gave (owns(), the lookup the Worker makes on every send and
// receive) and where a pointer sits in one (find(), which IPC exports use).
// The copies are the runtime's (runtime/cuda/cuda_memory.cpp, run on a GPU
// by cuda_run_test; sim/sim_device_memory.cpp, by mtype_sim_test).
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <stdexcept>

#include "protocols/core/device_memory.hpp"

namespace xover {
namespace {

/// Host bytes behind the interface, to reach the base class's bookkeeping.
class HostBacked final : public DeviceMemory {
 public:
  MemType type() const override { return MemType::Cuda; }
  bool to_host(std::byte*, const std::byte*, Bytes) override { return true; }
  bool to_device(std::byte*, const std::byte*, Bytes) override { return true; }
  bool copy_device(std::byte*, const std::byte*, Bytes) override { return true; }
  bool ipc_reachable(Rank) const override { return false; }
  bool ipc_export(const std::byte* p, IpcBuffer& out) override {
    const Buffer* buffer = find(p);
    if (!buffer)
      return failed("not mine");
    out.id = buffer->id;
    out.size = buffer->size;
    out.offset = static_cast<Bytes>(p - buffer->base);
    return true;
  }
  const std::byte* ipc_open(Rank, const IpcBuffer&) override { return nullptr; }
  DeviceCopy figures() const override { return {}; }
  int released = 0;

 protected:
  std::byte* allocate(Bytes n) override { return new std::byte[n == 0 ? 1 : n]; }
  void release(std::byte* p) override {
    ++released;
    delete[] p;
  }
};

TEST(DeviceMemory, OwnsExactlyTheBytesItGave) {
  HostBacked memory;
  std::byte* a = memory.alloc(100);
  std::byte* b = memory.alloc(4096);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_TRUE(memory.owns(a, 100));
  EXPECT_TRUE(memory.owns(a + 40, 60));
  EXPECT_FALSE(memory.owns(a + 40, 61)) << "runs past the buffer";
  EXPECT_TRUE(memory.owns(b + 4095, 1));
  EXPECT_FALSE(memory.owns(b + 4096, 1));
  std::byte host[16];
  EXPECT_FALSE(memory.owns(host, 16));
  memory.free(a);
  EXPECT_FALSE(memory.owns(a, 1)) << "freed";
  EXPECT_TRUE(memory.owns(b, 4096));
  EXPECT_EQ(memory.released, 1);
  memory.free(host);  // not one of its buffers: left alone
  EXPECT_EQ(memory.released, 1);
  memory.free(b);
}

TEST(DeviceMemory, AnEmptyBufferIsItsOwnAndHasNoBytes) {
  HostBacked memory;
  std::byte* empty = memory.alloc(0);
  ASSERT_NE(empty, nullptr);
  EXPECT_TRUE(memory.owns(empty, 0));
  EXPECT_FALSE(memory.owns(empty, 1));
  memory.free(empty);
}

TEST(DeviceMemory, AnExportNamesTheAllocationAndTheOffsetInIt) {
  HostBacked memory;
  std::byte* a = memory.alloc(1000);
  IpcBuffer out;
  ASSERT_TRUE(memory.ipc_export(a + 250, out));
  EXPECT_EQ(out.size, 1000U);
  EXPECT_EQ(out.offset, 250U);
  std::byte host[8];
  EXPECT_FALSE(memory.ipc_export(host, out));
  EXPECT_EQ(memory.why(), "not mine");
  memory.free(a);
}

// A runtime may put a new allocation where a freed one was, and hand out
// the same IPC handle for it: the allocation's number differs, so a peer
// does not take its cached mapping of the old one for the new.
TEST(DeviceMemory, EveryAllocationHasANumberOfItsOwn) {
  HostBacked memory;
  IpcBuffer first;
  IpcBuffer second;
  std::byte* a = memory.alloc(64);
  ASSERT_TRUE(memory.ipc_export(a, first));
  memory.free(a);
  std::byte* b = memory.alloc(64);
  ASSERT_TRUE(memory.ipc_export(b, second));
  EXPECT_NE(first.id, second.id);
  memory.free(b);
}

// Staging slots are taken and given back, the smallest free one that holds
// the bytes first, a new one made only when none does.
TEST(DeviceMemory, StagingSlotsAreUsedAgainSmallestFirst) {
  HostBacked memory;
  std::byte* large = memory.take_staging(4096);
  std::byte* small = memory.take_staging(100);
  ASSERT_NE(large, nullptr);
  ASSERT_NE(small, nullptr);
  EXPECT_NE(large, small);
  EXPECT_EQ(memory.staging_slots(), 2U);
  memory.give_staging(large);
  memory.give_staging(small);
  EXPECT_EQ(memory.take_staging(50), small);
  EXPECT_EQ(memory.take_staging(50), large) << "the small one is taken: the large one holds 50 bytes too";
  EXPECT_NE(memory.take_staging(50), nullptr);
  EXPECT_EQ(memory.staging_slots(), 3U);
}

TEST(DeviceMemory, TheDefaultStartedCopyIsDoneAtReturn) {
  HostBacked memory;
  std::byte from[4]{std::byte{1}, std::byte{2}, std::byte{3}, std::byte{4}};
  std::byte to[4]{};
  bool called = false;
  EXPECT_EQ(memory.copy_async(DeviceMemory::CopyKind::ToHost, to, from, 4, [&called](Status) { called = true; }),
            Status::Ok);
  EXPECT_FALSE(called) << "Ok: no completion follows";
  EXPECT_EQ(memory.progress(), 0U);
  EXPECT_EQ(memory.copies_in_flight(), 0U);
  EXPECT_EQ(memory.pipeline_depth(), 4U);
  EXPECT_THROW(memory.set_pipeline_depth(0), std::invalid_argument);
}

}  // namespace
}  // namespace xover
