#include <gtest/gtest.h>

#include "protocols/perf/linear_func.hpp"
#include "protocols/perf/perf_factors.hpp"

namespace xover {
namespace {

TEST(LinearFunc, AppliesAddsAndScales) {
  const LinearFunc f{2, 0.25};
  EXPECT_EQ(f.apply(1000), 252);
  EXPECT_EQ((f + LinearFunc{1, 0.5}), (LinearFunc{3, 0.75}));
  EXPECT_EQ(f.scale(0.5), (LinearFunc{1, 0.125}));
  EXPECT_EQ(LinearFunc::constant(4), (LinearFunc{4, 0}));
  EXPECT_EQ(LinearFunc::per_byte(4), (LinearFunc{0, 4}));
}

TEST(LinearFunc, IntersectionIsWhereTheLinesMeet) {
  // 1 + 2n and 7 + 1n meet at n = 6, where both are 13.
  const LinearFunc a{1, 2};
  const LinearFunc b{7, 1};
  ASSERT_TRUE(a.intersect(b));
  EXPECT_DOUBLE_EQ(*a.intersect(b), 6);
  EXPECT_DOUBLE_EQ(*b.intersect(a), 6);
  EXPECT_DOUBLE_EQ(a.apply(6), b.apply(6));
}

TEST(LinearFunc, ParallelLinesDoNotMeet) {
  EXPECT_FALSE((LinearFunc{1, 2}).intersect(LinearFunc{3, 2}));
  EXPECT_FALSE((LinearFunc{1, 2}).intersect(LinearFunc{1, 2}));
}

TEST(PerfFactors, SingleIsTheSumAndStreamingTheLargestNonLatencyFactor) {
  PerfFactors p;
  p[Factor::LocalCpu] = {1, 0};
  p[Factor::RemoteCpu] = {2, 0};
  p[Factor::Network] = {0, 1};
  p[Factor::Latency] = {100, 0};
  p.gap = 0.5;
  EXPECT_EQ(p.single(), (LinearFunc{103, 1}));

  //  cost
  //    |            network n
  //    |           /
  //  2 |----------/  remote 2
  //    |         /
  //    +--------2----------- n
  // Streaming: 2 up to n = 2 (remote CPU, tie goes to the earlier factor),
  // then n; latency never counts.
  const PiecewiseFunc s = p.streaming(0, 100);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].from, 0u);
  EXPECT_EQ(s[0].to, 2u);
  EXPECT_EQ(s[0].f, (LinearFunc{2, 0}));
  EXPECT_EQ(s[1].from, 3u);
  EXPECT_EQ(s[1].f, (LinearFunc{0, 1}));
}

TEST(PerfFactors, GapFloorsTheNetworkFactorOfAStream) {
  PerfFactors p;
  p[Factor::Network] = {0, 1};
  p.gap = 10;
  Seconds t = 0;
  const PiecewiseFunc s = p.streaming(0, 100);
  ASSERT_TRUE(evaluate(s, 4, t));
  EXPECT_DOUBLE_EQ(t, 10);
  ASSERT_TRUE(evaluate(s, 50, t));
  EXPECT_DOUBLE_EQ(t, 50);
}

TEST(PerfFactors, AddingStepsAddsFactorsAndKeepsTheLargerGap) {
  PerfFactors a;
  a[Factor::LocalCpu] = {1, 1};
  a.gap = 3;
  PerfFactors b;
  b[Factor::LocalCpu] = {2, 0};
  b.gap = 1;
  const PerfFactors sum = a + b;
  EXPECT_EQ(sum[Factor::LocalCpu], (LinearFunc{3, 1}));
  EXPECT_EQ(sum.gap, 3);
  EXPECT_EQ(a.scaled(2)[Factor::LocalCpu], (LinearFunc{2, 2}));
}

}  // namespace
}  // namespace xover
