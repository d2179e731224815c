// bench/tune_check.py's judgement (--judge) on synthetic runs: a size whose
// runs fall in two machine states gets no verdict (BIMODAL, each side's
// states said), one state is judged met or MISSED by the median of the
// pairs, and the exit status says which. No library runs: the runs are
// written here.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/run.hpp"

namespace xover {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const std::string kScript = std::string(XOVER_SOURCE_DIR) + "/bench/tune_check.py";

/// One point as --record writes it: the defaults' and the settings' runs
/// in microseconds, pair by pair.
std::string point(long size, bool mis, const std::string& defaults, const std::string& settings) {
  auto seconds = [](const std::string& us) {
    std::string out;
    std::size_t start = 0;
    while (start < us.size()) {
      const std::size_t end = us.find(',', start);
      const std::string one = us.substr(start, end == std::string::npos ? std::string::npos : end - start);
      out += (out.empty() ? "" : ", ") + one + "e-6";
      start = end == std::string::npos ? us.size() : end + 1;
    }
    return "[" + out + "]";
  };
  return "{\"threshold\": \"UCX_RNDV_THRESH\", \"test\": \"tag_lat\", \"size\": " + std::to_string(size) +
         ", \"mis\": " + (mis ? "true" : "false") + ", \"defaults\": " + seconds(defaults) +
         ", \"settings\": " + seconds(settings) + "}\n";
}

/// Judges `lines` from a file of this test's own (the tests run in parallel).
test::CommandResult judge(const std::string& lines) {
  const std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  const std::filesystem::path file = std::filesystem::path(test::temp_dir()) / ("tune_check_runs_" + name + ".jsonl");
  std::ofstream(file) << lines;
  return test::run_command("python3 " + kScript + " --judge " + file.string());
}

std::string row(const std::string& out, const std::string& size) {
  const std::size_t at = out.find(" " + size + " ");
  return at == std::string::npos ? "" : out.substr(at, out.find('\n', at) - at);
}

// UCX's posix eager as seen at 20620 B: the settings' runs at 2.4 or
// 10.8 us, the defaults' at 4.1. The median of the pairs (2.5x) would say
// MISSED; against the defaults the fast state is faster and the slow one
// slower: it decides nothing, and the check says so.
TEST(TuneCheckJudge, TwoMachineStatesGiveNoVerdict) {
  const test::CommandResult r = judge(point(20620, true, "4.1,4.0,4.2,4.1,4.3", "2.4,10.8,2.5,10.9,10.7"));
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_THAT(row(r.out, "20620"), HasSubstr("BIMODAL (defaults one state; settings 2 runs at 2.45us, 3 at 10.80us; "
                                             "within states fast 0.598, slow 2.634)"));
  EXPECT_THAT(r.out, HasSubstr("0 MISSED, 1 BIMODAL (no verdict), 0 met"));
  // Both of the settings' states faster than the defaults' one: met whichever.
  const test::CommandResult both = judge(point(20620, true, "24.1,24.0,24.2,24.1,24.3", "2.4,10.8,2.5,10.9,10.7"));
  EXPECT_EQ(both.status, 0) << both.err;
  EXPECT_THAT(row(both.out, "20620"), HasSubstr("met in both states"));
}

// Both sides in two states: fast compared with fast, slow with slow; a
// verdict where both states agree, none where they do not.
TEST(TuneCheckJudge, BothSidesBimodalAreComparedWithinEachState) {
  const test::CommandResult r = judge(point(32768, true, "3.0,16.0,3.1,16.2,15.8", "1.8,9.0,1.9,9.2,9.1"));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(row(r.out, "32768"), HasSubstr("met in both states (defaults 2 runs at 3.05us, 3 at 16.00us; settings 2 "
                                             "runs at 1.85us, 3 at 9.10us; within states fast 0.607, slow 0.569)"));
  const test::CommandResult split = judge(point(32768, true, "3.0,16.0,3.1,16.2,15.8", "3.6,9.0,3.7,9.2,9.1"));
  EXPECT_EQ(split.status, 3) << split.err;
  EXPECT_THAT(row(split.out, "32768"), HasSubstr("BIMODAL (defaults"));
  const test::CommandResult slower = judge(point(4128, false, "1.0,3.0,1.0,3.0,3.0", "1.2,3.6,1.2,3.6,3.6"));
  EXPECT_EQ(slower.status, 1) << slower.err;
  EXPECT_THAT(row(slower.out, "4128"), HasSubstr("MISSED in both states"));
}

// One state each: the median of the pairs decides, a lone slow run (one
// run past the gap) is spread, not a state.
TEST(TuneCheckJudge, OneStateIsJudgedByTheMedianOfThePairs) {
  const test::CommandResult met =
      judge(point(16384, true, "5.0,5.1,5.0,5.2,5.0", "2.5,2.6,2.5,9.0,2.5") +
            point(4128, false, "1,1,1,1,1", "1.04,1.0,1.0,1.06,1.0"));
  EXPECT_EQ(met.status, 0) << met.err;
  EXPECT_THAT(row(met.out, "16384"), HasSubstr("faster         met"));
  EXPECT_THAT(row(met.out, "16384"), Not(HasSubstr("BIMODAL")));
  EXPECT_THAT(row(met.out, "4128"), HasSubstr("<= 1.05        met"));
  const test::CommandResult missed = judge(point(4128, false, "1,1,1,1,1", "1.06,1.07,1.0,1.1,1.08"));
  EXPECT_EQ(missed.status, 1) << missed.err;
  EXPECT_THAT(missed.out, HasSubstr("1 MISSED, 0 BIMODAL (no verdict), 0 met"));
}

TEST(TuneCheckJudge, BadRunsNameTheFileAndLine) {
  const test::CommandResult r = judge(point(4128, false, "1,1", "1,1") + "{\"size\": 3}\n");
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("tune_check_runs_BadRunsNameTheFileAndLine.jsonl:2: no 'defaults'"));
}

}  // namespace
}  // namespace xover
