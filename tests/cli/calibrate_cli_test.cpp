// xover calibrate as a user runs it: a short shared-memory calibration
// writes a platform that loads (xover proto-info reads it, where the build
// has the simulator), whose lanes carry positive, finite fitted figures and
// whose comment block lists the fits; bad options and output paths exit 2
// with a message.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "tests/support/run.hpp"

namespace xover {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const std::string kXover = XOVER_BINARY;

std::string temp_name() {
  char name[] = "/tmp/xover-calibrate-XXXXXX";
  const int fd = mkstemp(name);
  close(fd);
  return name;
}

/// The number after `key` in `text` from `from` on, read up to `unit`; NaN when absent.
double value_after(const std::string& text, const std::string& key, const std::string& unit, std::size_t from = 0) {
  const std::size_t at = text.find(key, from);
  if (at == std::string::npos)
    return std::nan("");
  const std::size_t begin = at + key.size();
  const std::size_t end = text.find(unit, begin);
  return end == std::string::npos ? std::nan("") : std::stod(text.substr(begin, end - begin));
}

/// The mm lane's overheads and latency measured, positive and finite.
void expect_mm_lane_measured(const std::string& xml) {
  const std::size_t mm = xml.find("<link id=\"mm\"");
  ASSERT_NE(mm, std::string::npos) << xml;
  // (A figure with steps by size reads "0:80ns;32:60ns": each step's.)
  for (const char* name : {"o_send", "o_recv"}) {
    const std::string key = "id=\"xover:" + std::string(name) + "\" value=\"";
    const std::size_t at = xml.find(key, mm);
    ASSERT_NE(at, std::string::npos) << name;
    const std::size_t begin = at + key.size();
    std::stringstream sections(xml.substr(begin, xml.find('"', begin) - begin));
    for (std::string section; std::getline(sections, section, ';');) {
      const double v = value_after(section, section.find(':') == std::string::npos ? "" : ":", "ns");
      EXPECT_GT(v, 0) << name << ": " << section;
      EXPECT_TRUE(std::isfinite(v)) << name << ": " << section;
    }
  }
  // (How fast the lane is depends on the machine and its load: not judged.)
  const double bandwidth = value_after(xml, "bandwidth=\"", "Bps\"", mm);
  EXPECT_GT(bandwidth, 0);
  EXPECT_TRUE(std::isfinite(bandwidth));
  EXPECT_GE(value_after(xml, "latency=\"", "ns\"", mm), 0);
}

/// The alltoall's device figures on the nodes, positive and finite, and
/// said on the terminal (`out`).
void expect_device_figures(const std::string& out, const std::string& xml) {
  EXPECT_THAT(out, HasSubstr("alltoall device: o_device "));
  EXPECT_THAT(xml, HasSubstr("alltoall device: o_device "));
  const std::size_t node0 = xml.find("<host id=\"node0\"");
  ASSERT_NE(node0, std::string::npos) << xml;
  for (const char* name : {"device_o", "proxy_o", "proxy_wake"}) {
    const double v = value_after(xml, "id=\"xover:" + std::string(name) + "\" value=\"", "ns\"", node0);
    EXPECT_GT(v, 0) << name;
    EXPECT_TRUE(std::isfinite(v)) << name;
  }
}

TEST(CalibrateCli, QuickShmRunWritesAPlatformThatLoads) {
  const std::string out = temp_name();
  const std::string sweeps = out + ".csv";
  const test::CommandResult r =
      test::run_command(kXover + " calibrate --backend shm --quick --rounds 2 --out " + out + " --sweeps " + sweeps);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("platform: " + out));
  EXPECT_THAT(r.out, HasSubstr("eager/short"));
  // The sweeps the figures were fitted to, as a results CSV.
  std::stringstream csv;
  csv << std::ifstream(sweeps).rdbuf();
  EXPECT_THAT(csv.str(), ::testing::StartsWith("scenario,backend,platform,workload,protocol,selected,"));
  EXPECT_THAT(csv.str(), HasSubstr("calibrate-shm,shm,"));
  EXPECT_THAT(csv.str(), HasSubstr(",eager/short,eager/short,"));
  std::remove(sweeps.c_str());
  std::stringstream text;
  text << std::ifstream(out).rdbuf();
  const std::string xml = text.str();

