// bench/tune_probe.py's probe file (--from) written from synthetic runs
// that carry the machine's core-to-core round trips (bench/core_to_core,
// before and after each run): each point at its fast state's median, a
// `slow` line beside a one-message UCX point with runs in both states, a
// run whose state changed under it left out, the states taken from the
// round trips and never from the runs' own times. No library runs: the
// runs are written here.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/support/run.hpp"

namespace xover {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const std::string kScript = std::string(XOVER_SOURCE_DIR) + "/bench/tune_probe.py";

/// One point as --record writes it: its runs in microseconds and, per run,
/// 'f' fast (120 ns round trips), 's' slow (480 ns), 'c' changed under it.
std::string point(const std::string& protocol, long size, const std::string& test, const std::string& us,
                  const std::string& run_states) {
  std::string runs;
  std::stringstream in(us);
  for (std::string one; std::getline(in, one, ',');)
    runs += (runs.empty() ? "" : ", ") + one + "e-6";
  std::string trips;
  for (const char c : run_states)
    trips += std::string(trips.empty() ? "" : ", ") + (c == 'f' ? "[121, 130]" : c == 's' ? "[471, 490]" : "[130, 480]");
  return "{\"protocol\": \"" + protocol + "\", \"size\": " + std::to_string(size) + ", \"test\": \"" + test +
         "\", \"forced\": \"defaults\", \"runs\": [" + runs + "], \"core_ns\": [" + trips + "]}\n";
}

struct Written {
  test::CommandResult run;
  std::string file;  ///< the probe file written
};

/// Writes the probe file of `lines` (a record of this test's own: the
/// tests run in parallel) for `library` on shm.
Written probe(const std::string& library, const std::string& lines) {
  const std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  const std::filesystem::path dir = std::filesystem::path(test::temp_dir());
  const std::filesystem::path record = dir / ("tune_probe_runs_" + name + ".jsonl");
  const std::filesystem::path out = dir / ("tune_probe_" + name + ".txt");
  std::ofstream(record) << lines;
  std::filesystem::remove(out);
  Written w{test::run_command("python3 " + kScript + " --for " + library + " --backend shm --from " +
                              record.string() + " --out " + out.string()),
            ""};
  std::ifstream f(out);
  std::stringstream text;
  text << f.rdbuf();
  w.file = text.str();
  return w;
}

/// The line of the probe file that starts with `start`, without its comment.
std::string line(const std::string& file, const std::string& start) {
  const std::size_t at = file.find("\n" + start);
  if (at == std::string::npos)
    return "";
  const std::string whole = file.substr(at + 1, file.find('\n', at + 1) - at - 1);
  return whole.substr(0, whole.find("  #"));
}

// UCX's posix eager: two runs in the slow core-to-core state at 10.4-10.5
// us, three in the fast one at 2.4-2.6: the line at the fast state's
// median and a slow line at the slow one's. A rendezvous whose runs fell
// in one state but spread 4.0 to 8.0 us is one state (the old test of the
// runs' own step would have split it): the median of its runs.
TEST(TuneProbeStates, TheCoreToCoreStatesPartTheRuns) {
  const Written w = probe("ucx", point("ucx/eager/bcopy/multi", 20620, "tag_lat", "2.5,10.5,2.6,10.4,2.4", "fsfsf") +
                                     point("ucx/rndv/get_zcopy", 20620, "tag_lat", "4.0,8.0,4.1,8.1,4.2", "fffff"));
  ASSERT_EQ(w.run.status, 0) << w.run.err;
  EXPECT_EQ(line(w.file, "ucx/eager/bcopy/multi"), "ucx/eager/bcopy/multi 20620 2.500000e-06");
  EXPECT_EQ(line(w.file, "slow ucx/eager/bcopy/multi"), "slow ucx/eager/bcopy/multi 20620 1.045000e-05");
  EXPECT_EQ(line(w.file, "ucx/rndv/get_zcopy"), "ucx/rndv/get_zcopy 20620 4.200000e-06");
  EXPECT_EQ(line(w.file, "slow ucx/rndv/get_zcopy"), "");
  EXPECT_THAT(w.file, HasSubstr("core-to-core states split at"));
  EXPECT_THAT(w.file, HasSubstr("library ucx\nbackend shm\n"));
}

// A run whose state changed under it is left out, and one slow run is no
// state of its own: no slow line, the fast runs' median. All of a point's
// runs in the slow state: their median, and the comment says so.
TEST(TuneProbeStates, ARunWhoseStateChangedUnderItIsLeftOut) {
  const Written w = probe("ucx", point("ucx/eager/bcopy/multi", 20620, "tag_lat", "2.5,30.0,2.6,10.4,2.4", "fcfsf") +
                                     point("ucx/rndv/get_zcopy", 20620, "tag_lat", "9.0,9.2,9.1", "sss"));
  ASSERT_EQ(w.run.status, 0) << w.run.err;
  EXPECT_EQ(line(w.file, "ucx/eager/bcopy/multi"), "ucx/eager/bcopy/multi 20620 2.500000e-06");
  EXPECT_EQ(line(w.file, "slow ucx/eager/bcopy/multi"), "");
  EXPECT_THAT(w.file, HasSubstr("3 runs fast, 1 slow, 1 left out (the state changed under them)"));
  EXPECT_EQ(line(w.file, "ucx/rndv/get_zcopy"), "ucx/rndv/get_zcopy 20620 9.100000e-06");
  EXPECT_THAT(w.file, HasSubstr("all in the slow state"));
}

// ob1's lines are priced in one state: its runs in both give the fast
// state's median and no slow line (xover tune would refuse one).
TEST(TuneProbeStates, Ob1GetsTheFastStateOnly) {
  const Written w = probe("ompi", point("ob1/eager", 91750, "pingpong", "40,90,41,92,42", "fsfsf"));
  ASSERT_EQ(w.run.status, 0) << w.run.err;
  EXPECT_EQ(line(w.file, "ob1/eager"), "ob1/eager 91750 4.100000e-05");
  EXPECT_THAT(w.file, Not(HasSubstr("slow ob1")));
}

TEST(TuneProbeStates, BadRecordsNameTheFileAndLine) {
  const Written missing = probe("ucx", point("ucx/eager/bcopy/multi", 20620, "tag_lat", "2.5,2.6", "ff") +
                                           "{\"protocol\": \"x\", \"size\": 1}\n");
  EXPECT_EQ(missing.run.status, 2);
  EXPECT_THAT(missing.run.err, HasSubstr("tune_probe_runs_BadRecordsNameTheFileAndLine.jsonl:2: no 'test'"));
  const Written trips = probe("ucx", point("ucx/eager/bcopy/multi", 20620, "tag_lat", "2.5,2.6", "f"));
  EXPECT_EQ(trips.run.status, 2);
  EXPECT_THAT(trips.run.err, HasSubstr(".jsonl:1: core_ns needs one [before, after] per run"));
  const Written changed = probe("ucx", point("ucx/eager/bcopy/multi", 20620, "tag_lat", "2.5,2.6", "cc") +
                                           point("ucx/rndv/get_zcopy", 20620, "tag_lat", "4,4", "fs"));
  EXPECT_EQ(changed.run.status, 2);
  EXPECT_THAT(changed.run.err, HasSubstr("ucx/eager/bcopy/multi 20620: every run's state changed under it"));
}

}  // namespace
}  // namespace xover
