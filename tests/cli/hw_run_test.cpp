// xover run on hardware as a user runs it: shared memory and TCP started by
// xover itself and by mpirun, every payload byte checked, the same results
// CSV as the simulation, and its plot; the alltoall, whose run says first
// when its threads outnumber the cores; a rank killed halfway through a
// ping-pong or an alltoall stops the run with a message and leaves no
// shared-memory segment behind; bad options exit 2; given a platform,
// `auto` runs the platform's choice at each size.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>

#include "runtime/backends.hpp"
#include "tests/support/run.hpp"

namespace xover {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const std::string kXover = XOVER_BINARY;
const std::string kSource = XOVER_SOURCE_DIR;

std::string scenario(const std::string& name) {
  return kSource + "/tests/data/scenarios/" + name + ".xml";
}

/// Names in /dev/shm that xover made.
std::set<std::string> xover_segments() {
  std::set<std::string> out;
  if (DIR* dir = opendir("/dev/shm")) {
    while (const dirent* e = readdir(dir))
      if (std::strncmp(e->d_name, "xover-", 6) == 0)
        out.insert(e->d_name);
    closedir(dir);
  }
  return out;
}

/// Whether a live process maps /dev/shm/`name`: a segment of a run still
/// going (its ranks map their segments as soon as they make them).
bool mapped(const std::string& name) {
  DIR* proc = opendir("/proc");
  if (!proc)
    return false;
  bool found = false;
  while (const dirent* e = readdir(proc)) {
    if (found || e->d_name[0] < '0' || e->d_name[0] > '9')
      continue;
    std::ifstream maps("/proc/" + std::string(e->d_name) + "/maps");
    for (std::string line; !found && std::getline(maps, line);)
      found = line.find("/dev/shm/" + name) != std::string::npos;
  }
  closedir(proc);
  return found;
}

/// The xover segments there now that were not there `before` and that no
/// live process maps: those the run left behind (another xover run on the
/// machine, or a rank of an earlier test still unwinding, may hold some of
/// its own meanwhile), space-separated.
std::string left_since(const std::set<std::string>& before) {
  std::string left;
  for (const std::string& name : xover_segments())
    if (!before.contains(name) && !mapped(name))
      left += (left.empty() ? "" : " ") + name;
  return left;
}

/// Checks a hardware results CSV: the backend, every point timed
/// `iterations` times, no corrupt message, and `sizes` points on the auto
/// curve (a forced protocol has points only where it carries the size).
void expect_good_csv(const std::string& file, const std::string& backend, const std::string& iterations,
                     std::size_t sizes) {
  const auto rows = test::read_csv(file);
  ASSERT_GT(rows.size(), sizes) << file;
  std::size_t on_auto = 0;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    ASSERT_EQ(rows[i].size(), 18U) << "row " << i;
    EXPECT_EQ(rows[i][1], backend);
    EXPECT_EQ(rows[i][8], iterations) << "row " << i;
    EXPECT_EQ(rows[i][14], "0") << "corrupt or missing messages in row " << i;
    EXPECT_GT(std::stod(rows[i][9]), 0) << "row " << i;
    EXPECT_LE(std::stod(rows[i][10]), std::stod(rows[i][9]));
    EXPECT_LE(std::stod(rows[i][9]), std::stod(rows[i][11]));
    if (rows[i][4] != "auto" && rows[i][4] != "rndv" && rows[i][4] != "eager/multi") {
      EXPECT_EQ(rows[i][4], rows[i][5]);
    }
    on_auto += rows[i][4] == "auto";
  }
  EXPECT_EQ(on_auto, sizes);
}

/// Every hardware backend of the table; those this build or machine cannot
/// run are skipped with the reason.
class HwRun : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (const std::string why = runtime::find_backend(GetParam())->unavailable(); !why.empty())
      GTEST_SKIP() << "backend " << GetParam() << ": " << why;
  }
};

std::vector<std::string> hardware_backends() {
  std::vector<std::string> out;
  for (const runtime::Backend* b : runtime::backends())
    if (!b->simulated())
      out.emplace_back(b->name);
  return out;
}

/// The job a rank of `xover run` belongs to (its XOVER_JOB), from /proc;
/// empty when it has none or is gone.
std::string job_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/environ");
  for (std::string entry; std::getline(in, entry, '\0');)
    if (entry.starts_with("XOVER_JOB="))
      return entry.substr(10);
  return "";
}

/// The segments of job `job` still in /dev/shm, space-separated.
std::string segments_of(const std::string& job) {
  std::string left;
  for (const std::string& name : xover_segments())
    if (name.starts_with("xover-" + job + "-"))
      left += (left.empty() ? "" : " ") + name;
  return left;
}

