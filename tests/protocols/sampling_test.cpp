// The sampling plan of a hardware sweep (pair_driver.hpp): rounds that
// visit every point once each, shuffled by the seed, sharing out each
// point's iterations.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "protocols/workload/pair_driver.hpp"

namespace xover {
namespace {

std::vector<std::pair<std::size_t, std::size_t>> order(const std::vector<Visit>& plan, std::size_t from,
                                                       std::size_t count) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (std::size_t i = from; i < from + count; ++i)
    out.emplace_back(plan[i].curve, plan[i].size);
  return out;
}

TEST(SamplingPlan, OneRoundVisitsInCurveThenSizeOrder) {
  const std::vector<Visit> plan = sampling_plan(2, 3, 50, Sampling{}, 1);
  ASSERT_EQ(plan.size(), 6u);
  EXPECT_EQ(order(plan, 0, 6),
            (std::vector<std::pair<std::size_t, std::size_t>>{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}}));
  for (const Visit& v : plan)
    EXPECT_EQ(v.iterations, 50u);
}

TEST(SamplingPlan, EveryRoundVisitsEveryPointOnceAndTheSharesAddUp) {
  const std::vector<Visit> plan = sampling_plan(3, 20, 50, Sampling{.rounds = 7}, 42);
  ASSERT_EQ(plan.size(), 7u * 60);
  std::map<std::pair<std::size_t, std::size_t>, std::size_t> total;
  for (std::size_t r = 0; r < 7; ++r) {
    const auto round = order(plan, r * 60, 60);
    EXPECT_EQ(std::set(round.begin(), round.end()).size(), 60u) << "round " << r;
    for (std::size_t i = r * 60; i < (r + 1) * 60; ++i) {
      // 50 over 7 rounds: shares of 7 and 8.
      EXPECT_GE(plan[i].iterations, 7u);
      EXPECT_LE(plan[i].iterations, 8u);
      total[{plan[i].curve, plan[i].size}] += plan[i].iterations;
    }
  }
  for (const auto& [point, iterations] : total)
    EXPECT_EQ(iterations, 50u);
  // Shuffled: no two rounds in the same order, and not in curve then size order.
  EXPECT_NE(order(plan, 0, 60), order(plan, 60, 60));
  EXPECT_NE(order(plan, 0, 60), order(sampling_plan(3, 20, 50, Sampling{}, 42), 0, 60));
}

TEST(SamplingPlan, TheSeedDecidesTheOrder) {
  const Sampling five{.rounds = 5};
  EXPECT_EQ(order(sampling_plan(2, 10, 20, five, 9), 0, 100), order(sampling_plan(2, 10, 20, five, 9), 0, 100));
  EXPECT_NE(order(sampling_plan(2, 10, 20, five, 9), 0, 100), order(sampling_plan(2, 10, 20, five, 10), 0, 100));
}

TEST(SamplingPlan, NoMoreRoundsThanIterations) {
  const std::vector<Visit> plan = sampling_plan(1, 4, 3, Sampling{.rounds = 10}, 1);
  ASSERT_EQ(plan.size(), 12u);
  for (const Visit& v : plan)
    EXPECT_EQ(v.iterations, 1u);
}

TEST(SamplingWarmup, CyclesTheReceiveRingBeforeEverySize) {
  Scenario s;
  s.warmup = 5;
  EXPECT_EQ(warmup_iterations(s, 8), 5u);
  s.sampling.warm_bytes = Bytes{2} << 20;
  // Small messages count as a cell of 8 KiB each: 256 of them.
  EXPECT_EQ(warmup_iterations(s, 8), 256u);
  EXPECT_EQ(warmup_iterations(s, 8192), 256u);
  EXPECT_EQ(warmup_iterations(s, 65536), 32u);
  EXPECT_EQ(warmup_iterations(s, 100000), 21u);
  // Large ones cover the ring in fewer than the scenario's warm-up.
  EXPECT_EQ(warmup_iterations(s, Bytes{4} << 20), 5u);
}

}  // namespace
}  // namespace xover
