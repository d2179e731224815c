// xover calibrate as a user runs it: a short shared-memory calibration
// writes a platform that loads (xover proto-info reads it), whose lanes
// carry positive, finite fitted figures and whose comment block lists the
// fits; bad options and output paths exit 2 with a message.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>

#include "tests/support/run.hpp"

namespace xover {
namespace {

using ::testing::HasSubstr;

const std::string kXover = XOVER_BINARY;

std::string temp_name() {
  char name[] = "/tmp/xover-calibrate-XXXXXX";
  const int fd = mkstemp(name);
  close(fd);
  return name;
}

/// Every value of `<prop id="xover:NAME" value="...ns">` in `xml`, in ns.
std::vector<double> times(const std::string& xml, const std::string& name) {
  std::vector<double> out;
  const std::regex re("id=\"xover:" + name + "\" value=\"([-0-9.e+]+)ns\"");
  for (auto it = std::sregex_iterator(xml.begin(), xml.end(), re); it != std::sregex_iterator(); ++it)
    out.push_back(std::stod((*it)[1]));
  return out;
}

TEST(CalibrateCli, QuickShmRunWritesAPlatformThatLoads) {
  const std::string out = temp_name();
  const test::CommandResult r = test::run_command(kXover + " calibrate --backend shm --quick --out " + out);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("platform: " + out));
  EXPECT_THAT(r.out, HasSubstr("eager/short"));
  std::stringstream text;
  text << std::ifstream(out).rdbuf();
  const std::string xml = text.str();

  // The comment block: where, when, and every fit with its residual.
  EXPECT_THAT(xml, HasSubstr("Calibrated on "));
  EXPECT_THAT(xml, HasSubstr("lane mm: PRTT(1,0,s) = "));
  EXPECT_THAT(xml, HasSubstr("rel RMS"));
  EXPECT_THAT(xml, HasSubstr("protocol eager/bcopy"));
  EXPECT_THAT(xml, HasSubstr("memcpy bandwidth: "));

  // The mm lane: overheads and latency measured, positive and finite.
  for (const char* name : {"o_send", "o_recv"}) {
    const std::vector<double> v = times(xml, name);
    ASSERT_FALSE(v.empty()) << name;
    EXPECT_GT(v.front(), 0) << name;
    EXPECT_TRUE(std::isfinite(v.front())) << name;
  }
  const std::regex link("<link id=\"mm\" bandwidth=\"([0-9]+)Bps\" latency=\"([0-9.]+)ns\"");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(xml, m, link)) << xml;
  EXPECT_GT(std::stod(m[1]), 1e8);
  EXPECT_GE(std::stod(m[2]), 0);

  const test::CommandResult info = test::run_command(kXover + " proto-info --platform " + out);
  EXPECT_EQ(info.status, 0) << info.err;
  EXPECT_THAT(info.out, HasSubstr("eager/short"));
  EXPECT_THAT(info.out, HasSubstr("lane mm"));
  std::remove(out.c_str());
}

TEST(CalibrateCli, BadInputExitsTwoWithAMessage) {
  struct Case {
    std::string args, message;
  };
  for (const Case& c : std::vector<Case>{
           {"", "no --backend given"},
           {"--backend verbs", "unknown backend 'verbs'"},
           {"--backend shm --out /nonexistent-dir/x.xml", "no directory /nonexistent-dir"},
           {"--backend shm --out /tmp", "names a directory"},
           {"--backend shm --timeout -1", "--timeout must be a positive number"},
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
