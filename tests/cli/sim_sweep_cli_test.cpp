// xover run in simulation, point by point: each (curve, size) point is
// simulated from time 0 in a process of its own, so its numbers do not
// depend on the points before it, and a sweep shared among mpirun's ranks
// writes the very file a serial run writes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "tests/support/run.hpp"

namespace xover {
namespace {

using ::testing::HasSubstr;

const std::string kXover = XOVER_BINARY;
const std::string kSource = XOVER_SOURCE_DIR;
// Open MPI keeps memory to the end, which LeakSanitizer would report.
const std::string kMpirun = "ASAN_OPTIONS=detect_leaks=0 mpirun --allow-run-as-root --oversubscribe";

std::string slurp(const std::string& file) {
  std::ifstream in(file);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

bool have_mpirun() {
  return test::run_command("command -v mpirun").status == 0;
}

class SweepScenario : public ::testing::TestWithParam<std::string> {
 protected:
  std::string scenario() const { return kSource + "/" + GetParam(); }
  std::string csv(const std::string& tag) const {
    return ::testing::TempDir() + "/sweep-" + tag + "-" + std::filesystem::path(GetParam()).stem().string() + ".csv";
  }
};

// Three ranks share the points; rank 0 alone prints the table and writes
// the same rows, in the same order, with the same numbers, byte for byte.
TEST_P(SweepScenario, ThreeRanksWriteWhatASerialRunWrites) {
  if (!have_mpirun())
    GTEST_SKIP() << "no mpirun (Debian's openmpi-bin)";
  const auto serial = test::run_command(kXover + " run " + scenario() + " --out " + csv("serial"));
  ASSERT_EQ(serial.status, 0) << serial.err;
  const auto shared = test::run_command(kMpirun + " -np 3 " + kXover + " run " + scenario() + " --out " + csv("mpi"));
  ASSERT_EQ(shared.status, 0) << shared.out << shared.err;
  const std::string expected = slurp(csv("serial"));
  EXPECT_GT(expected.size(), 500u);
  EXPECT_EQ(slurp(csv("mpi")), expected);
  // One table, rank 0's: the serial run's but for the results line.
  EXPECT_EQ(shared.out.substr(0, shared.out.rfind("results: ")), serial.out.substr(0, serial.out.rfind("results: ")));
}

INSTANTIATE_TEST_SUITE_P(Scenarios, SweepScenario,
                         ::testing::Values("tests/data/scenarios/sweep.xml", "tests/data/scenarios/alltoall_small.xml"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param.find("alltoall") == std::string::npos ? "pingpong" : "alltoall";
                         });

// The t_median_us, t_p10_us and t_p90_us of each (protocol, size) row.
std::map<std::pair<std::string, std::string>, std::string> times(const std::string& csv) {
  std::map<std::pair<std::string, std::string>, std::string> out;
  const auto rows = test::read_csv(csv);
  for (std::size_t i = 1; i < rows.size(); ++i)
    out[{rows[i][4], rows[i][7]}] = rows[i][9] + "," + rows[i][10] + "," + rows[i][11];
  return out;
}

// A point's numbers do not depend on the points simulated before it: a
// scenario with fewer of sweep.xml's curves and sizes, in another order,
// finds the same.
TEST(Sweep, APointsNumbersDoNotDependOnTheOthers) {
  const std::string subset = ::testing::TempDir() + "/sweep-subset.xml";
  std::ofstream(subset) << "<scenario name=\"subset\" seed=\"3\">\n"
                        << "  <platform file=\"" << kSource
                        << "/platforms/roce-1rail.xml\" from=\"node0\" to=\"node1\"/>\n"
                        << "  <workload kind=\"pingpong\" iterations=\"5\" warmup=\"1\"/>\n"
                        << "  <sizes list=\"8KiB 1MiB\"/>\n"
                        << "  <curves>rndv/get auto</curves>\n"
                        << "</scenario>\n";
  const std::string whole = ::testing::TempDir() + "/sweep-whole.csv";
  const std::string part = ::testing::TempDir() + "/sweep-part.csv";
  ASSERT_EQ(test::run_command(kXover + " run " + kSource + "/tests/data/scenarios/sweep.xml --out " + whole).status, 0);
  const auto r = test::run_command(kXover + " run " + subset + " --out " + part);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto all = times(whole);
  const auto some = times(part);
  ASSERT_EQ(some.size(), 4u);
  for (const auto& [point, t] : some) {
    ASSERT_TRUE(all.count(point)) << point.first << " at " << point.second;
    EXPECT_EQ(t, all.at(point)) << point.first << " at " << point.second;
  }
}

// A scenario wrong for its platform is said once, by rank 0, which exits
// with status 2, and mpirun with it.
TEST(Sweep, BadInputUnderMpirunIsSaidOnce) {
  if (!have_mpirun())
    GTEST_SKIP() << "no mpirun (Debian's openmpi-bin)";
  const std::string file = kSource + "/tests/data/scenarios/bad_unknown_node.xml";
  const auto r = test::run_command(kMpirun + " -np 2 " + kXover + " run " + file + " --out " +
                                   ::testing::TempDir() + "/sweep-bad.csv");
  EXPECT_EQ(r.status, 2) << r.err;
  const std::string said = "xover run: rank 0: " + file + ":4: <platform to=\"node7\">";
  ASSERT_THAT(r.err, HasSubstr(said));
  EXPECT_EQ(r.err.find(said), r.err.rfind(said)) << r.err;
  EXPECT_EQ(r.out, "");
}

}  // namespace
}  // namespace xover
