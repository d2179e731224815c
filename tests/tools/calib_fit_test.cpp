// The calibration fits on synthetic data whose answer is known (the lines
// themselves are the runtime's: tests/runtime/cpu_per_byte_test.cpp):
// Netgauge's LogGP parameters from PRTTs generated from known L, o_s, o_r,
// g and G (exact and with small noise: within 1 %), breakpoints where a
// curve changes line (within one sample step; none on one line); a lane
// whose overheads overlap in time calibrated to o_send_after.
#include "tools/calib/fit.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

#include "tools/calib/calibration.hpp"
#include "tools/calib/platform_writer.hpp"

namespace xover::calib {
namespace {

struct LogGP {
  Seconds L, o_s, o_r, g;
  SecondsPerByte G;
};

/// PRTTs of the sizes 8 B .. 64 KiB (`steps` of them, geometric) as
/// fit.hpp's model gives them, each multiplied by 1 + u, u uniform in
/// [-noise, noise], from a fixed seed.
std::vector<PrttPoint> synthetic(const LogGP& p, int n, double noise, int steps = 40) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-noise, noise);
  auto jitter = [&](double v) { return v * (1 + u(rng)); };
  std::vector<PrttPoint> out;
  for (int i = 0; i < steps; ++i) {
    const auto s = static_cast<Bytes>(std::round(8 * std::pow(8192.0, i / double(steps - 1))));
    const double bytes = static_cast<double>(s);
    const Seconds rtt1 = 2 * (p.o_s + p.L + bytes * p.G + p.o_r);
    const Seconds d = 2 * rtt1;
    const int stream_n = 64;
    PrttPoint pt;
    pt.size = s;
    pt.rtt1 = jitter(rtt1);
    pt.rttn = jitter(rtt1 + (n - 1) * (p.g + bytes * p.G));
    pt.delay = d;
    pt.posts_delayed = jitter(n * (p.o_s + d));
    pt.rttd = pt.posts_delayed + jitter(p.o_r);
    pt.o_send = jitter(p.o_s);
    pt.stream = jitter(rtt1 + (stream_n - 1) * (p.g + bytes * p.G));
    pt.stream_messages = stream_n;
    out.push_back(pt);
  }
  return out;
}

void expect_within(double got, double want, double rel, const char* what) {
  EXPECT_NEAR(got, want, std::abs(want) * rel) << what;
}

void expect_recovered(const LogGPFit& f, const LogGP& p, double rel) {
  expect_within(f.latency, p.L, rel, "L");
  expect_within(f.o_send.c, p.o_s, rel, "o_s");
  expect_within(f.o_recv.c, p.o_r, rel, "o_r");
  expect_within(f.g(), p.g, rel, "g");
  expect_within(f.gap.m, p.G, rel, "G");
  expect_within(f.stream.m, p.G, rel, "G of the stream");
  expect_within(f.round_trip.m / 2, p.G, rel, "G of one message");
  EXPECT_FALSE(f.latency_clipped);
}

TEST(FitLogGP, RecoversExactParameters) {
  const LogGP p{0.5e-6, 0.2e-6, 0.3e-6, 0.1e-6, 1 / 10e9};
  expect_recovered(fit_loggp(synthetic(p, 8, 0), 8), p, 1e-9);
}

TEST(FitLogGP, RecoversParametersWithinOnePercentUnderSmallNoise) {
  const LogGP p{0.5e-6, 0.2e-6, 0.3e-6, 0.1e-6, 1 / 10e9};
  expect_recovered(fit_loggp(synthetic(p, 8, 0.001), 8), p, 0.01);
  const LogGP tcp_like{5e-6, 2e-6, 3e-6, 1e-6, 1 / 3e9};
  expect_recovered(fit_loggp(synthetic(tcp_like, 16, 0.001), 16), tcp_like, 0.01);
}

