// P PEs in one process on one GPU (runtime/cuda/cuda_pe_group.hpp), where
// CUDA is compiled in: for each P and each width (a thread, a warp, a block
// per put), and for each P through the engine block fed by the PEs'
// posting threads or by their CPU proxies, or through the proxies' own
// cudaMemcpyAsync (a thread a put, or one poster in doorbell batches),
// exchanges of sizes whose slots lie at strides that are not multiples of
// 16, twice or three times each (with the first's bytes again); every byte
// of every receive slot and every signal word of every PE is checked.
// Without a GPU: SKIPPED with the runtime's reason. The figures (the
// exchange between events, the span on the GPU's timer, a block's or a
// PE's posting) are printed, not asserted: tools/gpu-check.sh judges them.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <stdexcept>
#include <tuple>

#include "runtime/backends.hpp"
#include "runtime/cuda/cuda_pe_group.hpp"

namespace xover::runtime {
namespace {

double median_us(std::vector<Seconds> values) {
  if (values.empty())
    return 0;
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  return values[values.size() / 2] * 1e6;
}

/// The parameters: P and the width.
class CudaPeGroupTest : public ::testing::TestWithParam<std::tuple<std::uint32_t, DirectWidth>> {};

TEST_P(CudaPeGroupTest, EveryByteAndEverySignalAtUnalignedStrides) {
  if (const std::string why = find_backend("cuda")->unavailable(); !why.empty())
    GTEST_SKIP() << "backend cuda: " << why;
  const auto [pes, width] = GetParam();
  CudaPeGroup group(pes, Bytes{1} << 20, 27);
  std::cout << "figure: P " << pes << ", " << group.launch().blocks_per_pe << " blocks of "
            << group.launch().threads << " threads a PE (" << group.residency().sms << " SMs x "
            << group.residency().blocks_per_sm << " resident)\n";
  for (Bytes n : {Bytes{1}, Bytes{13}, Bytes{16}, Bytes{4097}, Bytes{16411}, Bytes{1} << 20}) {
    group.prepare(n);
    for (int round = 0; round < 2; ++round) {
      const PeGroupExchange x = group.exchange(PeFlavour::Direct, width, n, 10.0);
      ASSERT_TRUE(x.complete) << n << " B, round " << round << ": " << x.problem;
      const Findings f = group.verify(n);
      for (const std::string& p : f.problems)
        ADD_FAILURE() << n << " B, round " << round << ": " << p;
      EXPECT_EQ(f.errors, 0u);
      std::cout << "figure: " << width_name(width) << " " << n << " B round " << round << ": time "
                << x.time * 1e6 << " us, span " << x.span * 1e6 << " us, a block's posting " << median_us(x.post)
                << " us\n";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(PesAndWidths, CudaPeGroupTest,
                         ::testing::Combine(::testing::Values(2u, 4u, 7u, 32u),
                                            ::testing::Values(DirectWidth::Thread, DirectWidth::Warp,
                                                              DirectWidth::Block)),
                         [](const auto& info) {
                           return "pes" + std::to_string(std::get<0>(info.param)) + "_" +
                                  std::string(width_name(std::get<1>(info.param)));
                         });

/// The engine flavours' parameters: P, the flavour, and whether one poster
/// a PE posts every put in doorbell batches of 4 (else a thread a put).
class CudaPeEngineTest : public ::testing::TestWithParam<std::tuple<std::uint32_t, PeFlavour, bool>> {};

TEST_P(CudaPeEngineTest, EveryByteAndEverySignalThroughTheEngine) {
  if (const std::string why = find_backend("cuda")->unavailable(); !why.empty())
    GTEST_SKIP() << "backend cuda: " << why;
  const auto [pes, flavour, one_poster] = GetParam();
  CudaPeGroup group(pes, Bytes{1} << 20, 27);
  if (one_poster)
    group.set_posting(1, 4);
  for (Bytes n : {Bytes{1}, Bytes{13}, Bytes{16}, Bytes{4097}, Bytes{16411}, Bytes{1} << 20}) {
    group.prepare(n);
    // Three rounds: with a thread a put at P = 32 (31 requests a queue of
    // 64), the third wraps every queue and ring.
    for (int round = 0; round < 3; ++round) {
      const PeGroupExchange x = group.exchange(flavour, DirectWidth::Thread, n, 10.0);
      ASSERT_TRUE(x.complete) << n << " B, round " << round << ": " << x.problem;
      const Findings f = group.verify(n);
      for (const std::string& p : f.problems)
        ADD_FAILURE() << n << " B, round " << round << ": " << p;
      EXPECT_EQ(f.errors, 0u);
      std::cout << "figure: " << flavour_name(flavour) << (one_poster ? " (one poster)" : "") << " P " << pes << " "
                << n << " B round " << round << ": time " << x.time * 1e6 << " us, span " << x.span * 1e6
                << " us, a PE's posting " << median_us(x.post) << " us\n";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(PesAndFlavours, CudaPeEngineTest,
                         ::testing::Combine(::testing::Values(2u, 4u, 7u, 32u),
                                            ::testing::Values(PeFlavour::Engine, PeFlavour::Proxy, PeFlavour::Copy),
                                            ::testing::Bool()),
                         [](const auto& info) {
                           return "pes" + std::to_string(std::get<0>(info.param)) + "_" +
                                  std::string(flavour_name(std::get<1>(info.param))) +
                                  (std::get<2>(info.param) ? "_one_poster" : "");
                         });

TEST(CudaPeGroupPosting, OutOfRangePostingIsRefused) {
  if (const std::string why = find_backend("cuda")->unavailable(); !why.empty())
    GTEST_SKIP() << "backend cuda: " << why;
  CudaPeGroup group(4, 64, 27);
  EXPECT_THROW(group.set_posting(0, 4), std::invalid_argument);
  EXPECT_THROW(group.set_posting(4, 4), std::invalid_argument);
  EXPECT_THROW(group.set_posting(3, 0), std::invalid_argument);
  EXPECT_THROW(group.set_posting(3, kPeQueueEntries + 1), std::invalid_argument);
  group.set_posting(3, kPeQueueEntries);
}

}  // namespace
}  // namespace xover::runtime
