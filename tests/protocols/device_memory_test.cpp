// DeviceMemory's own bookkeeping, which every device runtime shares: which
// buffers it gave (owns(), the lookup the Worker makes on every send and
// receive) and where a pointer sits in one (find(), which IPC exports use).
// The copies are the runtime's (runtime/cuda/cuda_memory.cpp, run on a GPU
// by cuda_run_test; sim/sim_device_memory.cpp, by mtype_sim_test).
#include <gtest/gtest.h>

#include <cstring>
#include <memory>

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

}  // namespace
}  // namespace xover