  // The comment block: where, when, and every fit with its residual.
  EXPECT_THAT(xml, HasSubstr("Calibrated on "));
  EXPECT_THAT(xml, HasSubstr("lane mm: PRTT(1,0,s) = "));
  EXPECT_THAT(xml, HasSubstr("rel RMS"));
  EXPECT_THAT(xml, HasSubstr("protocol eager/bcopy"));
  EXPECT_THAT(xml, HasSubstr("memcpy bandwidth: "));
  // Gets, where cross-memory attach is allowed, are timed on bytes the
  // target has just written, as a rendezvous's are.
  if (xml.find("<link id=\"cma\"") != std::string::npos) {
    EXPECT_THAT(xml, HasSubstr("lane cma: get(s), of bytes the target has just written, = "));
  }
  // The rounds asked for, said as they go and in the file (when rounds end
  // by stability or time: CalibRounds.RoundsEndWhenStableBeforeTheLimitOrAtTheirCount).
  EXPECT_THAT(r.err, HasSubstr("xover calibrate: round 1 of 2, "));
  EXPECT_THAT(r.err, HasSubstr("xover calibrate: round 2 of 2, "));
  EXPECT_THAT(r.err, Not(HasSubstr("xover calibrate: round 3")));
  EXPECT_THAT(xml, HasSubstr("sampling: 2 rounds in "));
  EXPECT_THAT(xml, HasSubstr(": as many rounds as asked for"));

  expect_mm_lane_measured(xml);
  expect_device_figures(r.out, xml);
  EXPECT_THAT(xml, HasSubstr("<prop id=\"xover:threads\" value=\"1\"/>"));
  EXPECT_THAT(xml, HasSubstr("figures no probe identifies fitted to the protocols' sweeps (the relative errors' "
                             "Huber loss, 10 %, over "));
  EXPECT_THAT(xml, HasSubstr("left as the probes gave them: "));

#ifdef XOVER_WITH_SIMGRID
  // The draft's simulation of the sweeps, against its cost lines, twice.
  EXPECT_THAT(r.err, HasSubstr("xover calibrate: simulated the sweeps on the draft (2 of 2)"));
  EXPECT_THAT(xml, HasSubstr("the simulation of the sweeps on the previous draft ran beyond their cost lines by "));
  const test::CommandResult info = test::run_command(kXover + " proto-info --platform " + out);
  EXPECT_EQ(info.status, 0) << info.err;
  EXPECT_THAT(info.out, HasSubstr("eager/short"));
  EXPECT_THAT(info.out, HasSubstr("lane mm"));
  const test::CommandResult alltoall = test::run_command(kXover + " proto-info --alltoall 2 --platform " + out);
  EXPECT_EQ(alltoall.status, 0) << alltoall.err;
  EXPECT_THAT(alltoall.out, HasSubstr("coll/alltoall/direct"));
#else
  EXPECT_THAT(r.err, HasSubstr("xover calibrate: this build has no simulator: the figures answer to the cost lines "
                               "alone"));
#endif
  std::remove(out.c_str());
}

TEST(CalibrateCli, BadInputExitsTwoWithAMessage) {
  struct Case {
    std::string args, message;
  };
  for (const Case& c : std::vector<Case>{
           {"", "no --backend given"},
           {"--backend nosuch", "unknown backend 'nosuch'"},
           {"--backend shm --out /nonexistent-dir/x.xml", "no directory /nonexistent-dir"},
           {"--backend shm --out /tmp", "names a directory"},
           {"--backend shm --out /tmp/x.xml --sweeps /nonexistent-dir/s.csv", "--sweeps /nonexistent-dir/s.csv: no directory"},
           {"--backend shm --timeout -1", "--timeout must be a positive number"},
           {"--backend shm --time-limit 0", "--time-limit must be a positive number of seconds"},
           {"--backend shm --rounds 0", "--rounds must be at least 1"},
           {"--backend tcp --tcp-if lo,lo", "--tcp-if takes one interface"},
           {"--backend shm --frobnicate", "unrecognised option"},
       }) {
    const test::CommandResult r = test::run_command(kXover + " calibrate " + c.args);
    EXPECT_EQ(r.status, 2) << c.args;
    EXPECT_THAT(r.err, HasSubstr(c.message)) << c.args;
  }
}

TEST(CalibrateCli, AMissingInterfaceIsSaidClearly) {
  const std::string out = temp_name();
  const test::CommandResult r =
      test::run_command(kXover + " calibrate --backend tcp --quick --tcp-if no-such-if0 --out " + out);
  EXPECT_EQ(r.status, 1);
  EXPECT_THAT(r.err, HasSubstr("no-such-if0"));
  std::remove(out.c_str());
}

}  // namespace
}  // namespace xover
