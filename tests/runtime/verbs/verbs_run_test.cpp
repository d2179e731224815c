// The verbs backend as a user meets it, on whatever machine runs the test:
// where the backend table's row says it cannot run (no RDMA device, or a
// build without libibverbs), `xover run` and `xover calibrate` exit 2 with
// the row's reason and making the transport throws it; where a device
// exists, the same commands must succeed instead.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "runtime/backends.hpp"
#include "tests/support/one_rank.hpp"
#include "tests/support/run.hpp"

namespace xover {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

const std::string kXover = XOVER_BINARY;
const std::string kSource = XOVER_SOURCE_DIR;

std::string why_not() {
  const runtime::Backend* verbs = runtime::find_backend("verbs");
  return verbs ? verbs->unavailable() : "no verbs row in the backend table";
}

TEST(VerbsBackend, TheRowIsThereAndSaysWhyItCannotRun) {
  ASSERT_NE(runtime::find_backend("verbs"), nullptr);
  EXPECT_FALSE(runtime::find_backend("verbs")->simulated());
  const std::string why = why_not();
  if (why.empty())
    return;  // a device is here: nothing to explain
  if (why.starts_with("not compiled in")) {
    EXPECT_THAT(why, HasSubstr("libibverbs"));
    return;
  }
  EXPECT_THAT(why, StartsWith("no RDMA device: "));
  EXPECT_THAT(why, HasSubstr("ibv_get_device_list"));
  EXPECT_THAT(why, HasSubstr("looked for any RDMA device with an ACTIVE port"));
  EXPECT_EQ(why_not(), why) << "asked twice, the same answer";
}

TEST(VerbsBackend, MakingTheTransportThrowsTheReasonOrWorks) {
  test::OneRank boot("verbsrun");
  const runtime::Backend& verbs = *runtime::find_backend("verbs");
  const std::string why = why_not();
  if (why.empty()) {
    const std::unique_ptr<Transport> t = verbs.make(boot, {});
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->size(), 1U);
    EXPECT_TRUE(t->failure().empty());
    EXPECT_TRUE(t->flushed());
    return;
  }
  try {
    verbs.make(boot, {});
    ADD_FAILURE() << "made a verbs transport where the row says: " << why;
  } catch (const runtime::RuntimeError& e) {
    EXPECT_THAT(e.what(), StartsWith("verbs: "));
    if (!why.starts_with("not compiled in")) {
      EXPECT_THAT(e.what(), HasSubstr(why));
    }
  }
}

TEST(VerbsBackend, RunExitsTwoWithoutADeviceAndSucceedsWithOne) {
  const std::string out = ::testing::TempDir() + "/verbs-run.csv";
  std::remove(out.c_str());
  const auto r = test::run_command(kXover + " run " + kSource + "/tests/data/scenarios/hw_small.xml --backend verbs" +
                                   " --rounds 1 --out " + out);
  const std::string why = why_not();
  if (why.empty()) {
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_THAT(r.out, HasSubstr("hw-small: pingpong on verbs on "));
    const auto rows = test::read_csv(out);
    ASSERT_GT(rows.size(), 1U);
    for (std::size_t i = 1; i < rows.size(); ++i)
      EXPECT_EQ(rows[i][14], "0") << "corrupt or missing messages in row " << i;
    std::printf("[ lanes    ] verbs: %s\n", rows[1][6].c_str());
    return;
  }
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("xover run: backend verbs: " + why));
  if (!why.starts_with("not compiled in")) {
    EXPECT_THAT(r.err, HasSubstr("no RDMA device"));
  }
  EXPECT_FALSE(std::ifstream(out).good()) << "a CSV was written by a run that could not start";
}

TEST(VerbsBackend, CalibrateExitsTwoWithoutADeviceAndSucceedsWithOne) {
  const std::string out = ::testing::TempDir() + "/verbs-calibrated.xml";
  const auto r = test::run_command(kXover + " calibrate --backend verbs --quick --out " + out);
  const std::string why = why_not();
  if (why.empty()) {
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_THAT(r.out, HasSubstr("platform: " + out));
    return;
  }
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("xover calibrate: backend verbs: " + why));
}

}  // namespace
}  // namespace xover
