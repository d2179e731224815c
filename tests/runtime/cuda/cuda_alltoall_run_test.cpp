// The alltoall on a GPU as a user runs it, through the xover command: on
// the cuda backend `xover run` runs the GPU PEs (CudaAlltoall) and writes
// the same results as the CPU alltoall, and `xover calibrate` writes the
// GPU's o_device, o_proxy and W on the platform's nodes, which the
// simulation of the same scenario then prices with, and `xover compare`
// sets it against the GPU run. Without a GPU (or CUDA in the build) both
// commands exit 2 with the backend's reason and write nothing. With one,
// every figure is printed. Built in every build; it needs nothing but the
// xover binary and the source tree's scenarios: where the build tree was
// carried to another machine, the xover beside this test (../tools/xover)
// and the scenario under the working directory (the source tree's root).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "runtime/backends.hpp"
#include "tests/support/run.hpp"

namespace xover {
namespace {

using ::testing::HasSubstr;

/// `built` where it is, else `elsewhere`.
std::string either(const std::string& built, const std::filesystem::path& elsewhere) {
  return std::filesystem::exists(built) ? built : elsewhere.string();
}

const std::string kXover =
    either(XOVER_BINARY, std::filesystem::read_symlink("/proc/self/exe").parent_path().parent_path() / "tools/xover");
const std::string kScenario = either(std::string(XOVER_SOURCE_DIR) + "/tests/data/scenarios/hw_alltoall_p2.xml",
                                     std::filesystem::current_path() / "tests/data/scenarios/hw_alltoall_p2.xml");

/// The CSV's columns (protocols/workload/results.hpp, kCsvHeader).
constexpr std::size_t kProtocol = 4, kSize = 7, kMedian = 9, kErrors = 14, kNotes = 15;

std::string why_not() {
  return runtime::find_backend("cuda")->unavailable();
}

std::string temp_dir() {
  char name[] = "/tmp/xover-cuda-alltoall-XXXXXX";
  return mkdtemp(name) ? name : "/tmp";
}

std::string read_all(const std::string& file) {
  std::stringstream text;
  text << std::ifstream(file).rdbuf();
  return text.str();
}

TEST(CudaAlltoallRun, RunsTheGpuPesOrExitsTwo) {
  const std::string out = temp_dir() + "/gpu.csv";
  const test::CommandResult r = test::run_command(kXover + " run " + kScenario + " --backend cuda --out " + out);
  if (const std::string why = why_not(); !why.empty()) {
    EXPECT_EQ(r.status, 2) << r.out << r.err;
    EXPECT_THAT(r.err, HasSubstr("xover run: backend cuda: " + why));
    EXPECT_FALSE(std::ifstream(out).good()) << "a CSV was written by a run that could not start";
    return;
  }
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  std::cout << r.out;
  const auto rows = test::read_csv(out);
  ASSERT_EQ(rows.size(), 1U + 3 * 3) << "a row per curve and size";
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const std::vector<std::string>& row = rows[i];
    std::cout << "figure: " << row[kProtocol] << " " << row[kSize] << " B: " << row[kMedian] << " us; "
              << row[kNotes] << "\n";
    EXPECT_EQ(row[kErrors], "0") << "row " << i << ": " << row[kNotes];
    EXPECT_GT(std::stod(row[kMedian]), 0) << "row " << i;
    EXPECT_THAT(row[kNotes], HasSubstr("verified=yes"));
    EXPECT_THAT(row[kNotes], HasSubstr("PE 0 measured on the device: o_device "));
    EXPECT_THAT(row[kNotes], HasSubstr("PEs per GPU "));
    if (row[kProtocol] == "coll/alltoall/proxy") {
      EXPECT_THAT(row[kNotes], HasSubstr(", o_proxy "));
    }
  }
}

TEST(CudaAlltoallRun, CalibrateSimulateCompareOrExitTwo) {
  const std::string dir = temp_dir();
  const std::string platform = dir + "/cuda-calibrated.xml";
  const test::CommandResult cal =
      test::run_command(kXover + " calibrate --backend cuda --quick --out " + platform);
  if (const std::string why = why_not(); !why.empty()) {
    EXPECT_EQ(cal.status, 2) << cal.out << cal.err;
    EXPECT_THAT(cal.err, HasSubstr(why));
    EXPECT_FALSE(std::ifstream(platform).good()) << "a platform was written by a calibration that could not start";
    return;
  }
  ASSERT_EQ(cal.status, 0) << cal.out << cal.err;
  std::cout << cal.out;
  const std::string xml = read_all(platform);
  for (const char* key : {"xover:device_o", "xover:proxy_o", "xover:proxy_wake"})
    EXPECT_THAT(xml, HasSubstr(key));

  const std::string gpu = dir + "/gpu.csv";
  const test::CommandResult run = test::run_command(kXover + " run " + kScenario + " --backend cuda --out " + gpu);
  ASSERT_EQ(run.status, 0) << run.out << run.err;
  if (!runtime::find_backend("sim")->compiled_in()) {
    std::cout << "figure: no simulator in this build: simulate " << kScenario << " --platform " << platform
              << " and compare with " << gpu << " where one is\n";
    return;
  }
  const std::string sim = dir + "/sim.csv";
  const test::CommandResult simulated =
      test::run_command(kXover + " run " + kScenario + " --platform " + platform + " --out " + sim);
  ASSERT_EQ(simulated.status, 0) << simulated.out << simulated.err;
  const test::CommandResult compared = test::run_command(kXover + " compare " + sim + " " + gpu);
  EXPECT_EQ(compared.status, 0) << compared.out << compared.err;
  std::cout << compared.out;
}

}  // namespace
}  // namespace xover
