// bench/tune_check.py's judgement (--judge) on synthetic runs: runs that
// carry the machine's core-to-core state are judged within each state; a
// size whose runs fall in two states without it gets no verdict where the
// states disagree (BIMODAL, each side's states said); one state is judged
// met or MISSED by the median of the pairs; UCX's own report of one
// protocol both ways gives "same protocol"; and the exit status says
// which. No library runs: the runs are written here.
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
/// in microseconds, pair by pair; `extra` adds fields (`, "key": value`).
std::string point(long size, bool mis, const std::string& defaults, const std::string& settings,
                  const std::string& extra = "") {
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
         ", \"settings\": " + seconds(settings) + extra + "}\n";
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
  EXPECT_THAT(r.out, HasSubstr("0 MISSED, 1 BIMODAL (no verdict), 0 same protocol (no verdict), 0 met"));
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
  EXPECT_THAT(missed.out, HasSubstr("1 MISSED, 0 BIMODAL (no verdict), 0 same protocol (no verdict), 0 met"));
}

/// The core-to-core round trips (ns) before and after each run of a side:
/// 'f' a run in the fast state (120 ns), 's' in the slow one (480 ns), 'c'
/// one whose state changed under it.
std::string core(const std::string& side, const std::string& run_states) {
  std::string out = ", \"" + side + "_core_ns\": [";
  for (std::size_t i = 0; i < run_states.size(); ++i) {
    const char* trips = run_states[i] == 'f' ? "[121, 130]" : run_states[i] == 's' ? "[471, 490]" : "[130, 480]";
    out += (i ? ", " : "") + std::string(trips);
  }
  return out + "]";
}

// UCX's posix eager on this machine: each run in the state the core-to-core
// round trips say. The settings are faster in each state (2.0 against 2.5
// us fast, 8.0 against 10.0 slow), but three of the five pairs put the
// settings' run in the slow state and the defaults' in the fast one: the
// median of the pairs (3.2x) would say MISSED. Judged within each state
// the check says met, and says it again when the states fall on other
// pairs: the verdict does not depend on which state a pair fell in.
TEST(TuneCheckJudge, CoreToCoreStatesJudgeTheSettingsWithinEachState) {
  const std::string runs = point(20620, true, "2.5,10.0,2.5,2.5,10.0", "8.0,2.0,8.0,8.0,2.0",
                                 core("defaults", "fsffs") + core("settings", "sfssf"));
  const test::CommandResult r = judge(runs);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(row(r.out, "20620"), HasSubstr("3.200"));
  EXPECT_THAT(row(r.out, "20620"),
              HasSubstr("met in both states (core-to-core states split at 247 ns; fast: 3+2 runs, 2.50 -> 2.00us, "
                        "0.800; slow: 2+3 runs, 10.00 -> 8.00us, 0.800)"));
  const test::CommandResult other = judge(point(20620, true, "2.5,2.5,10.0,10.0,2.5", "2.0,2.0,8.0,8.0,2.0",
                                                core("defaults", "ffssf") + core("settings", "ffssf")));
  EXPECT_EQ(other.status, 0) << other.err;
  EXPECT_THAT(row(other.out, "20620"), HasSubstr("met in both states"));
  // Slower by 20 % in the slow state and faster in the fast one: no verdict.
  const test::CommandResult split = judge(point(20620, true, "2.5,10.0,2.5,10.0,2.5", "2.0,12.0,2.0,12.0,2.0",
                                                core("defaults", "fsfsf") + core("settings", "fsfsf")));
  EXPECT_EQ(split.status, 3) << split.err;
  EXPECT_THAT(row(split.out, "20620"), HasSubstr("BIMODAL (core-to-core states split at 247 ns; fast: 3+3 runs"));
}

// A run whose state changed under it (fast before, slow after) is left
// out; a state with fewer than two runs of a side is not judged, and the
// verdict names the state it comes from.
TEST(TuneCheckJudge, ARunWhoseStateChangedUnderItIsLeftOut) {
  const test::CommandResult r = judge(point(4128, false, "1.0,4.0,1.0,1.0,1.0", "1.0,9.0,1.0,1.0,1.0",
                                            core("defaults", "ccfff") + core("settings", "scfff")));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(row(r.out, "4128"), HasSubstr("met in the fast state (core-to-core states split at 247 ns; fast: 3+3 "
                                            "runs, 1.00 -> 1.00us, 1.000; slow: 0+1 runs, too few)"));
  // A point with one side's states only is judged by the pairs, beside
  // one that splits the file's states.
  const test::CommandResult one_side = judge(point(4128, false, "1.0,4.0,1.0,1.0,1.0", "1.0,9.0,1.0,1.0,1.0",
                                                   core("defaults", "ccfff") + core("settings", "scfff")) +
                                             point(8192, false, "2.0,2.0", "2.0,2.0", core("defaults", "ff")));
  EXPECT_EQ(one_side.status, 0) << one_side.err;
  EXPECT_THAT(row(one_side.out, "8192"), HasSubstr("<= 1.05        met"));
}

