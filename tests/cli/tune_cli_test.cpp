// xover tune driven as a user drives it: the settings from the shipped
// calibrated platforms (golden, with the installed library left out so
// that they do not depend on this machine), JSON, the shell file, and bad
// input with its exit status.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "tests/support/run.hpp"

namespace xover {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const std::string kXover = XOVER_BINARY;
const std::string kSource = XOVER_SOURCE_DIR;

std::string shipped(const std::string& backend) {
  return kSource + "/platforms/" + backend + "-calibrated.xml";
}

std::string out_file(const std::string& name) {
  return ::testing::TempDir() + "tune-" + name + ".sh";
}

test::CommandResult tune(const std::string& args) {
  return test::run_command(kXover + " tune " + args);
}

std::string read(const std::string& file) {
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// platforms/tcp-calibrated.xml with UCX 1.13's tcp limits: one zero-copy
// message up to 64 KiB, then fragments of it, against rendezvous by
// put_zcopy on lane tcp-lo-rma; they cross at 155850 B (UCX 1.13.1 itself
// hands over at 20553 B on this transport).
TEST(TuneCli, UcxOnTheShippedTcpPlatform) {
  const std::string out = out_file("ucx-tcp");
  const auto r = tune("--backend tcp --for ucx --no-installed --platform " + shipped("tcp") + " --out " + out);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("UCX_RNDV_THRESH                  155850"));
  EXPECT_THAT(r.out, HasSubstr("ucx/rndv/put_zcopy drops below ucx/eager/zcopy/multi from 155850 B on"));
  const std::string shell = read(out);
  EXPECT_THAT(shell, HasSubstr("export UCX_RNDV_THRESH=155850\n"));
  EXPECT_THAT(shell, HasSubstr("export UCX_ZCOPY_THRESH=8185\n"));
  // UCX's auto writes on tcp (no reads): the scheme is left alone.
  EXPECT_THAT(shell, ::testing::Not(HasSubstr("UCX_RNDV_SCHEME=")));
  // The file sources in a shell and sets what it says.
  const auto sourced = test::run_command("sh -c '. " + out + " && echo $UCX_RNDV_THRESH'");
  EXPECT_EQ(sourced.out, "155850\n");
}

// platforms/shm-calibrated.xml: the rings' copies (42 GB/s lane, the
// fitted copy bandwidth) stay below a read by cross-memory attach
// (15 GB/s) at every size: no rendezvous.
TEST(TuneCli, UcxOnTheShippedShmPlatformNeverHandsOver) {
  const std::string out = out_file("ucx-shm");
  const auto r = tune("--backend shm --for ucx --no-installed --platform " + shipped("shm") + " --out " + out);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(read(out), HasSubstr("export UCX_RNDV_THRESH=inf\n"));
  EXPECT_THAT(r.out, HasSubstr("posix,cma has no zero-copy active message: left alone"));
}

// ob1 over its tcp BTL: eager from the user's buffer against the put
// protocol ob1 runs at every size past the eager limit: they cross at
// 162705 B, eager_limit counts ob1's largest header (56 B); phase 1 and
// the send pipeline are not run, their parameters left alone.
TEST(TuneCli, OmpiOnTheShippedTcpPlatform) {
  const std::string out = out_file("ompi-tcp");
  const auto r = tune("--backend tcp --for ompi --no-installed --platform " + shipped("tcp") + " --out " + out);
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string shell = read(out);
  EXPECT_THAT(shell, HasSubstr("export OMPI_MCA_btl_tcp_eager_limit=162760\n"));
  EXPECT_THAT(shell, Not(HasSubstr("export OMPI_MCA_btl_tcp_rndv_eager_limit")));
  EXPECT_THAT(shell, Not(HasSubstr("export OMPI_MCA_btl_tcp_max_send_size")));
  EXPECT_THAT(r.out, HasSubstr("65536 (Open MPI 4.1's default)"));
  EXPECT_THAT(r.out, HasSubstr("ob1/rndv/put drops below ob1/eager from 162705 B"));
}

TEST(TuneCli, VerbsFromAVerbsPlatform) {
  const auto r = tune("--backend verbs --for ucx --no-installed --platform " + kSource +
                      "/platforms/roce-1rail.xml --out " + out_file("ucx-verbs"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("UCX_RNDV_THRESH                  304068"));
  EXPECT_THAT(r.out, HasSubstr("UCX's auto already runs get_zcopy"));
}

TEST(TuneCli, Json) {
  const auto r = test::run_command(
      kXover + " tune --json --backend tcp --for ucx --no-installed --platform " + shipped("tcp") + " --out " +
      out_file("json") +
      " | python3 -c 'import json, sys\nd = json.load(sys.stdin)\n"
      "s = {x[\"name\"]: x for x in d[\"settings\"]}\n"
      "assert d[\"library\"] == \"ucx\" and d[\"backend\"] == \"tcp\"\n"
      "assert s[\"UCX_RNDV_THRESH\"][\"value\"] == \"155850\" and s[\"UCX_RNDV_THRESH\"][\"size\"] == 155850\n"
      "assert d[\"installed\"][\"present\"] is False\n"
      "assert any(l[\"protocol\"] == \"ucx/rndv/put_zcopy\" for l in d[\"lines\"])\n"
      "print(\"json ok\")'");
  EXPECT_EQ(r.out, "json ok\n") << r.err;
}

// No library: it says so and still writes the settings.
TEST(TuneCli, AnAbsentLibraryIsSaidAndSettingsStillCome) {
  const std::string out = out_file("absent");
  const auto r = test::run_command("env PATH=/nonexistent " + kXover + " tune --backend tcp --for ompi --platform " +
                                   shipped("tcp") + " --out " + out);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("ompi_info not found or failed: Open MPI is not installed here"));
  EXPECT_THAT(read(out), HasSubstr("export OMPI_MCA_btl_tcp_eager_limit=162760\n"));
}

// The same platform with UCX's own times on posix,cma (a recorded probe
// file): its eager fragments cost 0.68 us each beyond the platform's
// copies, its CMA read 0.76 us more per message: the lines cross at 80133 B.
TEST(TuneCli, UcxOnTheShippedShmPlatformWithTheLibrarysOwnProbes) {
  const std::string out = out_file("ucx-shm-probed");
  const auto r = tune("--backend shm --for ucx --no-installed --platform " + shipped("shm") + " --probes " + kSource +
                      "/tests/data/tune/probes_ucx_shm.txt --out " + out);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(read(out), HasSubstr("export UCX_RNDV_THRESH=80133\n"));
  EXPECT_THAT(r.out, HasSubstr("ucx/rndv/get_zcopy drops below ucx/eager/bcopy/multi"));
  EXPECT_THAT(r.out, HasSubstr("per fragment of 8248"));
  EXPECT_THAT(r.out, HasSubstr("ucx/eager/short: left out, no probe"));
}

TEST(TuneCli, BadProbesExit2WithFileAndLine) {
  const std::string probes = ::testing::TempDir() + "tune-probes-tcp.txt";
  std::ofstream(probes) << "library ucx\nbackend tcp\nucx/eager/zcopy 1000 1e-6\n";
  auto r = tune("--backend shm --for ucx --no-installed --platform " + shipped("shm") + " --probes " + probes +
                " --out " + out_file("bad-probes"));
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("--probes: " + probes + ":2: probes of the tcp path, not of shm"));
  r = tune("--backend shm --for ucx --no-installed --platform " + shipped("shm") +
           " --probes /nonexistent/probes.txt --out " + out_file("bad-probes"));
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("/nonexistent/probes.txt: cannot be read"));
}

TEST(TuneCli, BadInputExits2WithTheReason) {
  const std::string data = kSource + "/tests/data/platforms/";
  const std::string out = " --out " + out_file("bad");
  auto r = tune("--backend tcp --for mpich --platform " + shipped("tcp") + out);
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("--for: unknown library 'mpich' (known: ucx, ompi)"));
  r = tune("--backend sim --for ucx --platform " + shipped("tcp") + out);
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("--backend: 'sim' is not a path a library runs over"));
  r = tune("--for ucx --platform " + shipped("tcp") + out);
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("--backend and --for are required"));
  r = tune("--backend tcp --for ucx --platform " + data + "tune_one_node.xml" + out);
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("tune_one_node.xml: no path to tune: needs two nodes, has 1"));
  r = tune("--backend tcp --for ompi --platform " + data + "tune_no_am.xml" + out);
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("tune_no_am.xml: no lane from node0 to node1 carries active messages"));
  r = tune("--backend tcp --for ucx --platform " + data + "malformed.xml" + out);
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("malformed.xml:10: malformed XML"));
  r = tune("--backend tcp --for ucx --platform " + data + "does_not_exist.xml" + out);
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("does_not_exist.xml"));
}

}  // namespace
}  // namespace xover
