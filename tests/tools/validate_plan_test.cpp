// xover validate's plan and its rounds' verdict (tools/validate_plan.hpp):
// the budget per backend, calibration and validation alternating round by
// round, the rounds grouped into machine states by their calibrations, a
// round whose ping-pong drifted from its own calibration left out, a state
// judged only on two agreeing rounds, and what the suite's report says of
// them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "protocols/workload/results.hpp"
#include "tools/compare.hpp"
#include "tools/validate_plan.hpp"
#include "tools/validate_report.hpp"

namespace xover::tools {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

/// A ping-pong results file of eager and rndv/get at 1, 4 and 16 KiB, every
/// time `scale` times a fixed curve: a calibration's sweeps or a round's
/// ping-pong run.
ResultsFile pingpong(const std::string& name, double scale) {
  std::string text = std::string(kCsvHeader) + "\n";
  const Bytes sizes[] = {1024, 4096, 16384};
  const double eager[] = {1, 2, 6}, get[] = {3, 3.5, 5};
  for (const auto& [curve, times] : {std::pair{"eager", eager}, std::pair{"rndv/get", get}})
    for (std::size_t i = 0; i < 3; ++i) {
      const double t = times[i] * scale;
      std::ostringstream row;
      row << "s,shm,p,pingpong," << curve << "," << curve << ",r0:1," << sizes[i] << ",10," << t << "," << t << ","
          << t << ",1,,0,," << t << "," << t << "\n";
      text += row.str();
    }
  std::istringstream in(text);
  return read_results_csv(in, name);
}

TEST(ValidatePlan, TheBudgetIsTwoMinutesOnShmAndFourOnTcp) {
  EXPECT_EQ(validate_budget("shm"), 120);
  EXPECT_EQ(validate_budget("tcp"), 240);
  EXPECT_EQ(validate_budget("verbs"), 0);
}

TEST(ValidatePlan, EachRoundCalibratesThenRunsEveryCase) {
  EXPECT_THAT(interleaved_steps(2, 2, true),
              ElementsAre(MeasureStep{true, 0, 0}, MeasureStep{false, 0, 0}, MeasureStep{false, 0, 1},
                          MeasureStep{true, 1, 0}, MeasureStep{false, 1, 0}, MeasureStep{false, 1, 1}));
  // On a platform given, the rounds are the cases alone.
  EXPECT_THAT(interleaved_steps(2, 1, false), ElementsAre(MeasureStep{false, 0, 0}, MeasureStep{false, 1, 0}));
}

TEST(ValidatePlan, RoundsOfOneStateAreJudgedTogether) {
  const RoundsVerdict v = judge_rounds({pingpong("c1", 1), pingpong("c2", 1.02), pingpong("c3", 0.99)},
                                       {pingpong("p1", 1.01), pingpong("p2", 1.0), pingpong("p3", 1.03)}, {});
  ASSERT_EQ(v.states.size(), 1u);
  EXPECT_THAT(v.states[0].rounds, ElementsAre(0, 1, 2));
  EXPECT_THAT(v.states[0].coherent, ElementsAre(0, 1, 2));
  EXPECT_THAT(v.judged(), ElementsAre(0));
  EXPECT_NEAR(v.drift[0], 0.01 / 1.01, 1e-9);
}

TEST(ValidatePlan, ABimodalMachineIsJudgedPerStateOnTwoRoundsOfIt) {
  // Rounds 1 and 3 fast, round 2 slow: each round's ping-pong agrees with
  // its own calibration, so each state has its own platform.
  const RoundsVerdict v = judge_rounds({pingpong("c1", 1), pingpong("c2", 2), pingpong("c3", 1)},
                                       {pingpong("p1", 1), pingpong("p2", 2), pingpong("p3", 1.02)}, {});
  ASSERT_EQ(v.states.size(), 2u);
  // Slowest first.
  EXPECT_THAT(v.states[0].rounds, ElementsAre(1));
  EXPECT_FALSE(v.states[0].judged);
  EXPECT_THAT(v.states[0].reason, HasSubstr("a verdict needs two"));
  EXPECT_THAT(v.states[1].rounds, ElementsAre(0, 2));
  EXPECT_TRUE(v.states[1].judged);
  EXPECT_THAT(v.judged(), ElementsAre(1));
}

TEST(ValidatePlan, ARoundWhoseMachineChangedAfterItsCalibrationIsLeftOut) {
  // Round 2's ping-pong runs 50 % slower than its own calibration found
  // the machine: its runs are not judged, rounds 1 and 3 are.
  const RoundsVerdict v = judge_rounds({pingpong("c1", 1), pingpong("c2", 1), pingpong("c3", 1)},
                                       {pingpong("p1", 1), pingpong("p2", 1.5), pingpong("p3", 1)}, {});
  ASSERT_EQ(v.states.size(), 1u);
  EXPECT_NEAR(v.drift[1], 0.5 / 1.5, 1e-9);
  EXPECT_THAT(v.states[0].coherent, ElementsAre(0, 2));
  EXPECT_TRUE(v.states[0].judged);
}

TEST(ValidatePlan, NoStateWithTwoAgreeingRoundsIsJudgedNowhere) {
  const RoundsVerdict v = judge_rounds({pingpong("c1", 1), pingpong("c2", 2), pingpong("c3", 4)},
                                       {pingpong("p1", 1), pingpong("p2", 2), pingpong("p3", 4)}, {});
  EXPECT_EQ(v.states.size(), 3u);
  EXPECT_THAT(v.judged(), IsEmpty());
  for (const RoundState& s : v.states)
    EXPECT_THAT(s.reason, HasSubstr("1 of them found the machine as their own calibration did"));
}

TEST(ValidatePlan, WithoutAPingPongTheDriftIsUnmeasuredAndTakenAsAgreeing) {
  const RoundsVerdict v = judge_rounds({pingpong("c1", 1), pingpong("c2", 1)}, {}, {});
  EXPECT_THAT(v.drift, ElementsAre(-1, -1));
  EXPECT_THAT(v.judged(), ElementsAre(0));
  EXPECT_THROW(judge_rounds({pingpong("c1", 1)}, {pingpong("p1", 1), pingpong("p2", 1)}, {}), CompareError);
  EXPECT_THROW(judge_rounds({}, {}, {}), CompareError);
}

TEST(ValidatePlan, ACalibrationThatMissesItsOwnWorkloadLeavesNothingToJudge) {
  // The ping-pong simulated 40 times too slow on a calibration's platform
  // (a quick calibration on a loaded machine fitted L = 290 us): the fit
  // failed, and no held-out miss on that platform is the model's.
  const std::vector<ResultsFile> hw{pingpong("a", 1), pingpong("b", 1.01)};
  const Validation broken = validate_results(pingpong("sim", 40), hw, {}, {{"eager", "rndv/get"}, {}});
  const std::optional<std::string> why = fit_unmet(broken, {});
  ASSERT_TRUE(why);
  EXPECT_THAT(*why, HasSubstr("the calibration does not meet the workload it was fitted to"));
  EXPECT_THAT(*why, HasSubstr("eager 3880.1 %"));
  // Within the worst-error limit in median: a fit, if not a close one.
  EXPECT_FALSE(fit_unmet(validate_results(pingpong("sim", 1.2), hw, {}, {{"eager", "rndv/get"}, {}}), {}));
  // A held-out curve's error is the model's, never the calibration's.
  EXPECT_FALSE(fit_unmet(validate_results(pingpong("sim", 40), hw, {}, {{}, {}}), {}));
}

TEST(ValidatePlan, TheSuiteReportSaysTheRoundsStatesAndTheBudget) {
  SuiteReport r;
  r.suite = "suite.txt";
  r.backend = "shm";
  r.platform = "platform-1.xml";
  r.calibrated = true;
  r.calibrations = 3;
  r.seconds = 130;
  r.measured_seconds = 110;
  r.budget = 120;
  const RoundsVerdict v = judge_rounds({pingpong("c1", 1), pingpong("c2", 2), pingpong("c3", 1)},
                                       {pingpong("p1", 1), pingpong("p2", 2), pingpong("p3", 1)}, {});
  r.drift = v.drift;
  r.states = v.states;
  std::ostringstream text;
  print_suite_text(text, r);
  EXPECT_THAT(text.str(), HasSubstr("drift from its own calibration: 1: 0.0 %, 2: 0.0 %, 3: 0.0 %"));
  EXPECT_THAT(text.str(), HasSubstr("machine state 1 of 2 (slowest first): rounds 2; not judged"));
  EXPECT_THAT(text.str(), HasSubstr("rounds 1, 3; judged on rounds 1, 3, simulated on round 1's calibration"));
  EXPECT_THAT(text.str(), HasSubstr("130 s in all (110 s measuring), budget 120 s: OVER the budget"));
  std::ostringstream json;
  print_suite_json(json, r);
  EXPECT_THAT(json.str(), HasSubstr("\"round_states\":[{\"rounds\":[2],\"judged_rounds\":[]"));
}

}  // namespace
}  // namespace xover::tools
