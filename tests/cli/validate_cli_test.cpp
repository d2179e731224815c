// xover validate as a user runs it: bad input exits 2 with what was wrong
// before anything runs; a short shared-memory validation on a given
// platform writes its files, prints the JSON it promises, and exits 0 when
// the verdict holds and 1 when it does not; a scenario of in-sample curves
// alone exits 3 (INCONCLUSIVE), never PASS.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/support/run.hpp"

namespace xover {
namespace {

using ::testing::HasSubstr;

const std::string kXover = XOVER_BINARY;
const std::string kSource = XOVER_SOURCE_DIR;
const std::string kSmall = kSource + "/tests/data/scenarios/validate_small.xml";
const std::string kPlatform = kSource + "/platforms/shm-calibrated.xml";

TEST(ValidateCli, BadInputExitsTwoWithAMessage) {
  struct Case {
    std::string args, message;
  };
  const std::string dir = ::testing::TempDir() + "/validate-bad";
  for (const Case& c : std::vector<Case>{
           {"", "no --backend given"},
           {kSmall + " --backend shm --suite " + kSource + "/scenarios/validate/suite.txt", "not both"},
           {"--backend shm --suite /no/such-suite.txt", "/no/such-suite.txt: cannot read the suite"},
           {"--backend shm --suite " + kSource + "/tests/data/validate_bad_suite.txt",
            "case validate_small: --tcp-conns is not an option of backend shm"},
           {kSmall, "no --backend given"},
           {"/no/such.xml --backend shm", "/no/such.xml"},
           {kSource + "/tests/data/scenarios/bad_unit.xml --backend shm", "bad_unit.xml:5: bad to=\"4MBq\""},
           {kSmall + " --backend nosuch", "unknown backend 'nosuch'"},
           {kSmall + " --backend sim", "backend sim is the simulator"},
           {kSmall + " --backend shm --runs 1", "--runs must be at least 2"},
           {kSmall + " --backend shm --max-median-error -1", "non-negative percentages"},
           {kSmall + " --backend shm --max-worst-error nan", "non-negative percentages"},
           {kSmall + " --backend shm --max-threshold-factor 0.5",
            "--max-threshold-factor must be a number of at least 1"},
           {kSmall + " --backend shm --platform /no/such-platform.xml",
            "--platform /no/such-platform.xml: no such file"},
           {kSmall + " --backend shm --rounds 0", "--rounds must be at least 1"},
           {kSmall + " --backend shm --time-limit 30", "unrecognised option"},
           {kSmall + " --backend shm --frobnicate", "unrecognised option"},
       }) {
    const test::CommandResult r = test::run_command(kXover + " validate " + c.args + " --out-dir " + dir);
    EXPECT_EQ(r.status, 2) << c.args << "\n" << r.out << r.err;
    EXPECT_THAT(r.err, HasSubstr(c.message)) << c.args;
  }
  EXPECT_FALSE(std::filesystem::exists(dir + "/hw-1.csv"));
  const test::CommandResult r =
      test::run_command(kXover + " validate " + kSmall + " --backend shm --out-dir /proc/no-dir");
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("--out-dir /proc/no-dir: cannot create the directory"));
}

TEST(ValidateCli, ShortShmRunGivesTheJsonAndTheVerdictsExitStatus) {
  const std::string dir = ::testing::TempDir() + "/validate-small";
  const std::string run = kXover + " validate " + kSmall + " --backend shm --platform " + kPlatform +
                          " --runs 2 --rounds 2 --out-dir " + dir;
  // Limits no run can miss: the verdict holds, exit 0.
  const test::CommandResult pass =
      test::run_command(run + " --json --max-median-error 1e6 --max-worst-error 1e6 > " + dir + ".json");
  ASSERT_EQ(pass.status, 0) << pass.err;
  for (const char* file : {"hw-1.csv", "hw-2.csv", "sim.csv", "hw-1.log", "sim.log"})
    EXPECT_TRUE(std::filesystem::exists(dir + "/" + file)) << file;
  const test::CommandResult shape = test::run_command(
      "python3 -c 'import json,sys; d=json.load(open(sys.argv[1]));"
      " assert d[\"scenario\"] == \"validate-small\" and d[\"backend\"] == \"shm\" and not d[\"calibrated\"];"
      " assert len(d[\"runs\"]) == 2 and d[\"sim\"].endswith(\"sim.csv\");"
      " assert d[\"limits\"] == {\"max_median_error\": 1e4, \"max_worst_error\": 1e4, \"max_threshold_factor\": 1.25};"
      " c = d[\"curves\"]; assert [x[\"protocol\"] for x in c] == [\"eager\"] and c[0][\"matched\"] == 4;"
      " assert all(k in c[0] for k in (\"median\", \"worst\", \"worst_rel\", \"worst_size\", \"hw_median\", "
      "\"hw_worst\", \"steady\", \"steady_median\", \"steady_worst\", \"steady_worst_size\", \"within\"));"
      " assert d[\"crossovers\"] == [] and \"sim\" in d[\"handovers\"] and \"hw\" in d[\"handovers\"];"
      " assert d[\"ucx\"] is None or \"v2_rows\" in d[\"ucx\"];"
      " assert d[\"load\"][\"cores\"] >= 1 and d[\"load\"][\"before\"] >= 0 and d[\"load\"][\"after\"] >= 0;"
      " assert c[0][\"fit\"] == \"held-out\" and d[\"verdict\"] == \"PASS\" and d[\"inconclusive\"] == [];"
      " assert d[\"passed\"] is True and d[\"misses\"] == []' " +
      dir + ".json");
  EXPECT_EQ(shape.status, 0) << shape.out << shape.err;

  // A worst-error limit of 0 %: no simulation matches the hardware that
  // closely, exit 1 (the median limit wide, so that the runs are one
  // machine state on any machine).
  const test::CommandResult fail = test::run_command(run + " --max-median-error 1e6 --max-worst-error 0");
  EXPECT_EQ(fail.status, 1) << fail.out << fail.err;
  EXPECT_THAT(fail.out, HasSubstr("eager: worst |sim - hw| / hw "));
  EXPECT_THAT(fail.out, HasSubstr("held-out"));
  EXPECT_THAT(fail.out, HasSubstr("verdict: FAIL"));
  EXPECT_THAT(fail.out, HasSubstr("hw vs hw: median"));
  EXPECT_THAT(fail.out, HasSubstr("# machine load (1-minute average): "));
}

// The platform's fit set holds the ping-pong's curves: a scenario of
// nothing else predicts nothing, whatever the errors, and says so.
TEST(ValidateCli, OnlyInSampleCurvesAreInconclusiveNotPass) {
  const std::string dir = ::testing::TempDir() + "/validate-in-sample";
  const test::CommandResult r =
      test::run_command(kXover + " validate " + kSource + "/tests/data/scenarios/validate_in_sample.xml" +
                        " --backend shm --platform " + kPlatform + " --runs 2 --rounds 1 --max-median-error 1e6 " +
                        "--max-worst-error 1e6 --out-dir " + dir);
  EXPECT_EQ(r.status, 3) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("in-sample not judged"));
  EXPECT_THAT(r.out, HasSubstr("verdict: INCONCLUSIVE: "));
  EXPECT_THAT(r.out, HasSubstr("every curve is in the platform's fit set: nothing here was predicted"));
}

}  // namespace
}  // namespace xover