/// `ucx_info -e -u t` as tune_check keeps it: the lanes and the
/// thresholds of tag_send, with the defaults and with the settings.
std::string ucx_info(const std::string& defaults_thresholds, const std::string& settings_thresholds,
                     const std::string& settings_lane = "0:tcp/lo.0 md[0] -> md[0]/tcp/sysdev[255] rma_bw#0 am") {
  return ", \"ucx_info\": {\"defaults\": [\"lane[0]:  0:tcp/lo.0 md[0] -> md[0]/tcp/sysdev[255] rma_bw#0 am\", "
         "\"tag_send: " + defaults_thresholds + "\"], \"settings\": [\"lane[0]:  " + settings_lane +
         "\", \"tag_send: " + settings_thresholds + "\"]}";
}

// UCX over tcp at 188328 B: rendezvous with the defaults (from 20553) and
// with UCX_RNDV_THRESH=94164, on the same lane, as UCX's own report says.
// The settings change nothing there: the 1.222 measures the machine, and
// the check says "same protocol" from UCX's words instead of MISSED.
TEST(TuneCheckJudge, SameProtocolBothWaysIsProvedFromUcxsOwnReport) {
  const std::string defaults = "0..<egr/short>..8185..<egr/zcopy>..20553..<rndv>..(inf)";
  const std::string settings = "0..<egr/short>..8185..<egr/zcopy>..94164..<rndv>..(inf)";
  const std::string runs = "100,100,100,100,100";
  const std::string slower = "122,125,110,130,120";
  const test::CommandResult r = judge(point(188328, false, runs, slower, ucx_info(defaults, settings)));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(row(r.out, "188328"),
              HasSubstr("same protocol (ucx_info -e: tag_send runs <rndv> at 188328 B with the defaults (20553..inf) "
                        "and with the settings (94164..inf), on the same 1 lane(s); the ratio measures the machine: "
                        "it would say MISSED)"));
  EXPECT_THAT(r.out, HasSubstr("0 MISSED, 0 BIMODAL (no verdict), 1 same protocol (no verdict), 0 met"));
  // Without UCX's report, or where it differs, the ratio is judged.
  EXPECT_EQ(judge(point(188328, false, runs, slower)).status, 1);
  const test::CommandResult other_protocol =
      judge(point(188328, false, runs, slower, ucx_info(defaults, "0..<egr/short>..8185..<egr/zcopy>..(inf)")));
  EXPECT_EQ(other_protocol.status, 1) << other_protocol.out;
  EXPECT_THAT(row(other_protocol.out, "188328"), HasSubstr("MISSED"));
  const test::CommandResult other_lane = judge(point(188328, false, runs, slower, ucx_info(defaults, settings,
                                                                                            "0:tcp/eth0.0 md[0] am")));
  EXPECT_EQ(other_lane.status, 1) << other_lane.out;
  // Where the hand-over moved (20553..94163) the settings are judged.
  const test::CommandResult moved = judge(point(32768, true, runs, slower, ucx_info(defaults, settings)));
  EXPECT_EQ(moved.status, 1) << moved.out;
  EXPECT_THAT(row(moved.out, "32768"), HasSubstr("faster         MISSED"));
}

TEST(TuneCheckJudge, BadRunsNameTheFileAndLine) {
  const test::CommandResult r = judge(point(4128, false, "1,1", "1,1") + "{\"size\": 3}\n");
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("tune_check_runs_BadRunsNameTheFileAndLine.jsonl:2: no 'defaults'"));
  const test::CommandResult trips = judge(point(4128, false, "1,1", "1,1", core("defaults", "f")));
  EXPECT_EQ(trips.status, 2);
  EXPECT_THAT(trips.err, HasSubstr(".jsonl:1: defaults_core_ns needs one [before, after] per run"));
  const test::CommandResult info = judge(point(4128, false, "1,1", "1,1", ", \"ucx_info\": {\"defaults\": [], "
                                                                          "\"settings\": []}"));
  EXPECT_EQ(info.status, 2);
  EXPECT_THAT(info.err, HasSubstr(".jsonl:1: ucx_info: 0 tag_send: lines, want 1"));
  const test::CommandResult range = judge(point(4128, false, "1,1", "1,1", ucx_info("0..<egr/short>..93", "0..x")));
  EXPECT_EQ(range.status, 2);
  EXPECT_THAT(range.err, HasSubstr(".jsonl:1: ucx_info: tag_send: '0..<egr/short>..93' does not cover 4128 B"));
}

}  // namespace
}  // namespace xover
