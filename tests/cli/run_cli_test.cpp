// xover run and xover crossover as a user runs them: the results CSV, the
// table, the crossover against the thresholds table, and exit status 2 with
// file:line for bad scenario files.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "tests/support/run.hpp"

namespace xover {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

const std::string kXover = XOVER_BINARY;
const std::string kSource = XOVER_SOURCE_DIR;

TEST(RunCli, DefaultScenarioWritesTheResultsCsv) {
  const std::string out = ::testing::TempDir() + "/eager-vs-rndv.csv";
  const auto r = test::run_command(kXover + " run " + kSource + "/scenarios/eager-vs-rndv.xml --out " + out);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("eager-vs-rndv: pingpong in simulation"));
  const auto rows = test::read_csv(out);
  ASSERT_GT(rows.size(), 40u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"scenario", "backend", "platform", "workload", "protocol", "selected",
                                                "lanes", "size", "iterations", "t_median_us", "t_p10_us", "t_p90_us",
                                                "bandwidth_MBps", "model_us", "errors", "notes", "t_ci_lo_us",
                                                "t_ci_hi_us"}));
  std::set<std::string> auto_selected;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    ASSERT_EQ(rows[i].size(), 18u);
    EXPECT_EQ(rows[i][1], "sim");
    EXPECT_EQ(rows[i][14], "0") << "corrupt or missing messages in row " << i;
    EXPECT_EQ(rows[i][8], "20");
    if (rows[i][4] == "auto")
      auto_selected.insert(rows[i][5]);
    else
      EXPECT_EQ(rows[i][4], rows[i][5]);
  }
  // One rail: short, then zcopy, multi-eager and rendezvous as sizes grow.
  EXPECT_TRUE(auto_selected.count("eager/short"));
  EXPECT_TRUE(auto_selected.count("eager/multi/zcopy"));
  EXPECT_TRUE(auto_selected.count("rndv/get"));
}

// Phantom payloads carry sizes without bytes: a stream of gibibyte
// messages runs (over both HDR rails, about 48 GB/s) without allocating them.
TEST(RunCli, PhantomPayloadsRunGibibyteMessages) {
  const std::string out = ::testing::TempDir() + "/phantom.csv";
  const auto r = test::run_command(kXover + " run " + kSource + "/tests/data/scenarios/phantom_big.xml --out " + out);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto rows = test::read_csv(out);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[2][7], "1073741824");
  EXPECT_EQ(rows[2][5], "rndv/get");
  EXPECT_EQ(rows[2][14], "0");
  const double mbps = std::stod(rows[2][12]);
  EXPECT_GT(mbps, 47000);
  EXPECT_LT(mbps, 48000);
}

// An alltoall scenario, put by put over the Transport (P = 8) and on the
// batched path (batch="3"): every curve at every size, the exchange's time
// equal to the closed form on the contention-free star (model_us), the
// bandwidth (P − 1)·n over it, no put lost, and the notes saying whether
// the bytes were checked.
TEST(RunCli, AlltoallPutByPutAndBatched) {
  for (const auto& [name, notes] : {std::pair<std::string, std::string>{"alltoall_small", "verified=yes; simulated put by put over the Transport"},
                                    {"alltoall_batched", "verified=no; batched path, 3 puts per transfer"}}) {
    const std::string scenario = kSource + "/tests/data/scenarios/" + name + ".xml";
    const std::string out = ::testing::TempDir() + "/" + name + ".csv";
    const auto r = test::run_command(kXover + " run " + scenario + " --out " + out);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("alltoall in simulation"));
    EXPECT_THAT(r.out, HasSubstr("median time per exchange in us"));
    const auto rows = test::read_csv(out);
    ASSERT_EQ(rows.size(), 1u + 3 * 3);
    for (std::size_t i = 1; i < rows.size(); ++i) {
      EXPECT_EQ(rows[i][3], "alltoall");
      EXPECT_EQ(rows[i][14], "0");
      EXPECT_EQ(rows[i][15], notes) << name << " row " << i;
      const double t = std::stod(rows[i][9]);
      EXPECT_NEAR(t, std::stod(rows[i][13]), 1e-5 * t) << name << " row " << i;
      const double mbps = 7 * std::stod(rows[i][7]) / t;  // B/us = MB/s
      EXPECT_NEAR(std::stod(rows[i][12]), mbps, 1e-5 * mbps) << name << " row " << i;
    }
    EXPECT_EQ(rows[1][5], "coll/alltoall/direct");
  }
}