TEST(FitLogGP, ClipsANegativeLatencyAndSaysSo) {
  // Overheads that overlap in time: o_s + o_r above half the round trip.
  std::vector<PrttPoint> points = synthetic({0, 0.2e-6, 0.3e-6, 0.1e-6, 1e-10}, 8, 0);
  for (PrttPoint& pt : points)
    pt.o_send *= 2;
  const LogGPFit f = fit_loggp(points, 8);
  EXPECT_TRUE(f.latency_clipped);
  EXPECT_EQ(f.latency, 0);
}

TEST(FitLogGP, RefusesTooLittleData) {
  const std::vector<PrttPoint> points = synthetic({0.5e-6, 0.2e-6, 0.3e-6, 0.1e-6, 1e-10}, 8, 0, 3);
  EXPECT_THROW(fit_loggp(std::span(points).first(1), 8), std::invalid_argument);
  EXPECT_THROW(fit_loggp(points, 1), std::invalid_argument);
  std::vector<PrttPoint> no_stream = points;
  no_stream[1].stream_messages = 1;
  EXPECT_THROW(fit_loggp(no_stream, 8), std::invalid_argument);
}

/// A calibration of one TCP-like lane (no sender copy in its bcopy) from
/// PRTTs generated with an L of `latency`, o_s 2 us and o_r 3 us, the probes
/// alone.
Calibration overlapped_lane(Seconds latency) {
  Measurements m;
  m.backend = "tcp";
  LaneMeasurement lane;
  lane.hardware.name = "tcp:lo";
  lane.hardware.bcopy_copies = false;
  lane.am = synthetic({latency, 2e-6, 3e-6, 0.1e-6, 1 / 3e9}, m.messages, 0);
  m.lanes = {lane};
  return calibrate(m, FitDepth::Probes);
}

bool has_note(const Calibration& c, const std::string& text) {
  return std::any_of(c.notes.begin(), c.notes.end(),
                     [&text](const std::string& note) { return note.find(text) != std::string::npos; });
}

// Overheads that overlap by 1 us (PRTT(1,0,0)/2 = 4 us, o_s + o_r = 5 us):
// L is 0 and 1 us of o_s is after the message has left; o_s and o_r are
// kept as measured, and the transport's bcopy_copies goes to the draft.
TEST(CalibrateLane, OverlappingOverheadsBecomeTheSendersTimeAfterTheMessage) {
  const Calibration c = overlapped_lane(-1e-6);
  ASSERT_EQ(c.draft.lanes.size(), 1U);
  const LaneAttrs& a = c.draft.lanes[0];
  EXPECT_EQ(a.latency, 0);
  EXPECT_NEAR(a.o_send, 2e-6, 1e-12);
  EXPECT_NEAR(a.o_send_after, 1e-6, 1e-12);
  EXPECT_NEAR(a.o_recv, 3e-6, 1e-12);
  EXPECT_FALSE(a.bcopy_copies);
  EXPECT_TRUE(has_note(c, "L set to 0 and o_send_after = 1.0000 us of o_s spent after the message has left"));
  EXPECT_FALSE(has_note(c, "o_r is"));
  const std::string xml = platform_xml(c.draft);
  EXPECT_NE(xml.find("<prop id=\"xover:o_send_after\""), std::string::npos);
  EXPECT_NE(xml.find("<prop id=\"xover:bcopy_copy\" value=\"no\"/>"), std::string::npos);
}

// An overlap above o_s (PRTT(1,0,0)/2 = 1 us): all of o_s is after the
// message, and o_r takes off the other 2 us, said so.
TEST(CalibrateLane, AnOverlapAboveOSendTakesTheRestOffORecv) {
  const Calibration c = overlapped_lane(-4e-6);
  const LaneAttrs& a = c.draft.lanes.at(0);
  EXPECT_EQ(a.latency, 0);
  EXPECT_NEAR(a.o_send_after, 2e-6, 1e-12);
  EXPECT_NEAR(a.o_send, 2e-6, 1e-12);
  EXPECT_NEAR(a.o_recv, 1e-6, 1e-12);
  EXPECT_TRUE(has_note(c, "that is all of o_s, and o_r is 2.0000 us less for the rest"));
}

