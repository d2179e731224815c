// Segmented least squares on synthetic curves whose breakpoints are known:
// recovered within one sample step, and one segment on lines, exact or
// with noise below the tolerance (calibrate cuts the stream's time per
// message with it: the copy bandwidth per size range).
#include "tools/calib/segments.hpp"

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

}  // namespace
}  // namespace xover::calib
