// xover compare as a user runs it, on the hand-written results files of
// data/results/ (their numbers are worked out in compare_test.cpp): the
// table, the JSON, the --max-* gates' exit status 1, and exit status 2 with
// the file named for bad input.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/support/run.hpp"

namespace xover {
namespace {

using ::testing::HasSubstr;

const std::string kXover = XOVER_BINARY;
const std::string kData = std::string(XOVER_SOURCE_DIR) + "/tests/data/results/";

test::CommandResult compare(const std::string& args) {
  return test::run_command(kXover + " compare " + args);
}

TEST(CompareCli, TableOfErrorsCrossoversAndThresholds) {
  const auto r = compare(kData + "sim.csv " + kData + "hw.csv");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_THAT(r.out, HasSubstr("# golden: pingpong, sim on p.xml"));
  EXPECT_THAT(r.out, HasSubstr("against shm on host"));
  // protocol, points, median |rel|, worst |rel|, at, only in sim, only in hw.
  EXPECT_THAT(r.out, testing::ContainsRegex("\nauto +3 +20\\.0% +25\\.0% +2K +8K +-\n"));
  EXPECT_THAT(r.out, testing::ContainsRegex("\neager/zcopy +4 +18\\.3% +25\\.0% +2K +- +-\n"));
  EXPECT_THAT(r.out, testing::ContainsRegex("\nrndv/get +4 +11\\.[23]% +20\\.0% +1K +- +16K\n"));
  EXPECT_THAT(r.out, testing::ContainsRegex("\neager/bcopy +0 +- +- +- +- +1K\\.\\.2K \\(2 sizes\\)\n"));
  // Per size: auto at 4K ran different protocols.
  EXPECT_THAT(r.out, testing::ContainsRegex("\n4K +\\+0\\.0% \\* +-16\\.7% +\\+10\\.0%"));
  EXPECT_THAT(r.out, HasSubstr("* simulation and hardware ran different protocols at this size"));
  EXPECT_THAT(r.out, HasSubstr("sim: eager/zcopy -> rndv/get at 4705 B (4.6K), between 4K and 8K"));
  EXPECT_THAT(r.out, HasSubstr("hw : eager/zcopy -> rndv/get at 2896 B (2.8K), between 2K and 4K"));
  EXPECT_THAT(r.out, HasSubstr("eager/zcopy -> rndv/get: sim between 4K and 8K (estimate 5793 B (5.7K)); hw at "
                               "2896 B (2.8K), factor 2.000 NOT within"));
}

TEST(CompareCli, JsonCarriesTheExactNumbers) {
  const auto r = compare(kData + "sim.csv " + kData + "hw.csv --json | python3 -c 'import json,sys; d=json.load("
                         "sys.stdin); p=d[\"protocols\"]; t=d[\"thresholds\"][0]; print(p[1][\"median_abs_rel\"], "
                         "p[2][\"only_hw\"], p[3][\"matched\"], t[\"between\"], t[\"factor\"], t[\"within\"], "
                         "d[\"crossovers\"][\"hw\"][0][\"size\"], d[\"points\"][2][\"hw_selected\"])'");
  ASSERT_EQ(r.status, 0) << r.err;
  // 11/60; 2048·√2.
  EXPECT_EQ(r.out, "0.18333333333333335 [16384] 0 [4096, 8192] 2 False 2896.309375740099 rndv/get\n");
}

TEST(CompareCli, LimitsMissedExitOne) {
  // The threshold is off by a factor of 2; auto's median |rel err| is 20 %.
  EXPECT_EQ(compare(kData + "sim.csv " + kData + "hw.csv --max-threshold-factor 2").status, 0);
  const auto factor = compare(kData + "sim.csv " + kData + "hw.csv --max-threshold-factor 1.5");
  EXPECT_EQ(factor.status, 1);
  EXPECT_THAT(factor.out, HasSubstr("(limit 1.50x)"));
  EXPECT_EQ(factor.err, "xover compare: missed: eager/zcopy -> rndv/get: factor 2 above 1.5\n");
  EXPECT_EQ(compare(kData + "sim.csv " + kData + "hw.csv --max-median-error 0.2").status, 0);
  const auto median = compare(kData + "sim.csv " + kData + "hw.csv --max-median-error 0.19");
  EXPECT_EQ(median.status, 1);
  EXPECT_EQ(median.err, "xover compare: missed: auto: median |rel err| 20.0% above 19.0%\n");
  // Nothing to check the threshold against counts as a miss: only auto
  // was measured.
  const auto none = compare(kData + "sim.csv " + kData + "hw_auto_only.csv --max-threshold-factor 10");
  EXPECT_EQ(none.status, 1);
  EXPECT_THAT(none.out, HasSubstr("hw: not measured, the hardware file has no eager/zcopy curve"));
  EXPECT_THAT(none.err, HasSubstr("no simulated threshold has a measured crossover"));
}

TEST(CompareCli, BadInputExitsTwoNamingTheFile) {
  const auto missing = compare(kData + "sim.csv no-such.csv");
  EXPECT_EQ(missing.status, 2);
  EXPECT_EQ(missing.err, "xover compare: no-such.csv: cannot open (no such file, or not readable)\n");
  EXPECT_EQ(missing.out, "");
  const auto malformed = compare(kData + "malformed.csv " + kData + "hw.csv");
  EXPECT_EQ(malformed.status, 2);
  EXPECT_EQ(malformed.err,
            "xover compare: " + kData + "malformed.csv:3: t_median_us 'slow' is not a non-negative number\n");
  const auto other = compare(kData + "sim.csv " + kData + "other_scenario.csv");
  EXPECT_EQ(other.status, 2);
  EXPECT_THAT(other.err, HasSubstr("holds scenario 'golden', " + kData + "other_scenario.csv holds 'other'"));
  const auto disjoint = compare(kData + "sim.csv " + kData + "disjoint.csv");
  EXPECT_EQ(disjoint.status, 2);
  EXPECT_THAT(disjoint.err, HasSubstr("have no (protocol, size) in common"));
  EXPECT_EQ(compare(kData + "sim.csv").status, 2);
  EXPECT_EQ(compare(kData + "sim.csv " + kData + "hw.csv --max-threshold-factor 0.5").status, 2);
  EXPECT_EQ(compare(kData + "sim.csv " + kData + "hw.csv --max-median-error -1").status, 2);
}

}  // namespace
}  // namespace xover
