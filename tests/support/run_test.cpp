// The tests' command runner itself: its capture files go where TMPDIR
// says (a machine or guest whose /tmp is read-only sets it), and none is
// left behind.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <string>

#include "tests/support/run.hpp"

namespace xover {
namespace {

using ::testing::HasSubstr;

TEST(RunCommand, CapturesUnderTmpdirAndLeavesNothing) {
  std::string dir = ::testing::TempDir() + "/xover-run-tmpdir-XXXXXX";
  ASSERT_NE(mkdtemp(dir.data()), nullptr);
  const char* old = std::getenv("TMPDIR");
  const std::string before = old ? old : "";
  setenv("TMPDIR", dir.c_str(), 1);
  EXPECT_EQ(test::temp_dir(), dir);
  const test::CommandResult during = test::run_command("ls '" + dir + "'; echo said >&2; exit 3");
  if (old)
    setenv("TMPDIR", before.c_str(), 1);
  else
    unsetenv("TMPDIR");
  EXPECT_EQ(during.status, 3);
  EXPECT_EQ(during.err, "said\n");
  EXPECT_THAT(during.out, HasSubstr("xover-test-out-"));
  EXPECT_THAT(during.out, HasSubstr("xover-test-err-"));
  EXPECT_EQ(rmdir(dir.c_str()), 0) << dir << " is not empty: capture files left behind";
}

}  // namespace
}  // namespace xover