/// Seconds of CPU that process `pid` has used, from /proc; -1 once it is gone.
double cpu_seconds(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line) || line.rfind(')') == std::string::npos)
    return -1;
  std::istringstream fields(line.substr(line.rfind(')') + 2));
  std::string field;
  double ticks = 0;
  for (int i = 3; fields >> field && i <= 15; ++i)
    if (i == 14 || i == 15)  // utime, stime
      ticks += std::stod(field);
  return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

TEST_P(HwRun, PingPongOfEveryCurveChecksEveryByte) {
  const std::set<std::string> before = xover_segments();
  const std::string out = ::testing::TempDir() + "/hw-small-" + GetParam() + ".csv";
  const auto r = test::run_command(kXover + " run " + scenario("hw_small") + " --backend " + GetParam() +
                                   " --out " + out);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("hw-small: pingpong on " + GetParam() + " on "));
  expect_good_csv(out, GetParam(), "5", 7);
  EXPECT_EQ(left_since(before), "") << "segments left behind";
}

TEST_P(HwRun, StreamChecksEveryByte) {
  const std::string out = ::testing::TempDir() + "/hw-stream-" + GetParam() + ".csv";
  const auto r = test::run_command(kXover + " run " + scenario("hw_stream") + " --backend " + GetParam() +
                                   " --out " + out);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  expect_good_csv(out, GetParam(), "4", 3);
}

// Rank 0 draws the plot once it has written the CSV.
TEST_P(HwRun, PlotFollowsTheCsv) {
  if (!test::python_imports(XOVER_PYTHON, "matplotlib"))
    GTEST_SKIP() << XOVER_PYTHON << " cannot import matplotlib: install python3-matplotlib (tools/setup.sh)";
  const std::string out = ::testing::TempDir() + "/hw-plot-" + GetParam() + ".csv";
  const std::string svg = ::testing::TempDir() + "/hw-plot-" + GetParam() + ".svg";
  std::remove(svg.c_str());
  const auto r = test::run_command(kXover + " run " + scenario("hw_small") + " --backend " + GetParam() +
                                   " --out " + out + " --plot " + svg);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("results: " + out + "\nplot: " + svg + "\n"));
  std::ifstream in(svg);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_THAT(text, HasSubstr("hw-small: pingpong"));
  EXPECT_THAT(text, HasSubstr(">" + GetParam() + " on "));
}

// The alltoall of 3 PEs: every curve, every byte and signal checked (notes
// verified=yes), the model priced with the platform's device figures; when
// its 3 × 2 threads (a poster and the proxy) outnumber the cores, the first
// line and every point's notes say so.
TEST_P(HwRun, AlltoallChecksEveryByteAndSaysWhenOversubscribed) {
  const std::string out = ::testing::TempDir() + "/hw-alltoall-" + GetParam() + ".csv";
  const auto r = test::run_command(kXover + " run " + scenario("hw_alltoall") + " --backend " + GetParam() +
                                   " --out " + out);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const bool crowded = std::thread::hardware_concurrency() < 6;
  if (crowded) {
    EXPECT_THAT(r.out, ::testing::StartsWith("xover run: oversubscribed: 3 ranks × 2 threads on "));
  } else {
    EXPECT_THAT(r.out, ::testing::StartsWith("# hw-alltoall: alltoall on " + GetParam()));
  }
  const auto rows = test::read_csv(out);
  ASSERT_EQ(rows.size(), 1u + 3 * 3);
  for (std::size_t i = 1; i < rows.size(); ++i) {
    ASSERT_EQ(rows[i].size(), 18U) << "row " << i;
    EXPECT_EQ(rows[i][3], "alltoall");
    EXPECT_EQ(rows[i][8], "5");
    EXPECT_EQ(rows[i][14], "0") << rows[i][15];
    EXPECT_GT(std::stod(rows[i][13]), 0) << "no model in row " << i;
    EXPECT_THAT(rows[i][15], ::testing::StartsWith("verified=yes; PE 0 measured: post "));
    EXPECT_EQ(rows[i][15].find("oversubscribed") != std::string::npos, crowded) << rows[i][15];
  }
}

// A rank killed halfway: the launcher stops the others — at once, not by
// their own timeouts —, says which rank went and how, exits non-zero and
// leaves no segment of its job.
/// (backend, (scenario, its ranks)).
class HwKill : public ::testing::TestWithParam<std::tuple<std::string, std::pair<std::string, std::size_t>>> {
 protected:
  void SetUp() override {
    if (const std::string why = runtime::find_backend(std::get<0>(GetParam()))->unavailable(); !why.empty())
      GTEST_SKIP() << "backend " << std::get<0>(GetParam()) << ": " << why;
  }
};

