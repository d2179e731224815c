// The logic of P PEs in one process on one GPU that needs no GPU, run by
// the host compiler from the very source the kernels use: the 16-byte copy
// with unaligned heads and tails (cuda_copy16.hpp), the heap's slices, the
// split of puts over threads, warps and blocks, and the launch's fit
// (cuda_pe_plan.hpp). A whole exchange is replayed on the CPU, lane by lane,
// through the kernel's own work split, at strides that are not multiples
// of 16.
#include <gtest/gtest.h>

#include <cstddef>
#include <stdexcept>
#include <vector>

#include "runtime/cuda/cuda_copy16.hpp"
#include "runtime/cuda/cuda_pe_plan.hpp"

namespace xover::runtime {
namespace {

/// A 16-byte-aligned buffer of `bytes` (rounded up to 16).
struct Aligned {
  explicit Aligned(std::size_t bytes) : words((bytes + 15) / 16 + 1) {}
  std::byte* data() { return reinterpret_cast<std::byte*>(words.data()); }
  struct alignas(16) Word {
    std::byte b[16];
  };
  std::vector<Word> words;
};

std::byte pattern(std::size_t i) {
  return static_cast<std::byte>((i * 131 + 7) % 251);
}

TEST(CudaCopy16, PlanSplitsWhereTheDestinationTurnsAligned) {
  const CopyPlan aligned = copy_plan(4096, 8192, 100);
  EXPECT_EQ(aligned.head, 0u);
  EXPECT_EQ(aligned.body, 6u);
  EXPECT_EQ(aligned.tail, 4u);
  EXPECT_EQ(aligned.shift, 0u);
  const CopyPlan odd = copy_plan(4096 + 13, 8192 + 5, 100);
  EXPECT_EQ(odd.head, 3u);
  EXPECT_EQ(odd.body, 6u);
  EXPECT_EQ(odd.tail, 1u);
  EXPECT_EQ(odd.shift, 8u) << "the body's source starts at 5 + 3";
  const CopyPlan short_copy = copy_plan(4096 + 13, 8192, 2);
  EXPECT_EQ(short_copy.head, 2u);
  EXPECT_EQ(short_copy.body, 0u);
  EXPECT_EQ(short_copy.tail, 0u);
}

TEST(CudaCopy16, MergeTakesTheSixteenBytesAtTheShift) {
  std::uint32_t a[4];
  std::uint32_t b[4];
  std::byte bytes[32];
  for (int i = 0; i < 32; ++i)
    bytes[i] = static_cast<std::byte>(i + 1);
  std::memcpy(a, bytes, 16);
  std::memcpy(b, bytes + 16, 16);
  for (std::uint32_t shift = 1; shift < 16; ++shift) {
    std::uint32_t out[4];
    merge16(a, b, shift, out);
    EXPECT_EQ(std::memcmp(out, bytes + shift, 16), 0) << "shift " << shift;
  }
}

TEST(CudaCopy16, EveryAlignmentSizeAndGroupCopiesExactlyTheBytes) {
  for (std::uint32_t lanes : {1u, 3u, 32u, 256u})
    for (std::size_t dst_at = 0; dst_at < 16; ++dst_at)
      for (std::size_t src_at = 0; src_at < 16; ++src_at)
        for (std::size_t n : {0, 1, 15, 16, 17, 31, 32, 33, 100, 257, 1000}) {
          Aligned src(n + 32);
          Aligned dst(n + 64);
          for (std::size_t i = 0; i < n + 32; ++i)
            src.data()[i] = pattern(i);
          for (std::size_t i = 0; i < n + 64; ++i)
            dst.data()[i] = std::byte{0xEE};
          const auto to = reinterpret_cast<std::uintptr_t>(dst.data() + 16 + dst_at);
          const auto from = reinterpret_cast<std::uintptr_t>(src.data() + src_at);
          const CopyPlan plan = copy_plan(to, from, n);
          ASSERT_EQ(plan.head + 16 * plan.body + plan.tail, n);
          ASSERT_LT(plan.tail, 16u);
          if (plan.body > 0) {
            ASSERT_EQ((to + plan.head) % 16, 0u) << "the body's stores are aligned";
            ASSERT_EQ(plan.shift, (from + plan.head) % 16);
          }
          for (std::uint32_t lane = 0; lane < lanes; ++lane)
            copy_lanes(dst.data() + 16 + dst_at, src.data() + src_at, n, lane, lanes);
          for (std::size_t i = 0; i < n + 64; ++i) {
            const bool inside = i >= 16 + dst_at && i < 16 + dst_at + n;
            const std::byte want = inside ? pattern(src_at + i - 16 - dst_at) : std::byte{0xEE};
            ASSERT_EQ(dst.data()[i], want) << "lanes " << lanes << ", dst +" << dst_at << ", src +" << src_at
                                           << ", n " << n << ", byte " << i;
          }
        }
}

TEST(CudaPePlan, NvshmemsWidthsByTheSize) {
  EXPECT_EQ(nvshmem_width(8), DirectWidth::Thread);
  EXPECT_EQ(nvshmem_width(15), DirectWidth::Thread);
  EXPECT_EQ(nvshmem_width(16), DirectWidth::Warp);
  EXPECT_EQ(nvshmem_width(16384), DirectWidth::Warp);
  EXPECT_EQ(nvshmem_width(16385), DirectWidth::Block);
  for (DirectWidth w : {DirectWidth::Thread, DirectWidth::Warp, DirectWidth::Block}) {
    DirectWidth back{};
    ASSERT_TRUE(parse_width(width_name(w), back));
    EXPECT_EQ(back, w);
  }
  DirectWidth unused{};
  EXPECT_FALSE(parse_width("grid", unused));
}

TEST(CudaPePlan, FlavoursRoundTripTheirNames) {
  for (PeFlavour f : {PeFlavour::Direct, PeFlavour::Engine, PeFlavour::Proxy, PeFlavour::Copy}) {
    PeFlavour back{};
    ASSERT_TRUE(parse_flavour(flavour_name(f), back));
    EXPECT_EQ(back, f);
  }
  EXPECT_EQ(flavour_name(PeFlavour::Proxy), "proxy");
  EXPECT_EQ(flavour_name(PeFlavour::Copy), "copy");
  PeFlavour unused{};
  EXPECT_FALSE(parse_flavour("ibgda", unused));
  EXPECT_LE(kPeDoorbellBatch, kPeQueueEntries);
}

TEST(CudaPePlan, HeapSlicesAreAlignedRegionsOfSlotsAndSignals) {
  const HeapLayout h = heap_layout(4, 13);
  EXPECT_EQ(h.send, 0u);
  EXPECT_EQ(h.recv, 256u) << "3 slots of 13 B, rounded up";
  EXPECT_EQ(h.signals, 512u);
  EXPECT_EQ(h.slice, 768u);
  const HeapLayout big = heap_layout(32, 1 << 20);
  EXPECT_EQ(big.recv, 31u << 20);
  EXPECT_EQ(big.signals, (31u << 20) + (32u << 20));
  EXPECT_EQ(big.slice % 256, 0u);
  EXPECT_EQ(heap_bytes(4, 13), 4u * 768u);
  EXPECT_THROW(heap_bytes(32, ~std::uint64_t{0} / 64), std::invalid_argument);
}

TEST(CudaPePlan, LaunchTakesABlockPerPeerWhereTheGpuHoldsThem) {
  const PeLaunch roomy = plan_pe_launch(4, {132, 8}, 256);
  EXPECT_EQ(roomy.blocks_per_pe, 3u);
  EXPECT_EQ(roomy.grid, 12u);
  const PeLaunch tight = plan_pe_launch(32, {132, 1}, 1024);
  EXPECT_EQ(tight.blocks_per_pe, 4u) << "132 resident blocks over 32 PEs";
  EXPECT_EQ(tight.grid, 128u);
  try {
    plan_pe_launch(32, {16, 1}, 1024);
    FAIL() << "32 PEs on 16 resident blocks";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("this GPU holds 16 (16 SMs x 1)"), std::string::npos) << e.what();
  }
  EXPECT_THROW(plan_pe_launch(1, {132, 8}, 256), std::invalid_argument);
  EXPECT_THROW(plan_pe_launch(33, {132, 8}, 256), std::invalid_argument);
  EXPECT_THROW(plan_pe_launch(4, {132, 8}, 100), std::invalid_argument);
}

/// The parameter: the width, blocks a PE, threads a block, P, n.
struct Exchange {
  DirectWidth width;
  std::uint32_t blocks;
  std::uint32_t threads;
  std::uint32_t pes;
  std::uint64_t n;
};

class CudaPeExchange : public ::testing::TestWithParam<Exchange> {};

/// An exchange replayed on the CPU as the kernel runs it: every thread of
/// every block of every PE takes its worker's puts and its lane's share of
/// each; each put copied once, by the block block_of_put names, and every
/// receive slot holds its source's bytes.
TEST_P(CudaPeExchange, EveryPutCopiedOnceByTheBlockThatSignalsIt) {
  const Exchange x = GetParam();
  const HeapLayout h = heap_layout(x.pes, x.n);
  Aligned heap(x.pes * h.slice);
  std::byte* base = heap.data();
  for (std::uint32_t p = 0; p < x.pes; ++p)
    for (std::uint64_t i = 0; i < (x.pes - 1) * x.n; ++i)
      base[p * h.slice + h.send + i] = pattern(p * 7919 + i);
  std::vector<std::uint32_t> copied_by(x.pes * x.pes, ~0u);
  for (std::uint32_t me = 0; me < x.pes; ++me)
    for (std::uint32_t block = 0; block < x.blocks; ++block)
      for (std::uint32_t thread = 0; thread < x.threads; ++thread) {
        const CopyWorker w = copy_worker(x.width, block, thread, x.blocks, x.threads);
        ASSERT_LT(w.lane, w.lanes);
        for (std::uint32_t j = w.index; j + 1 < x.pes; j += w.count) {
          const std::uint32_t to = put_target(me, x.pes, j);
          copy_lanes(base + to * h.slice + h.recv + me * x.n, base + me * h.slice + h.send + j * x.n, x.n, w.lane,
                     w.lanes);
          if (w.lane == 0) {
            ASSERT_EQ(copied_by[me * x.pes + j], ~0u) << "put " << j << " of PE " << me << " taken twice";
            copied_by[me * x.pes + j] = block;
          }
        }
      }
  for (std::uint32_t me = 0; me < x.pes; ++me)
    for (std::uint32_t j = 0; j + 1 < x.pes; ++j) {
      EXPECT_EQ(copied_by[me * x.pes + j], block_of_put(x.width, j, x.blocks, x.threads))
          << "PE " << me << " put " << j;
      const std::uint32_t to = put_target(me, x.pes, j);
      for (std::uint64_t i = 0; i < x.n; ++i)
        ASSERT_EQ(base[to * h.slice + h.recv + me * x.n + i], pattern(me * 7919 + j * x.n + i))
            << "PE " << to << "'s slot from PE " << me << ", byte " << i;
    }
}

INSTANTIATE_TEST_SUITE_P(
    Widths, CudaPeExchange,
    ::testing::Values(Exchange{DirectWidth::Thread, 1, 32, 4, 13}, Exchange{DirectWidth::Thread, 2, 32, 32, 8},
                      Exchange{DirectWidth::Warp, 1, 64, 5, 100}, Exchange{DirectWidth::Warp, 3, 64, 16, 33},
                      Exchange{DirectWidth::Warp, 1, 32, 8, 4097}, Exchange{DirectWidth::Block, 3, 64, 4, 16385},
                      Exchange{DirectWidth::Block, 2, 96, 7, 1001}, Exchange{DirectWidth::Block, 8, 32, 3, 17}),
    [](const ::testing::TestParamInfo<Exchange>& info) {
      const Exchange& x = info.param;
      return std::string(width_name(x.width)) + "_b" + std::to_string(x.blocks) + "_t" + std::to_string(x.threads) +
             "_p" + std::to_string(x.pes) + "_n" + std::to_string(x.n);
    });

}  // namespace
}  // namespace xover::runtime
