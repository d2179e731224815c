// xover plot and xover run --plot as a user runs them: PNG and SVG files
// with their formats' signatures, a simulated and a hardware run overlaid
// (read back from the SVG's text), and exit status 2 naming the file for
// bad input. Skips, saying so, where Debian's python3-matplotlib is missing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/run.hpp"

namespace xover {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

const std::string kXover = XOVER_BINARY;
const std::string kSource = XOVER_SOURCE_DIR;
const std::string kData = kSource + "/tests/data/results/";

std::string slurp(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

class PlotCli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!test::python_imports(XOVER_PYTHON, "matplotlib"))
      GTEST_SKIP() << XOVER_PYTHON << " cannot import matplotlib: install python3-matplotlib (tools/setup.sh)";
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  // One directory per test: CTest runs the tests of this file at once, and
  // one's SetUp must not empty another's directory.
  const std::string dir_ =
      ::testing::TempDir() + "/xover-plot-cli-" + ::testing::UnitTest::GetInstance()->current_test_info()->name();
};

TEST_F(PlotCli, WritesPng) {
  const std::string out = dir_ + "/sim.png";
  const auto r = test::run_command(kXover + " plot " + kData + "sim.csv -o " + out);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "plot: " + out + "\n");
  const std::string png = slurp(out);
  EXPECT_THAT(png, StartsWith("\x89PNG\r\n\x1a\n"));
  EXPECT_GT(png.size(), 10000u);
}

TEST_F(PlotCli, OverlaysSimulationAndHardwareInSvg) {
  const std::string out = dir_ + "/both.svg";
  const auto r = test::run_command(kXover + " plot " + kData + "sim.csv " + kData + "hw.csv -o " + out);
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string svg = slurp(out);
  EXPECT_THAT(svg, StartsWith("<?xml"));
  EXPECT_THAT(svg, HasSubstr("<svg"));
  // The title, both runs in the legend, every protocol, sizes as people
  // write them, each run's hand-over and crossover.
  EXPECT_THAT(svg, HasSubstr("golden: pingpong"));
  EXPECT_THAT(svg, HasSubstr("simulation on p.xml"));
  EXPECT_THAT(svg, HasSubstr("shm on host"));
  for (const char* label : {">auto<", ">eager/zcopy<", ">rndv/get<", ">eager/bcopy<", ">1K<", ">16K<"})
    EXPECT_THAT(svg, HasSubstr(label));
  EXPECT_THAT(svg, HasSubstr("sim: auto → rndv/get"));
  EXPECT_THAT(svg, HasSubstr("shm: auto → rndv/get"));
  EXPECT_THAT(svg, HasSubstr("sim: 4.59K"));  // 4096·2^0.2 B
  EXPECT_THAT(svg, HasSubstr("shm: 2.83K"));  // 2048·√2 B
}

// A hardware run whose CSV has the median's confidence interval is drawn
// in its band (a shaded area, alpha 0.12); one without has none.
TEST_F(PlotCli, DrawsTheHardwaresConfidenceBand) {
  const std::string with = dir_ + "/with.svg";
  const std::string without = dir_ + "/without.svg";
  ASSERT_EQ(test::run_command(kXover + " plot " + kData + "hw_with_interval.csv -o " + with).status, 0);
  ASSERT_EQ(test::run_command(kXover + " plot " + kData + "hw.csv -o " + without).status, 0);
  EXPECT_THAT(slurp(with), HasSubstr("fill-opacity: 0.12"));
  EXPECT_THAT(slurp(without), Not(HasSubstr("fill-opacity: 0.12")));
}

TEST_F(PlotCli, RunPlotsAfterTheCsv) {
#ifndef XOVER_WITH_SIMGRID
  GTEST_SKIP() << "this build has no simulator (XOVER_WITH_SIMGRID=OFF)";
#endif
  const std::string csv = dir_ + "/run.csv";
  const std::string png = dir_ + "/run.png";
  const auto r = test::run_command(kXover + " run " + kSource + "/tests/data/scenarios/minimal.xml --out " + csv +
                                   " --plot " + png);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("results: " + csv + "\nplot: " + png + "\n"));
  EXPECT_THAT(slurp(png), StartsWith("\x89PNG"));
}

// Bad input is found before python3 runs: no matplotlib needed.
TEST(PlotCliBadInput, ExitsTwoNamingTheFile) {
  const std::string dir_ = ::testing::TempDir() + "/xover-plot-cli-bad";
  std::filesystem::create_directories(dir_);
  const std::string out = dir_ + "/bad.png";
  const auto missing = test::run_command(kXover + " plot no-such.csv -o " + out);
  EXPECT_EQ(missing.status, 2);
  EXPECT_EQ(missing.err, "xover plot: no-such.csv: cannot open (no such file, or not readable)\n");
  const auto malformed = test::run_command(kXover + " plot " + kData + "malformed.csv -o " + out);
  EXPECT_EQ(malformed.status, 2);
  EXPECT_EQ(malformed.err,
            "xover plot: " + kData + "malformed.csv:3: t_median_us 'slow' is not a non-negative number\n");
  const auto other = test::run_command(kXover + " plot " + kData + "sim.csv " + kData + "other_scenario.csv -o " + out);
  EXPECT_EQ(other.status, 2);
  EXPECT_THAT(other.err, HasSubstr("other_scenario.csv holds other (pingpong)"));
  const auto extension = test::run_command(kXover + " plot " + kData + "sim.csv -o " + dir_ + "/plot.pdf");
  EXPECT_EQ(extension.status, 2);
  EXPECT_EQ(extension.err,
            "xover plot: " + dir_ + "/plot.pdf: a plot is written as .png or .svg, by its name's extension\n");
  EXPECT_EQ(test::run_command(kXover + " plot " + kData + "sim.csv").status, 2);
  EXPECT_EQ(test::run_command(kXover + " plot -o " + out).status, 2);
  EXPECT_FALSE(std::filesystem::exists(out));
  // xover run checks --plot before it runs anything.
  const auto run = test::run_command(kXover + " run " + kSource + "/tests/data/scenarios/minimal.xml --out " + dir_ +
                                     "/x.csv --plot " + dir_ + "/x.jpg");
  EXPECT_EQ(run.status, 2);
  EXPECT_EQ(run.out, "");
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/x.csv"));
}

}  // namespace
}  // namespace xover
