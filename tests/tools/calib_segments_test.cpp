// Segmented least squares on synthetic curves whose breakpoints are known:
// recovered within one sample step, and one segment on lines, exact or
// with noise below the tolerance; the copy steps calibrate fits with it.
#include "tools/calib/segments.hpp"

#include "protocols/select/threshold_table.hpp"
#include "tests/support/paths.hpp"
#include "tools/calib/calibration.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

namespace xover::calib {
namespace {

struct Curve {
  std::vector<double> x, y;
};

/// `points` sizes from 8 B to 4 MiB, geometric, with y = f(x) times
/// 1 + u, u uniform in [-noise, noise], from a fixed seed.
Curve sample(const std::function<double(double)>& f, double noise, int points = 60) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(-noise, noise);
  Curve c;
  for (int i = 0; i < points; ++i) {
    const double x = std::round(8 * std::pow(524288.0, i / double(points - 1)));
    c.x.push_back(x);
    c.y.push_back(f(x) * (1 + u(rng)));
  }
  return c;
}

/// The index of the first size at or above `size`.
std::size_t index_of(const Curve& c, double size) {
  std::size_t i = 0;
  while (i < c.x.size() && c.x[i] < size)
    ++i;
  return i;
}

TEST(FitSegments, ALineIsOneSegmentExactOrNoisy) {
  const auto line = [](double x) { return 2e-6 + x / 10e9; };
  for (double noise : {0.0, 0.01, 0.025}) {
    const Curve c = sample(line, noise);
    const std::vector<Segment> parts = fit_segments(c.x, c.y);
    ASSERT_EQ(parts.size(), 1u) << noise;
    EXPECT_EQ(parts[0].first, 0u);
    EXPECT_EQ(parts[0].last, c.x.size() - 1);
    EXPECT_NEAR(parts[0].line.m, 1 / 10e9, 0.05 / 10e9) << noise;
  }
}

// Copies leaving the cache at 32 KiB: 30 GB/s, then 8 GB/s, continuous.
TEST(FitSegments, ASlopeChangeIsFoundWithinOneSample) {
  const double knee = 32768;
  const auto curve = [knee](double x) {
    return x < knee ? 1e-6 + x / 30e9 : 1e-6 + knee / 30e9 + (x - knee) / 8e9;
  };
  for (double noise : {0.0, 0.01}) {
    const Curve c = sample(curve, noise);
    const std::vector<Segment> parts = fit_segments(c.x, c.y);
    ASSERT_EQ(parts.size(), 2u) << noise;
    EXPECT_NEAR(static_cast<double>(parts[1].first), static_cast<double>(index_of(c, knee)), 1) << noise;
    EXPECT_NEAR(parts[1].line.m, 1 / 8e9, 0.05 / 8e9) << noise;
  }
}

// A protocol change at 1 KiB (a step of 3 us) and a slope change at 1 MiB.
TEST(FitSegments, AStepAndASlopeChangeAreThreeSegments) {
  const auto curve = [](double x) {
    const double base = x < 1024 ? 1e-6 + x / 10e9 : 4e-6 + x / 10e9;
    return x < 1048576 ? base : base + (x - 1048576) / 5e9;
  };
  const Curve c = sample(curve, 0.01);
  const std::vector<Segment> parts = fit_segments(c.x, c.y);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_NEAR(static_cast<double>(parts[1].first), static_cast<double>(index_of(c, 1024)), 1);
  EXPECT_NEAR(static_cast<double>(parts[2].first), static_cast<double>(index_of(c, 1048576)), 1);
}

// No more lines than max_segments, none shorter than min_points.
TEST(FitSegments, KeepsToItsLimits) {
  const auto stairs = [](double x) { return 1e-6 * (1 + std::floor(std::log2(x))); };
  const Curve c = sample(stairs, 0);
  const std::vector<Segment> parts = fit_segments(c.x, c.y, {.max_segments = 3, .min_points = 5});
  ASSERT_LE(parts.size(), 3u);
  for (const Segment& s : parts)
    EXPECT_GE(s.last - s.first + 1, 5u);
  EXPECT_THROW(fit_segments(std::vector<double>{}, std::vector<double>{}), std::invalid_argument);
}

// eager/bcopy's sweep on a lane whose copies leave the cache at 32 KiB
// (30 GB/s, then 8 GB/s), as its model gives it with 1 % noise: the copy
// steps come back within one sample of the breakpoint and 5 % of each
// bandwidth, and past the sweep the path's own; with one copy bandwidth,
// no steps.
TEST(FitCopySteps, RecoversACacheStepFromTheBcopySweep) {
  LaneAttrs lane = test::lane("mm", 0.5, 20, 0.2);
  lane.max_bcopy = lane.seg_size = Bytes{1} << 20;
  const Path plain = test::path({lane}, 10);
  Path stepped = plain;
  stepped.memcpy_local_steps = stepped.memcpy_remote_steps = SizeSteps({{0, 30e9}, {32768, 8e9}});
  stepped.memcpy_bw_local = stepped.memcpy_bw_remote = 30e9;
  SelectConfig config;
  config.forced = {"eager/bcopy"};
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-0.01, 0.01);
  const auto sweep_of = [&](const Path& path) {
    const ThresholdTable table = ThresholdTable::build(path, config);
    std::vector<std::pair<Bytes, Seconds>> sweep;
    for (int i = 0; i < 40; ++i) {
      const auto n = static_cast<Bytes>(std::round(64 * std::pow(16000.0, i / 39.0)));
      sweep.emplace_back(n, *table.selection_cost(0, n) * (1 + u(rng)));
    }
    return sweep;
  };
  const std::vector<std::pair<Bytes, Seconds>> sweep = sweep_of(stepped);
  const SizeSteps steps = fit_copy_steps(plain, "eager/bcopy", sweep);
  ASSERT_EQ(steps.steps().size(), 3u);
  std::size_t knee = 0;
  while (sweep[knee].first < 32768)
    ++knee;
  EXPECT_GE(steps.steps()[1].from, sweep[knee - 1].first);
  EXPECT_LE(steps.steps()[1].from, sweep[knee + 1].first);
  EXPECT_NEAR(steps.steps()[0].value, 30e9, 0.05 * 30e9);
  EXPECT_NEAR(steps.steps()[1].value, 8e9, 0.05 * 8e9);
  // Past the sweep's largest copy, the path's own figure: the sweep's last
  // slope says nothing there.
  EXPECT_EQ(steps.steps()[2].from, sweep.back().first + 1);
  EXPECT_EQ(steps.steps()[2].value, plain.memcpy_bw_local);

  Path flat = plain;
  flat.memcpy_bw_local = flat.memcpy_bw_remote = 12e9;
  EXPECT_TRUE(fit_copy_steps(plain, "eager/bcopy", sweep_of(flat)).empty());
}

}  // namespace
}  // namespace xover::calib