// No overlap: no o_send_after, none written.
TEST(CalibrateLane, NoOverlapNoSendAfter) {
  const Calibration c = overlapped_lane(1e-6);
  EXPECT_NEAR(c.draft.lanes.at(0).latency, 1e-6, 1e-12);
  EXPECT_EQ(c.draft.lanes.at(0).o_send_after, 0);
  EXPECT_EQ(platform_xml(c.draft).find("o_send_after"), std::string::npos);
}

// A lane that carries messages of up to 112 B (header included) inline and
// larger ones through a descriptor, as shared memory does, with o_s and o_r
// 0.05 and 0.1 us larger past that: the small messages keep their own
// fixed figures, and the larger ones' become steps from a payload of 97 B.
// One line through both gave every size the fixed costs of neither.
TEST(CalibrateLane, TheMessagesPastTheInlineLimitGetOverheadStepsOfTheirOwn) {
  const LogGP small{0.02e-6, 0.06e-6, 0.07e-6, 0.05e-6, 1 / 12e9};
  const LogGP large{0.02e-6, 0.11e-6, 0.17e-6, 0.05e-6, 1 / 12e9};
  Measurements m;
  m.backend = "shm";
  LaneMeasurement lane;
  lane.hardware.name = "mm";
  lane.hardware.max_short = 112;
  for (const PrttPoint& p : synthetic(small, m.messages, 0))
    if (p.size + kProbeHeader <= 112)
      lane.am.push_back(p);
  for (const PrttPoint& p : synthetic(large, m.messages, 0))
    if (p.size + kProbeHeader > 112)
      lane.am.push_back(p);
  m.lanes = {lane};
  const LaneAttrs a = calibrate(m, FitDepth::Probes).draft.lanes.at(0);
  EXPECT_NEAR(a.latency, small.L, 1e-12);
  for (Bytes n : {Bytes{8}, Bytes{96}}) {
    EXPECT_NEAR(a.o_send_at(n), small.o_s, 1e-12) << n;
    EXPECT_NEAR(a.o_recv_at(n), small.o_r, 1e-12) << n;
  }
  for (Bytes n : {Bytes{97}, Bytes{8192}}) {
    EXPECT_NEAR(a.o_send_at(n), large.o_s, 1e-12) << n;
    EXPECT_NEAR(a.o_recv_at(n), large.o_r, 1e-12) << n;
  }
}

// Where the messages on either side of the inline limit cost alike (one
// LogGP lane generated every size), the plain figures hold every size.
TEST(CalibrateLane, NoStepsWhereBothSidesOfTheInlineLimitCostAlike) {
  const Calibration c = overlapped_lane(1e-6);
  EXPECT_TRUE(c.draft.lanes.at(0).o_send_steps.empty());
  EXPECT_TRUE(c.draft.lanes.at(0).o_recv_steps.empty());
}

// Where the sizes within the limit come out dearer than those past it (two
// noisy small sizes on a lane that frames every message alike, as TCP's
// did), there is no step to find: one line holds every size.
TEST(CalibrateLane, NoStepsWhereTheSmallMessagesAreNotTheCheaper) {
  const LogGP whole{1e-6, 2e-6, 3e-6, 0.1e-6, 1 / 3e9};
  Measurements m;
  LaneMeasurement lane;
  lane.hardware.name = "tcp:lo";
  lane.am = synthetic(whole, m.messages, 0);
  for (PrttPoint& p : lane.am)
    if (p.size + kProbeHeader <= lane.hardware.max_short)
      p.rtt1 *= 1.3;
  m.lanes = {lane};
  const LaneAttrs a = calibrate(m, FitDepth::Probes).draft.lanes.at(0);
  EXPECT_TRUE(a.o_send_steps.empty());
  EXPECT_TRUE(a.o_recv_steps.empty());
  EXPECT_NEAR(a.o_send, whole.o_s, 1e-12);
}

