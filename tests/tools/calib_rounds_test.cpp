// Calibration in rounds (tools/calib/rounds.hpp): rounds folded into one
// set of figures whatever order each measured its sizes in, and how far a
// round moved the fits; and the copy bandwidth fitted to a protocol's sweep
// (tools/calib/calibration.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "protocols/perf/envelope.hpp"
#include "protocols/select/threshold_table.hpp"
#include "tools/calib/rounds.hpp"

namespace xover::calib {
namespace {

PrttPoint prtt(Bytes size, Seconds rtt1, Seconds stream) {
  PrttPoint p;
  p.size = size;
  p.rtt1 = rtt1;
  p.rttn = 2 * rtt1;
  p.stream = stream;
  return p;
}

TEST(CalibRounds, PrttRoundsFoldIntoMediansAndTheFastestStreamInSizeOrder) {
  const std::vector<std::vector<PrttPoint>> rounds{
      {prtt(64, 3e-6, 9e-6), prtt(8, 1e-6, 5e-6)},
      {prtt(8, 2e-6, 4e-6), prtt(64, 1e-6, 8e-6)},
      {prtt(8, 9e-6, 6e-6), prtt(64, 2e-6, 7e-6)},
  };
  const std::vector<PrttPoint> out = combine_prtt(rounds);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].size, 8u);
  EXPECT_DOUBLE_EQ(out[0].rtt1, 2e-6);
  EXPECT_DOUBLE_EQ(out[0].rttn, 4e-6);
  EXPECT_DOUBLE_EQ(out[0].stream, 4e-6);
  EXPECT_EQ(out[1].size, 64u);
  EXPECT_DOUBLE_EQ(out[1].rtt1, 2e-6);
  EXPECT_DOUBLE_EQ(out[1].stream, 7e-6);
}

TEST(CalibRounds, GetRoundsFoldIntoMedians) {
  const std::vector<GetPoint> out =
      combine_gets({{{1024, 3e-6}, {8, 1e-6}}, {{8, 2e-6}, {1024, 5e-6}}, {{1024, 4e-6}, {8, 7e-6}}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].size, 8u);
  EXPECT_DOUBLE_EQ(out[0].time, 2e-6);
  EXPECT_DOUBLE_EQ(out[1].time, 4e-6);
}

TEST(CalibRounds, RoundsOfDifferentSizesAreRefused) {
  EXPECT_THROW(combine_gets({{{8, 1e-6}}, {{16, 1e-6}}}), std::invalid_argument);
  EXPECT_THROW(combine_prtt({{prtt(8, 1e-6, 1e-6)}, {}}), std::invalid_argument);
}

TEST(CalibRounds, FitChangeNamesTheFigureThatMovedMost) {
  Calibration before, now;
  LaneAttrs lane;
  lane.name = "mm";
  lane.latency = 0;
  lane.o_send = 0.2e-6;
  lane.o_recv = 0.2e-6;
  lane.bandwidth = 10e9;
  before.draft.lanes = {lane};
  lane.o_recv = 0.24e-6;  // L + o_s + o_r: 0.4 -> 0.44 us, 10 %
  lane.bandwidth = 9e9;   // 10 %, not more
  now.draft.lanes = {lane};
  ProtocolFit fit;
  fit.curve = "eager/bcopy";
  fit.from = 8;
  fit.to = 8192;
  fit.line.c = 1e-6;
  fit.line.m = 1e-10;
  before.protocols = {fit};
  fit.line.m = 1.5e-10;  // at 8 KiB: 1.8192 -> 2.2288 us, 22.5 %
  now.protocols = {fit};
  const FitChange change = fit_change(before, now);
  EXPECT_NEAR(change.relative, (2.2288 - 1.8192) / 1.8192, 1e-9);
  EXPECT_EQ(change.what, "eager/bcopy at 8K");
  EXPECT_EQ(fit_change(now, now).relative, 0);
}

// When the rounds end, on a clock the test sets: stable fits end them; a
// round as long as the average so far that would end past the limit is not
// started; a round count ends them at that count whatever the fits and the
// time.
TEST(CalibRounds, RoundsEndWhenStableBeforeTheLimitOrAtTheirCount) {
  const RoundRule limit{.time_limit = 10};
  EXPECT_EQ(rounds_end(limit, 1, 4.0, false), std::nullopt) << "a second round of 4 s ends at 8 s";
  EXPECT_EQ(rounds_end(limit, 1, 5.0, false), std::nullopt) << "a second round of 5 s ends at 10 s, the limit";
  EXPECT_EQ(rounds_end(limit, 1, 5.5, false), RoundsEnd::TimeLimit) << "a second round would end at 11 s";
  EXPECT_EQ(rounds_end(limit, 3, 7.0, false), std::nullopt) << "rounds of 7/3 s: the fourth ends at 9.3 s";
  EXPECT_EQ(rounds_end(limit, 3, 8.0, false), RoundsEnd::TimeLimit) << "the fourth would end at 10.7 s";
  EXPECT_EQ(rounds_end(limit, 2, 1.0, true), RoundsEnd::Stable);
  EXPECT_EQ(rounds_end(limit, 1, 11.0, true), RoundsEnd::Stable) << "stable is said before the time";

  const RoundRule two{.time_limit = 10, .rounds = 2};
  EXPECT_EQ(rounds_end(two, 1, 9.0, false), std::nullopt) << "the count, not the time";
  EXPECT_EQ(rounds_end(two, 1, 1.0, true), std::nullopt) << "the count, not the fits";
  EXPECT_EQ(rounds_end(two, 2, 1.0, false), RoundsEnd::Count);
  EXPECT_EQ(rounds_end(two, 2, 100.0, true), RoundsEnd::Count);
}

TEST(CalibRounds, TheNoteSaysWhatEndedTheRounds) {
  const FitChange change{0.031, "eager/bcopy at 8 KiB"};
  EXPECT_EQ(rounds_note(5, 42.4, change, 0.05, RoundsEnd::Stable),
            "5 rounds in 42 s, sizes and points shuffled in each; the last round moved the fits by 3.1 % "
            "(eager/bcopy at 8 KiB): stable (limit 5.0 %)");
  EXPECT_NE(rounds_note(2, 9, change, 0.05, RoundsEnd::TimeLimit).find(": NOT stable within the time limit (limit"),
            std::string::npos);
  EXPECT_NE(rounds_note(2, 9, change, 0.05, RoundsEnd::Count).find(": as many rounds as asked for (limit"),
            std::string::npos);
}

TEST(CalibRounds, ShuffledKeepsTheSizesAndFollowsTheSeed) {
  const std::vector<Bytes> sizes{8, 16, 32, 64, 128, 256, 512, 1024};
  std::vector<Bytes> a = shuffled(sizes, 3);
  EXPECT_EQ(a, shuffled(sizes, 3));
  EXPECT_NE(a, sizes);
  std::sort(a.begin(), a.end());
  EXPECT_EQ(a, sizes);
}

}  // namespace
}  // namespace xover::calib
