// The local launcher and its bootstrap: collectives across forked ranks,
// reports, and a failed rank stopping the run with its cause.
#include <gtest/gtest.h>

#include <sched.h>
#include <unistd.h>

#include <string>
#include <thread>

#include "runtime/launch/launch.hpp"

namespace xover::runtime {
namespace {

Blob text_blob(const std::string& s) {
  const auto* p = reinterpret_cast<const std::byte*>(s.data());
  return Blob(p, p + s.size());
}

std::string blob_text(const Blob& b) {
  return std::string(reinterpret_cast<const char*>(b.data()), b.size());
}

TEST(Launch, AllgatherGivesEveryRankEveryContributionInRankOrder) {
  const LaunchResult r = launch_local(3, {}, [](LocalBootstrap& boot) {
    std::string seen;
    for (int round = 0; round < 3; ++round) {
      // Rank-dependent sizes, one of them empty, and a large one.
      const std::string mine = boot.rank() == 1 ? "" : std::string(1 + boot.rank() * 100000 * round, 'a' + round) +
                                                        std::to_string(boot.rank());
      for (const Blob& b : boot.allgather(text_blob(mine)))
        seen += std::to_string(b.size()) + ":" + (b.empty() ? "" : blob_text(b).substr(b.size() - 1)) + " ";
    }
    boot.report(seen);
    return 0;
  });
  ASSERT_TRUE(r.ok) << r.message;
  const std::string expected = "2:0 0: 2:2 2:0 0: 200002:2 2:0 0: 400002:2 ";
  for (Rank k = 0; k < 3; ++k)
    EXPECT_EQ(r.reports[k], expected) << "rank " << k;
  EXPECT_EQ(r.exit_status, (std::vector<int>{0, 0, 0}));
}

TEST(Launch, JobNameIsSharedAndFitsShmNames) {
  const LaunchResult r = launch_local(2, {}, [](LocalBootstrap& boot) {
    boot.report(boot.job());
    return 0;
  });
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.reports[0], r.reports[1]);
  EXPECT_FALSE(r.reports[0].empty());
  EXPECT_EQ(r.reports[0].find_first_not_of("0123456789abcdefghijklmnopqrstuvwxyz"), std::string::npos);
}

// The others are stopped because rank 2 failed, not by the deadline (which
// only keeps a launcher that would wait for them from hanging the test):
// the run's first failure, its message, is rank 2's.
TEST(Launch, FailedRankStopsTheOthersAndIsNamed) {
  LaunchOptions options;
  options.deadline = 120;
  const LaunchResult r = launch_local(3, options, [](LocalBootstrap& boot) {
    if (boot.rank() == 2)
      return 5;
    boot.barrier();  // never completes: rank 2 is gone
    return 0;
  });
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.message.find("rank 2"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("status 5"), std::string::npos) << r.message;
  EXPECT_EQ(r.message.find("longer than"), std::string::npos) << r.message;
  EXPECT_EQ(r.exit_status[2], 5);
  EXPECT_NE(r.exit_status[0], 0);
}

TEST(Launch, HungRankIsKilledAfterTheDeadline) {
  LaunchOptions options;
  options.deadline = 0.5;
  const LaunchResult r = launch_local(2, options, [](LocalBootstrap& boot) {
    if (boot.rank() == 1)
      for (;;)
        pause();  // ignores nothing but never returns
    return 0;
  });
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.message.find("longer than"), std::string::npos) << r.message;
  EXPECT_EQ(r.exit_status[1], 128 + SIGTERM);
}

TEST(Launch, ThrowingRankExitsWith127) {
  const LaunchResult r = launch_local(1, {}, [](LocalBootstrap&) -> int { throw RuntimeError("no device"); });
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.exit_status[0], 127);
}

TEST(Launch, RanksArePinnedToCoresOfTheirOwnWhenThereAreEnough) {
  cpu_set_t set;
  ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  if (CPU_COUNT(&set) < 2)
    GTEST_SKIP() << "one core: nothing to pin to";
  const LaunchResult r = launch_local(2, {}, [](LocalBootstrap& boot) {
    cpu_set_t mine;
    sched_getaffinity(0, sizeof mine, &mine);
    boot.report(std::to_string(CPU_COUNT(&mine)) + " " + std::to_string(sched_getcpu()));
    return 0;
  });
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.reports[0].substr(0, 2), "1 ");
  EXPECT_EQ(r.reports[1].substr(0, 2), "1 ");
  EXPECT_NE(r.reports[0], r.reports[1]);
}

TEST(Launch, EnvironmentBootstrapIsAbsentOrChecked) {
  unsetenv("XOVER_RANK");
  EXPECT_EQ(LocalBootstrap::from_environment(), nullptr);
  setenv("XOVER_RANK", "2", 1);
  setenv("XOVER_SIZE", "2", 1);
  setenv("XOVER_BOOT_FD", "9", 1);
  setenv("XOVER_JOB", "abc", 1);
  EXPECT_THROW(LocalBootstrap::from_environment(), RuntimeError);
  setenv("XOVER_RANK", "x", 1);
  EXPECT_THROW(LocalBootstrap::from_environment(), RuntimeError);
  for (const char* name : {"XOVER_RANK", "XOVER_SIZE", "XOVER_BOOT_FD", "XOVER_JOB"})
    unsetenv(name);
}

}  // namespace
}  // namespace xover::runtime