// The small sizes' line may start lower and climb to the rest's by the
// limit (two noisy sizes, 8 B and 32 B, on TCP): its intercept is no step,
// since at the limit, where a message stops fitting, nothing jumps.
TEST(CalibrateLane, NoStepsWhereTheSmallSizesLineMeetsTheRestAtTheLimit) {
  const LogGP whole{1e-6, 2e-6, 3e-6, 0.1e-6, 1 / 3e9};
  Measurements m;
  LaneMeasurement lane;
  lane.hardware.name = "tcp:lo";
  lane.am = synthetic(whole, m.messages, 0);
  const double limit = static_cast<double>(lane.hardware.max_short - kProbeHeader);
  const double at_limit = 2 * (whole.o_s + whole.L + whole.o_r + limit * whole.G);
  const double intercept = 0.85 * 2 * (whole.o_s + whole.L + whole.o_r);
  for (PrttPoint& p : lane.am)
    if (static_cast<double>(p.size) <= limit)
      p.rtt1 = intercept + (at_limit - intercept) * static_cast<double>(p.size) / limit;
  m.lanes = {lane};
  const LaneAttrs a = calibrate(m, FitDepth::Probes).draft.lanes.at(0);
  EXPECT_TRUE(a.o_send_steps.empty());
  EXPECT_TRUE(a.o_recv_steps.empty());
}

/// Sizes 8 B .. 4 MiB, factor 2, and the lower envelope of two lines.
struct TwoLines {
  std::vector<double> x, y;
  double crossing;  ///< where the second line drops below the first
};

TwoLines eager_and_rndv(double noise) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(-noise, noise);
  const double c1 = 0.6e-6, m1 = 0.15e-9, c2 = 3e-6, m2 = 0.085e-9;
  TwoLines t;
  t.crossing = (c2 - c1) / (m1 - m2);
  for (double s = 8; s <= 4194304; s *= 2) {
    t.x.push_back(s);
    t.y.push_back(std::min(c1 + m1 * s, c2 + m2 * s) * (1 + u(rng)));
  }
  return t;
}

/// The index of the first size at or above `at`.
std::size_t index_at(const std::vector<double>& x, double at) {
  std::size_t i = 0;
  while (i < x.size() && x[i] < at)
    ++i;
  return i;
}

TEST(Breakpoints, FindTheProtocolSwitchWithinOneSampleStep) {
  for (double noise : {0.0, 0.01}) {
    const TwoLines t = eager_and_rndv(noise);
    const std::vector<std::size_t> breaks = find_breakpoints(t.x, t.y);
    ASSERT_EQ(breaks.size(), 1U) << "noise " << noise;
    const std::size_t want = index_at(t.x, t.crossing);
    EXPECT_LE(std::max(breaks[0], want) - std::min(breaks[0], want), 1U)
        << "break at " << t.x[breaks[0]] << " B, lines cross at " << t.crossing << " B, noise " << noise;
  }
}

TEST(Breakpoints, FindTwoSwitches) {
  // A jump at 8 KiB (a copied message gives way to a pipelined one), then
  // the rendezvous line from 256 KiB.
  std::vector<double> x, y;
  for (double s = 8; s <= 4194304; s *= 2) {
    x.push_back(s);
    y.push_back(s < 8192 ? 0.5e-6 + 0.2e-9 * s : s < 262144 ? 3e-6 + 0.12e-9 * s : 10e-6 + 0.08e-9 * s);
  }
  const std::vector<std::size_t> breaks = find_breakpoints(x, y);
  ASSERT_EQ(breaks.size(), 2U);
  EXPECT_EQ(x[breaks[0]], 8192);
  EXPECT_EQ(x[breaks[1]], 262144);
}

TEST(Breakpoints, NoneOnOneNoisyLine) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(-0.02, 0.02);
  std::vector<double> x, y;
  for (double s = 8; s <= 4194304; s *= 2) {
    x.push_back(s);
    y.push_back((1e-6 + 0.1e-9 * s) * (1 + u(rng)));
  }
  EXPECT_TRUE(find_breakpoints(x, y).empty());
}

}  // namespace
}  // namespace xover::calib
