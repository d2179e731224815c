// xover --version and xover info as a user runs them: the version and the
// commit the build was made from, the backends compiled in, and what each
// backend finds on this machine, as text and as JSON.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/support/run.hpp"

namespace xover {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::Not;
using ::testing::StartsWith;

const std::string kXover = XOVER_BINARY;
const std::string kSource = XOVER_SOURCE_DIR;

/// The commit xover --version should name: git's, when the source tree is
/// a checkout of its own.
std::string expected_commit() {
  const auto top = test::run_command("git -C '" + kSource + "' rev-parse --show-toplevel 2>/dev/null");
  std::error_code error;
  if (top.status != 0 ||
      !std::filesystem::equivalent(top.out.substr(0, top.out.find('\n')), kSource, error))
    return "unknown";
  const auto head = test::run_command("git -C '" + kSource + "' rev-parse --short=12 HEAD");
  return head.out.substr(0, head.out.find('\n'));
}

/// Runs python3 on `code` with xover info --json on its standard input.
test::CommandResult query_info_json(const std::string& code) {
  return test::run_command(kXover + " info --json | python3 -c 'import json, sys\nd = json.load(sys.stdin)\n" + code +
                           "'");
}

TEST(VersionCli, NamesTheVersionTheCommitAndTheBackends) {
  const auto r = test::run_command(kXover + " --version");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string commit = expected_commit();
  EXPECT_THAT(r.out, StartsWith("xover " + std::string(XOVER_VERSION) + " (commit " + commit));
  if (commit != "unknown") {
    EXPECT_THAT(r.out, MatchesRegex("xover [0-9.]+ \\(commit [0-9a-f]{12}(-dirty)?\\)\n.*"));
  }
  EXPECT_THAT(r.out, HasSubstr("\nbackends compiled in: "));
  EXPECT_THAT(r.out, HasSubstr("shm, tcp"));
#ifdef XOVER_WITH_SIMGRID
  EXPECT_THAT(r.out, HasSubstr("backends compiled in: sim, "));
#else
  EXPECT_THAT(r.out, HasSubstr("left out: sim (not compiled in"));
#endif
}

TEST(InfoCli, ListsEveryBackendWithWhatItFinds) {
  const auto r = test::run_command(kXover + " info");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("xover " + std::string(XOVER_VERSION)));
  for (const char* line : {"\nsim: ", "\nshm: ", "\ntcp: ", "  cores_online: ", "  ptrace_scope: ", "  cma: ",
                           "  interface lo\n", "    ipv4:       127.0.0.1/8\n", "    state:      up\n"})
    EXPECT_THAT(r.out, HasSubstr(line));
}

TEST(InfoCli, JsonHoldsTheSameFindings) {
  const auto r = query_info_json(
      "b = {x[\"name\"]: x for x in d[\"backends\"]}\n"
      "shm = b[\"shm\"]\n"
      "assert shm[\"available\"] and shm[\"why_unavailable\"] is None, shm\n"
      "assert isinstance(shm[\"found\"][\"cores_online\"], int) and shm[\"found\"][\"cores_online\"] > 0, shm\n"
      "assert isinstance(shm[\"found\"][\"cma\"], bool), shm\n"
      "lo = [i for i in b[\"tcp\"][\"devices\"] if i[\"name\"] == \"lo\"][0]\n"
      "assert lo[\"kind\"] == \"interface\" and lo[\"found\"][\"ipv4\"] == \"127.0.0.1/8\", lo\n"
      "print(d[\"version\"], b[\"sim\"][\"compiled_in\"])");
  ASSERT_EQ(r.status, 0) << r.err;
#ifdef XOVER_WITH_SIMGRID
  EXPECT_EQ(r.out, std::string(XOVER_VERSION) + " True\n");
#else
  EXPECT_EQ(r.out, std::string(XOVER_VERSION) + " False\n");
#endif
}

// Cross-memory attach as the shm transport finds it: where xover info says
// it is refused, an shm run has no cma lane, and the other way round.
TEST(InfoCli, CmaAgreesWithTheShmTransport) {
  const auto info = query_info_json("print(\"yes\" if [x for x in d[\"backends\"] if x[\"name\"] == \"shm\"][0]"
                                    "[\"found\"][\"cma\"] else \"no\")");
  ASSERT_EQ(info.status, 0) << info.err;
  const auto run = test::run_command(kXover + " run " + kSource + "/tests/data/scenarios/hw_small.xml --backend shm --out " +
                                     ::testing::TempDir() + "/info-cma.csv");
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(info.out == "yes\n", run.err.find("cross-memory attach (process_vm_readv) refused") == std::string::npos)
      << info.out << run.err;
}

TEST(InfoCli, OneBackendAndBadOptions) {
  const auto tcp = test::run_command(kXover + " info --backend tcp");
  ASSERT_EQ(tcp.status, 0) << tcp.err;
  EXPECT_THAT(tcp.out, HasSubstr("\ntcp: "));
  EXPECT_THAT(tcp.out, Not(HasSubstr("\nshm: ")));
  const auto unknown = test::run_command(kXover + " info --backend warp");
  EXPECT_EQ(unknown.status, 2);
  EXPECT_THAT(unknown.err, HasSubstr("unknown backend 'warp'"));
  EXPECT_EQ(test::run_command(kXover + " info --frobnicate").status, 2);
}

}  // namespace
}  // namespace xover