TEST_P(HwKill, KilledRankStopsTheRunCleanly) {
  const std::string& backend = std::get<0>(GetParam());
  const auto& [name, nranks] = std::get<1>(GetParam());
  const std::string err = ::testing::TempDir() + "/hw-kill-" + backend + "-" + name + ".err";
  const pid_t launcher = fork();
  ASSERT_GE(launcher, 0);
  if (launcher == 0) {
    const std::string command = kXover + " run " + scenario(name) + " --backend " + backend + " --out " +
                                ::testing::TempDir() + "/hw-long.csv --timeout 3 >/dev/null 2>" + err;
    execl("/bin/sh", "sh", "-c", ("exec " + command).c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  // Wait for every rank (a minute, against a hang only), then let them run a while.
  std::vector<pid_t> ranks;
  for (int i = 0; i < 1200 && ranks.size() < nranks; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ranks.clear();
    const auto r = test::run_command("pgrep -P " + std::to_string(launcher));
    std::stringstream ss(r.out);
    for (pid_t pid; ss >> pid;)
      ranks.push_back(pid);
  }
  ASSERT_EQ(ranks.size(), nranks) << "the ranks did not start";
  const std::string job = job_of(ranks[0]);
  ASSERT_FALSE(job.empty()) << "rank pid " << ranks[0] << " has no XOVER_JOB";
  // Halfway: once rank 1 has worked for a while (wire-up and some sizes).
  for (int i = 0; i < 1000 && cpu_seconds(ranks[1]) >= 0 && cpu_seconds(ranks[1]) < 0.4; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_EQ(kill(ranks[1], SIGKILL), 0);
  const auto killed = std::chrono::steady_clock::now();

  // Against a hang only: the ranks' own timeouts (3 s) end a run whose
  // launcher would not stop it, and what ended it is asserted below.
  int status = 0;
  pid_t done = 0;
  while ((done = waitpid(launcher, &status, WNOHANG)) == 0 &&
         std::chrono::steady_clock::now() - killed < std::chrono::seconds(120))
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  if (done == 0) {
    kill(launcher, SIGKILL);
    waitpid(launcher, &status, 0);
    FAIL() << "the run went on for 120 s after a rank was killed";
  }
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1);
  std::ifstream in(err);
  const std::string said((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_THAT(said, HasSubstr("rank 1"));
  EXPECT_THAT(said, HasSubstr("signal"));
  // Stopped by the launcher or by finding rank 1 gone, not by waiting out
  // the timeout (its message says "for 3 s").
  EXPECT_THAT(said, Not(HasSubstr("for 3 s"))) << "the others waited out their timeout";
  for (pid_t pid : ranks)
    EXPECT_NE(kill(pid, 0), 0) << "rank pid " << pid << " is still there";
  EXPECT_EQ(segments_of(job), "") << "segments left behind";
}

INSTANTIATE_TEST_SUITE_P(Backends, HwRun, ::testing::ValuesIn(hardware_backends()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

INSTANTIATE_TEST_SUITE_P(
    Backends, HwKill,
    ::testing::Combine(::testing::ValuesIn(hardware_backends()),
                       ::testing::Values(std::pair<std::string, std::size_t>{"hw_long", 2},
                                         std::pair<std::string, std::size_t>{"hw_alltoall_long", 3})),
    [](const auto& info) { return std::get<0>(info.param) + "_" + std::get<1>(info.param).first; });

TEST(HwRunMpi, MpirunStartsTheRanksAndRankZeroWritesTheResults) {
  if (test::run_command("command -v mpirun").status != 0)
    GTEST_SKIP() << "no mpirun (Debian's openmpi-bin)";
  const std::string out = ::testing::TempDir() + "/hw-mpi.csv";
  const auto r = test::run_command("ASAN_OPTIONS=detect_leaks=0 mpirun --allow-run-as-root --oversubscribe -np 2 " +
                                   kXover + " run " + scenario("hw_small") + " --backend tcp --out " + out);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  expect_good_csv(out, "tcp", "5", 7);
}

TEST(HwRunMpi, WrongRankCountIsBadInput) {
  if (test::run_command("command -v mpirun").status != 0)
    GTEST_SKIP() << "no mpirun (Debian's openmpi-bin)";
  const auto r = test::run_command("ASAN_OPTIONS=detect_leaks=0 mpirun --allow-run-as-root --oversubscribe -np 3 " +
                                   kXover + " run " + scenario("hw_small") + " --backend tcp --out " +
                                   ::testing::TempDir() + "/hw-mpi3.csv");
  EXPECT_NE(r.status, 0);
  EXPECT_THAT(r.err, HasSubstr("needs 2 ranks, 3 were started"));
}

TEST(HwRunOptions, BadOptionsExitTwo) {
  const std::string s = scenario("hw_small");
  for (const std::string args : {"--backend nosuch", "--backend shm --timeout 0", "--backend tcp --tcp-if ,",
                                  "--backend tcp --tcp-conns 0"}) {
    const auto r = test::run_command(kXover + " run " + s + " " + args);
    EXPECT_EQ(r.status, 2) << args << ": " << r.err;
    EXPECT_FALSE(r.err.empty()) << args;
  }
  const auto phantom = test::run_command(kXover + " run " + scenario("phantom_big") + " --backend shm");
  EXPECT_EQ(phantom.status, 2);
  EXPECT_THAT(phantom.err, HasSubstr("phantom"));
}

/// Per size, the protocol the `auto` curve of results CSV `file` ran.
std::map<std::string, std::string> auto_choices(const std::string& file) {
  std::map<std::string, std::string> out;
  const auto rows = test::read_csv(file);
  for (std::size_t i = 1; i < rows.size(); ++i)
    if (rows[i][4] == "auto")
      out[rows[i][7]] = rows[i][5];
  return out;
}

// Given --platform, the hardware's `auto` runs the protocol the platform's
// selection takes at each size, the one its simulation runs, whatever the
// transport's own figures say; a platform that does not load is bad input,
// and so is any --platform in a build that cannot read one.
TEST(HwRunOptions, WithAPlatformAutoRunsThePlatformsChoice) {
  const std::string dir = ::testing::TempDir();
  const std::string platform = kSource + "/platforms/shm-calibrated.xml";
#ifndef XOVER_WITH_SIMGRID
  const auto unread = test::run_command(kXover + " run " + scenario("hw_small") + " --backend shm --rounds 1 --platform " +
                                        platform + " --out " + dir + "/hw-platform.csv");
  EXPECT_EQ(unread.status, 2) << unread.out << unread.err;
  EXPECT_THAT(unread.err, HasSubstr("no platform loader"));
  GTEST_SKIP() << "this build has no simulator (XOVER_WITH_SIMGRID=OFF): --platform is bad input, as checked";
#endif
  const auto hw = test::run_command(kXover + " run " + scenario("hw_small") + " --backend shm --rounds 1 --platform " +
                                    platform + " --out " + dir + "/hw-platform.csv");
  ASSERT_EQ(hw.status, 0) << hw.out << hw.err;
  const auto sim = test::run_command(kXover + " run " + scenario("hw_small") + " --backend sim --platform " +
                                     platform + " --out " + dir + "/sim-platform.csv");
  ASSERT_EQ(sim.status, 0) << sim.out << sim.err;
  const std::map<std::string, std::string> chosen = auto_choices(dir + "/sim-platform.csv");
  ASSERT_EQ(chosen.size(), 7u);
  EXPECT_EQ(auto_choices(dir + "/hw-platform.csv"), chosen);
  const auto bad = test::run_command(kXover + " run " + scenario("hw_small") + " --backend shm --platform " + kSource +
                                     "/tests/data/scenarios/hw_small.xml");
  EXPECT_EQ(bad.status, 2) << bad.out << bad.err;
}

// Without a platform, `auto` selects with the figures the transport
// measures at wire-up, medians of repeated probes: two runs on one machine
// in one state choose the same protocol at every size. A machine busier
// than its cores is in no one state (a busy-polling rank waits for a core
// for milliseconds at a time): skipped there, with the load.
TEST(HwRunOptions, TwoRunsWithoutAPlatformChooseAlike) {
  double load[1] = {0};
  const unsigned cores = std::thread::hardware_concurrency();
  if (getloadavg(load, 1) == 1 && load[0] > cores)
    GTEST_SKIP() << "the machine is busier than its cores (load " << load[0] << " on " << cores
                 << "): its state moves between two runs";
  const std::string dir = ::testing::TempDir();
  std::vector<std::map<std::string, std::string>> chosen;
  for (const char* run : {"1", "2"}) {
    const std::string out = dir + "/hw-choice-" + run + ".csv";
    const auto r =
        test::run_command(kXover + " run " + scenario("hw_small") + " --backend shm --rounds 1 --out " + out);
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    chosen.push_back(auto_choices(out));
  }
  ASSERT_EQ(chosen[0].size(), 7u);
  EXPECT_EQ(chosen[0], chosen[1]);
}

TEST(HwRunOptions, MissingInterfaceIsNamed) {
  const auto r = test::run_command(kXover + " run " + scenario("hw_small") + " --backend tcp --tcp-if nosuch0");
  EXPECT_NE(r.status, 0);
  EXPECT_THAT(r.err, HasSubstr("nosuch0"));
}

}  // namespace
}  // namespace xover