// eager/zcopy against rndv/get on one rail with no rendezvous bias: the
// bisection on simulated times lands on the thresholds table's hand-over.
TEST(CrossoverCli, LandsOnTheProtoInfoThreshold) {
  const std::string scenario = kSource + "/tests/data/scenarios/crossover_exact.xml";
  const auto r = test::run_command(kXover + " crossover " + scenario +
                                   " --between eager/zcopy,rndv/get --json | python3 -c 'import json,sys; d=json.load("
                                   "sys.stdin); print(d[\"size\"], d[\"threshold\"])'");
  ASSERT_EQ(r.status, 0) << r.err;
  long long size = 0;
  long long threshold = 0;
  std::istringstream(r.out) >> size >> threshold;
  const auto info = test::run_command(kXover + " proto-info --platform " + kSource +
                                      "/tests/data/platforms/one_rail_big_segment.xml --set proto=eager/zcopy,rndv/get "
                                      "--set rndv_perf_diff=0 --json | python3 -c 'import json,sys; d=json.load("
                                      "sys.stdin); print(d[\"ranges\"][1][\"from\"])'");
  ASSERT_EQ(info.status, 0) << info.err;
  const long long table = std::stoll(info.out);
  EXPECT_GT(size, 1024);
  EXPECT_LE(std::llabs(size - table), 1) << "simulated " << size << ", proto-info " << table;
  EXPECT_EQ(threshold, table);
}

struct BadScenario {
  std::string file;
  std::string message;
};

void PrintTo(const BadScenario& b, std::ostream* os) {
  *os << b.file;
}

class RunBadScenario : public ::testing::TestWithParam<BadScenario> {};

TEST_P(RunBadScenario, ExitsWithStatusTwoAndTheLine) {
  const std::string file = kSource + "/tests/data/scenarios/" + GetParam().file;
  const auto r = test::run_command(kXover + " run " + file + " --out " + ::testing::TempDir() + "/bad.csv");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_THAT(r.err, StartsWith("xover run: " + file + GetParam().message));
  EXPECT_EQ(r.out, "");
}

INSTANTIATE_TEST_SUITE_P(
    Files, RunBadScenario,
    ::testing::Values(BadScenario{"bad_syntax.xml", ":5: malformed XML"},
                      BadScenario{"bad_unknown_element.xml", ":6: unknown element <sizez>"},
                      BadScenario{"bad_attribute.xml", ":4: unknown attribute 'iteratons' on <workload>"},
                      BadScenario{"bad_unit.xml", ":5: "},
                      BadScenario{"bad_protocol.xml", ":6: unknown protocol 'eager/zcpy'"},
                      BadScenario{"bad_missing_platform.xml", ":4: platform file"},
                      BadScenario{"bad_from_after_to.xml", ":5: bad <sizes>: from (1048576) is larger than to"},
                      // Found against the platform, reported at the scenario's line.
                      BadScenario{"bad_unknown_node.xml", ":4: <platform to=\"node7\">: " + kSource +
                                                              "/platforms/roce-1rail.xml has no node 'node7' "
                                                              "(nodes: node0, node1)"},
                      BadScenario{"bad_too_many_pes.xml", ":6: pes=\"17\": an alltoall of 17 PEs needs as many "
                                                          "nodes, and " + kSource +
                                                          "/tests/data/platforms/cluster16.xml has 16"},
                      BadScenario{"bad_no_route.xml", ":4: <platform from=\"a\" to=\"lonely\">: " + kSource +
                                                          "/tests/data/platforms/no_route.xml: no route from a to "
                                                          "lonely"},
                      BadScenario{"no_such_scenario.xml", ": no such file"}));

TEST(CrossoverCli, ScenarioWrongForItsPlatformIsAtItsLine) {
  const std::string file = kSource + "/tests/data/scenarios/bad_unknown_node.xml";
  const auto r = test::run_command(kXover + " crossover " + file + " --between eager/zcopy,rndv/get");
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, StartsWith("xover crossover: " + file + ":4: <platform to=\"node7\">: "));
}

TEST(RunCli, UsageErrorsExitTwo) {
  EXPECT_EQ(test::run_command(kXover + " run").status, 2);
  EXPECT_EQ(test::run_command(kXover + " run x.xml --backend warp").status, 2);
  EXPECT_EQ(test::run_command(kXover + " crossover " + kSource + "/scenarios/eager-vs-rndv.xml --between eager/zcopy")
                .status,
            2);
  EXPECT_EQ(test::run_command(kXover + " crossover " + kSource +
                              "/scenarios/eager-vs-rndv.xml --between eager/zcopy,rndv/gte")
                .status,
            2);
}

}  // namespace
}  // namespace xover
