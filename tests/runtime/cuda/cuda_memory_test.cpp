// CudaMemory's started copies (copy_async: cudaMemcpyAsync on its stream,
// an event behind it, queried by progress()) and rndv/pipe's pipeline
// through them: two ranks' memories on one GPU in one process, over the
// loop of tests/support/loop_pair.hpp, every byte checked. SKIPPED where
// no GPU answers. Written without a GPU: it has never run on one.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include "runtime/backends.hpp"
#include "runtime/cuda/cuda_memory.hpp"
#include "tests/support/loop_pair.hpp"

namespace xover::runtime {
namespace {

using Kind = DeviceMemory::CopyKind;

/// Why the cuda backend cannot run here, or empty.
std::string no_gpu() {
  const std::string why = find_backend("cuda")->unavailable();
  return why.empty() ? why : "backend cuda: " + why;
}

/// Polls `memory` until no copy is in flight, for at most 10 s.
bool drain(DeviceMemory& memory) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (memory.copies_in_flight() > 0 && std::chrono::steady_clock::now() < until)
    memory.progress();
  return memory.copies_in_flight() == 0;
}

TEST(CudaMemoryAsync, StartedCopiesCompleteByTheirEvents) {
  if (const std::string why = no_gpu(); !why.empty())
    GTEST_SKIP() << why;
  const std::unique_ptr<DeviceMemory> memory = make_cuda_memory(0, {false});
  const DeviceCopy f = memory->figures();
  std::printf("pinned %.2f us + n / %.2f GB/s, pageable %.2f us + n / %.2f GB/s\n", f.stage_o * 1e6,
              f.stage_bw / 1e9, f.pageable_o * 1e6, f.pageable_bw / 1e9);
  EXPECT_GT(f.pageable_bw, 0);
  constexpr Bytes kBytes = (Bytes{1} << 20) + 13;
  std::byte* device = memory->alloc(kBytes);
  std::byte* out = memory->take_staging(kBytes);
  std::byte* back = memory->take_staging(kBytes);
  ASSERT_TRUE(device && out && back) << memory->why();
  for (Bytes i = 0; i < kBytes; ++i)
    out[i] = test::loop_pattern(i);
  std::memset(back, 0, kBytes);
  std::vector<Status> done;
  const auto record = [&done](Status s) { done.push_back(s); };
  ASSERT_EQ(memory->copy_async(Kind::ToDevice, device, out, kBytes, record), Status::InProgress) << memory->why();
  ASSERT_EQ(memory->copy_async(Kind::ToHost, back, device, kBytes, record), Status::InProgress) << memory->why();
  ASSERT_TRUE(drain(*memory));
  EXPECT_EQ(done, (std::vector<Status>{Status::Ok, Status::Ok})) << "in the order they were started";
  EXPECT_EQ(std::memcmp(out, back, kBytes), 0);
  memory->give_staging(out);
  memory->give_staging(back);
  memory->free(device);
}

TEST(CudaMemoryAsync, ThePipelineMovesEveryByteThroughTheGpu) {
  if (const std::string why = no_gpu(); !why.empty())
    GTEST_SKIP() << why;
  for (const std::size_t depth : {1, 4}) {
    for (const Bytes size : {Bytes{0}, Bytes{1}, Bytes{4113}, Bytes{65549}, (Bytes{4} << 20) + 5}) {
      const std::unique_ptr<DeviceMemory> receiver = make_cuda_memory(0, {false, false});
      const std::unique_ptr<DeviceMemory> sender = make_cuda_memory(1, {false, false});
      receiver->set_pipeline_depth(depth);
      sender->set_pipeline_depth(depth);
      test::LoopPair pair(*receiver, *sender);
      ASSERT_TRUE(pair.start(size)) << receiver->why() << sender->why();
      ASSERT_TRUE(pair.run(10'000'000)) << size << " B, depth " << depth;
      EXPECT_EQ(pair.send->status, Status::Ok) << sender->why();
      EXPECT_EQ(pair.recv->status, Status::Ok) << receiver->why();
      EXPECT_EQ(pair.first_wrong(), size) << size << " B, depth " << depth;
      EXPECT_LE(sender->staging_slots(), depth);
    }
  }
}

}  // namespace
}  // namespace xover::runtime
