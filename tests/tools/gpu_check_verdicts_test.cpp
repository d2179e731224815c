// tools/gpu_check_verdicts.py, the judgement of tools/gpu-check.sh, on
// the files a GPU run would leave: a good run passes every criterion, and
// each fault fails its own criterion and no other. No GPU needed: the
// files are written here (the script has never seen a real run).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <tuple>

#include <unistd.h>

#include "tests/support/run.hpp"

namespace xover {
namespace {

namespace fs = std::filesystem;

const std::string kScript = std::string(XOVER_SOURCE_DIR) + "/tools/gpu_check_verdicts.py";
const std::string kDirect = "coll/alltoall/direct";
const std::string kProxy = "coll/alltoall/proxy";

/// What a run measured, to be written as gpu-check.sh's files.
struct GpuRun {
  std::string tests_log = "== cuda_pe_group_test\n[  PASSED  ] 12 tests.\n";
  /// gpu_pe_matrix: time_us by (P, size, width); errors by the same.
  std::map<std::tuple<int, long, std::string>, double> pe_time;
  std::map<std::tuple<int, long, std::string>, int> pe_errors;
  /// The IPC path: measured and simulated us by (P, protocol, size).
  std::map<std::tuple<int, std::string, long>, double> gpu, sim;

  GpuRun() {
    for (int pes : {2, 4, 8, 16, 32})
      for (long size : {8L, 13L, 4096L, 65536L, 1L << 20})
        for (const char* w : {"thread", "warp", "block", "auto"}) {
          const bool big = size == 1L << 20;
          pe_time[{pes, size, w}] = big && std::string(w) == "thread" ? 40000.0 : big ? 150.0 : 20.0;
          pe_errors[{pes, size, w}] = 0;
        }
    for (int pes : {2, 4, 8, 16})
      for (long size : {8L, 4096L, 65536L, 1L << 20}) {
        gpu[{pes, kDirect, size}] = 10.0 + size / 1e4;
        gpu[{pes, kProxy, size}] = 30.0 + size / 2e4;
        sim[{pes, kDirect, size}] = 1.1 * gpu[{pes, kDirect, size}];
        sim[{pes, kProxy, size}] = 0.9 * gpu[{pes, kProxy, size}];
      }
  }

  void write(const fs::path& dir) const {
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream(dir / "status.txt") << "tests 0\npe-matrix 0\ncalibrate 0\n";
    std::ofstream(dir / "tests.log") << tests_log;
    std::ofstream pe(dir / "pe-matrix.json");
    pe << "{\"points\": [";
    const char* comma = "";
    for (const auto& [key, t] : pe_time) {
      const auto& [pes, size, width] = key;
      pe << comma << "{\"pes\": " << pes << ", \"size\": " << size << ", \"width\": \"" << width
         << "\", \"copied_by\": \"" << width << "\", \"blocks_per_pe\": 1, \"threads\": 256, \"exchanges\": 20"
         << ", \"time_us\": " << t << ", \"span_us\": " << t << ", \"post_us\": 1, \"stored_gbps\": 1"
         << ", \"errors\": " << pe_errors.at(key) << ", \"problems\": []}";
      comma = ", ";
    }
    pe << "], \"refused\": []}\n";
    for (int pes : {2, 4, 8, 16}) {
      std::ofstream g(dir / ("gpu-p" + std::to_string(pes) + ".csv"));
      std::ofstream s(dir / ("sim-p" + std::to_string(pes) + ".csv"));
      g << "protocol,size,t_median_us,errors\n";
      s << "protocol,size,t_median_us,errors\n";
      for (const auto& [key, t] : gpu)
        if (std::get<0>(key) == pes) {
          g << std::get<1>(key) << "," << std::get<2>(key) << "," << t << ",0\n";
          s << std::get<1>(key) << "," << std::get<2>(key) << "," << sim.at(key) << ",0\n";
        }
    }
  }
};

fs::path scratch() {
  return fs::path(test::temp_dir()) / ("gpu-check-verdicts-" + std::to_string(::getpid()));
}

/// Runs the script on `run`'s files in `dir` (`options` before the folder);
/// the exit status and what it printed.
test::CommandResult judge(const GpuRun& run, const fs::path& dir, const std::string& options) {
  run.write(dir);
  return test::run_command("python3 " + kScript + " " + options + dir.string());
}

/// A good run's verdicts, JSON and, where python3 has matplotlib, both plots.
TEST(GpuCheckVerdicts, AGoodRunPassesEveryCriterion) {
  const fs::path dir = scratch();
  const test::CommandResult r = judge(GpuRun{}, dir, "");
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  for (const char* criterion : {"bytes", "p4-8B", "block", "predicted"})
    EXPECT_NE(r.out.find(std::string("PASS ") + criterion + ":"), std::string::npos) << criterion << "\n" << r.out;
  EXPECT_TRUE(fs::exists(dir / "gpu-check.json"));
  if (test::python_imports("python3", "matplotlib")) {
    EXPECT_TRUE(fs::exists(dir / "gpu-check.png")) << r.out << r.err;
    EXPECT_TRUE(fs::exists(dir / "gpu-check-pe.png")) << r.out << r.err;
  }
  fs::remove_all(dir);
}

/// A fault: what it changes, and the one criterion it must fail.
struct Fault {
  std::string name;
  std::string fails;
  std::function<void(GpuRun&)> apply;
};

class GpuCheckFault : public ::testing::TestWithParam<Fault> {};

TEST_P(GpuCheckFault, FailsItsOwnCriterionAndNoOther) {
  GpuRun run;
  GetParam().apply(run);
  const test::CommandResult r = judge(run, scratch(), "--no-plot ");
  fs::remove_all(scratch());
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  for (const char* criterion : {"bytes", "p4-8B", "block", "predicted"}) {
    const std::string verdict = (GetParam().fails == criterion ? "FAIL " : "PASS ") + std::string(criterion) + ":";
    EXPECT_NE(r.out.find(verdict), std::string::npos) << verdict << "\n" << r.out;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Faults, GpuCheckFault,
    ::testing::Values(
        Fault{"SkippedTest", "bytes",
              [](GpuRun& r) { r.tests_log += "[  SKIPPED ] Pes/CudaAlltoallTest.EveryByte/pes2\n"; }},
        Fault{"WrongBytesInOnePoint", "bytes", [](GpuRun& r) { r.pe_errors[{8, 4096, "warp"}] = 1; }},
        Fault{"MillisecondsAtP4", "p4-8B", [](GpuRun& r) { r.pe_time[{4, 8, "auto"}] = 2400; }},
        Fault{"BlockOnlyFiftyTimesFaster", "block", [](GpuRun& r) { r.pe_time[{8, 1L << 20, "block"}] = 800; }},
        Fault{"SimulationThirtyPercentOff", "predicted",
              [](GpuRun& r) { r.sim[{4, kProxy, 65536}] = 1.3 * r.gpu[{4, kProxy, 65536}]; }},
        Fault{"SimulationPicksTheOtherFlavour", "predicted",
              [](GpuRun& r) {
                r.gpu[{2, kDirect, 4096}] = 100;
                r.gpu[{2, kProxy, 4096}] = 110;
                r.sim[{2, kDirect, 4096}] = 115;
                r.sim[{2, kProxy, 4096}] = 105;
              }}),
    [](const ::testing::TestParamInfo<Fault>& info) { return info.param.name; });

TEST(GpuCheckVerdicts, NoFolderIsBadUse) {
  const test::CommandResult r = test::run_command("python3 " + kScript + " /nonexistent-gpu-check-folder");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("usage"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace xover
