// The calibrated platform writer: what it writes loads with the platform
// loader and gives back the lanes it was given (to the unit strings'
// rounding), names rails as the loader wants them, keeps its comment block
// a valid XML comment, and refuses figures that are not a lane's.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "base/child.hpp"
#include "sim/platform_loader.hpp"
#include "tools/calib/platform_writer.hpp"

namespace xover::calib {
namespace {

LaneAttrs mm_lane() {
  LaneAttrs a;
  a.name = "mm";
  a.latency = 161.2345e-9;
  a.bandwidth = 270.5e9;
  a.o_send = 0.2444e-6;
  a.o_recv = 0.4336e-6;
  a.gap = 71.8e-9;
  a.reg_cost = 0;
  a.reg_growth = 0;
  a.max_short = 112;
  a.max_bcopy = 8176;
  a.max_zcopy = 0;
  a.seg_size = 8176;
  a.caps = {LaneCap::AmShort, LaneCap::AmBcopy, LaneCap::ConnectToIface};
  return a;
}

LaneAttrs cma_lane() {
  LaneAttrs a;
  a.name = "cma";
  a.latency = 0.9023e-6;
  a.bandwidth = 13.8358e9;
  a.o_send = 0;
  a.o_recv = 0;
  a.gap = 0;
  a.max_short = 0;
  a.max_bcopy = 0;
  a.seg_size = 0;
  a.caps = {LaneCap::GetZcopy, LaneCap::PutZcopy, LaneCap::ConnectToIface};
  return a;
}

PlatformDraft draft() {
  PlatformDraft d;
  d.title = "Calibrated by a test -- two lanes";
  d.comments = {"lane mm: PRTT(1,0,s) = 0.3 us + 0.2 ns/B * s", "a line with -- in it"};
  d.lanes = {mm_lane(), cma_lane()};
  d.memcpy_bw = 11.25e9;
  d.device = DeviceAttrs{0.4213e-6, 1, 0.5e-6, 0.1664e-6};
  d.device_copy = DeviceCopy{6.96e-6, 54.86e9, 1480.7e9};
  return d;
}

std::string write_temp(const std::string& text) {
  char name[] = "/tmp/xover-calib-platform-XXXXXX";
  const int fd = mkstemp(name);
  close(fd);
  std::ofstream(name) << text;
  return name;
}

TEST(CalibratedPlatform, LoadsAndGivesBackItsLanes) {
  const std::string file = write_temp(platform_xml(draft()));
  const std::string report = in_child([&] {
    const sim::LogGPPlatform platform = sim::LogGPPlatform::load(file);
    std::string out;
    for (const char* node : {"node0", "node1"}) {
      const DeviceAttrs& d = platform.node(node).device;
      char buf[128];
      std::snprintf(buf, sizeof buf, "%s device %.1f %u %.1f %.1f\n", node, d.device_o * 1e9, d.threads,
                    d.proxy_o * 1e9, d.proxy_wake * 1e9);
      out += buf;
      const DeviceCopy& c = platform.node(node).device_copy;
      std::snprintf(buf, sizeof buf, "%s copies %.1f %.0f %.0f\n", node, c.stage_o * 1e9, c.stage_bw, c.ipc_bw);
      out += buf;
    }
    for (const Path& path : {platform.path("node0", "node1"), platform.path("node1", "node0")}) {
      out += path.from + ">" + path.to + " memcpy " + std::to_string(path.memcpy_bw_local) + "\n";
      for (const LaneAttrs& l : path.lanes) {
        char buf[512];
        std::snprintf(buf, sizeof buf, "%s L %.3f B %.0f o %.3f/%.3f g %.3f short %llu bcopy %llu seg %llu caps %s\n",
                      l.name.c_str(), l.latency * 1e9, l.bandwidth, l.o_send * 1e9, l.o_recv * 1e9, l.gap * 1e9,
                      static_cast<unsigned long long>(l.max_short), static_cast<unsigned long long>(l.max_bcopy),
                      static_cast<unsigned long long>(l.seg_size), l.caps.to_string().c_str());
        out += buf;
      }
    }
    return out;
  });
  std::remove(file.c_str());
  const std::string lanes =
      "mm L 161.234 B 270500000000 o 244.400/433.600 g 71.800 short 112 bcopy 8176 seg 8176 caps "
      "am_short,am_bcopy,connect_to_iface\n"
      "cma L 902.300 B 13835800000 o 0.000/0.000 g 0.000 short 0 bcopy 0 seg 0 caps "
      "put_zcopy,get_zcopy,connect_to_iface\n";
  EXPECT_EQ(report, "node0 device 421.3 1 500.0 166.4\nnode0 copies 6960.0 54860000000 1480700000000\n"
                    "node1 device 421.3 1 500.0 166.4\nnode1 copies 6960.0 54860000000 1480700000000\n"
                    "node0>node1 memcpy 11250000000.000000\n" + lanes + "node1>node0 memcpy 11250000000.000000\n" +
                        lanes);
}

// The GPU lane's figures are written where they differ from the defaults
// and load back as written; a draft without them writes none.
TEST(CalibratedPlatform, GpuLaneLoadsBackAsWritten) {
  EXPECT_EQ(platform_xml(draft()).find("xover:launch"), std::string::npos);
  EXPECT_EQ(platform_xml(draft()).find("xover:engine_bw"), std::string::npos);
  PlatformDraft d = draft();
  d.device->launch = 4.25e-6;
  d.device->post_slope = 12.5e-9;
  d.device->doorbell_batch = 32;
  d.device->engine_gap = 40e-9;
  d.device->engine_bw = 123.5e9;
  d.device->proxy_threads = 4;
  d.device->ring_capacity = 1024;
  const std::string file = write_temp(platform_xml(d));
  const std::string report = in_child([&] {
    const sim::LogGPPlatform platform = sim::LogGPPlatform::load(file);
    const DeviceAttrs& g = platform.node("node1").device;
    char buf[160];
    std::snprintf(buf, sizeof buf, "launch %.3f slope %.3f batch %u gap %.3f bw %.0f proxies %u ring %u",
                  g.launch * 1e9, g.post_slope * 1e9, g.doorbell_batch, g.engine_gap * 1e9, g.engine_bw,
                  g.proxy_threads, g.ring_capacity);
    return std::string(buf);
  });
  std::remove(file.c_str());
  EXPECT_EQ(report, "launch 4250.000 slope 12.500 batch 32 gap 40.000 bw 123500000000 proxies 4 ring 1024");
  d.device->doorbell_batch = 0;
  EXPECT_THROW(platform_xml(d), std::invalid_argument);
}

// o_send_after, a bcopy without a sender copy and a lane whose initiator's
// CPU moves the bytes are written where a lane has them, and load back; a
// lane without them gets none of the properties.
TEST(CalibratedPlatform, SendOverlapBcopyCopyAndCpuMovesLoadBackAsWritten) {
  PlatformDraft d = draft();
  d.lanes[0].o_send_after = 0.1234e-6;
  d.lanes[0].bcopy_copies = false;
  d.lanes[1].cpu_moves = true;
  const std::string xml = platform_xml(d);
  EXPECT_EQ(xml.find("xover:o_send_after"), xml.rfind("xover:o_send_after")) << "on the mm lane only";
  EXPECT_EQ(xml.find("xover:bcopy_copy\" value=\"no\""), xml.rfind("xover:bcopy_copy")) << "on the mm lane only";
  EXPECT_EQ(xml.find("xover:cpu_moves\" value=\"yes\""), xml.rfind("xover:cpu_moves")) << "on the cma lane only";
  EXPECT_NE(xml.find("xover:cpu_moves"), std::string::npos);
  const std::string file = write_temp(xml);
  const std::string report = in_child([&] {
    std::string out;
    for (const LaneAttrs& l : sim::LogGPPlatform::load(file).path("node0", "node1").lanes) {
      char buf[128];
      std::snprintf(buf, sizeof buf, "%s o %.3f after %.3f bcopy_copies %d cpu_moves %d\n", l.name.c_str(),
                    l.o_send * 1e9, l.o_send_after * 1e9, l.bcopy_copies ? 1 : 0, l.cpu_moves ? 1 : 0);
      out += buf;
    }
    return out;
  });
  std::remove(file.c_str());
  EXPECT_EQ(report,
            "mm o 244.400 after 123.400 bcopy_copies 0 cpu_moves 0\n"
            "cma o 0.000 after 0.000 bcopy_copies 1 cpu_moves 1\n");
}

// Size steps in the draft (memcpy, o_send, bandwidth) are written as
// size:value sections and load back as the same steps.
TEST(CalibratedPlatform, SizeStepsLoadBackAsWritten) {
  PlatformDraft d = draft();
  d.memcpy_steps = SizeSteps({{0, 33e9}, {32768, 8e9}});
  d.memcpy_bw = 33e9;
  d.lanes[0].o_send_steps = SizeSteps({{0, 244.4e-9}, {4096, 300e-9}});
  d.lanes[1].bandwidth_steps = SizeSteps({{0, 13.8358e9}, {1048576, 9e9}});
  d.lanes[0].bandwidth_steps = SizeSteps({{0, 270.5e9}, {65536, 300e9}});
  d.bw_factor = SizeSteps({{0, 1}, {2097152, 0.8}, {4194304, 0.625}});
  const std::string file = write_temp(platform_xml(d));
  const std::string report = in_child([&] {
    const Path path = sim::LogGPPlatform::load(file).path("node0", "node1");
    const auto text = [](double v) { return std::to_string(v); };
    const auto ns = [](double v) { return std::to_string(v * 1e9); };
    return path.memcpy_local_steps.to_string(text) + "\n" + path.memcpy_remote_steps.to_string(text) + "\n" +
           path.lanes[0].o_send_steps.to_string(ns) + "\n" + path.lanes[1].bandwidth_steps.to_string(text) + "\n" +
           path.message_factor.to_string(text) + "\n" + path.lanes[0].bandwidth_steps.to_string(text) + "\n";
  });
  std::remove(file.c_str());
  EXPECT_EQ(report, "0:33000000000.000000; 32K:8000000000.000000\n"
                    "0:33000000000.000000; 32K:8000000000.000000\n"
                    "0:244.400000; 4K:300.000000\n"
                    "0:13835800000.000000; 1M:9000000000.000000\n"
                    "0:1.000000; 2M:0.800000; 4M:0.625000\n"
                    "0:270500000000.000000; 64K:300000000000.000000\n");
  d.bw_factor = SizeSteps({{0, 1}, {1024, 1.5}});
  EXPECT_THROW(platform_xml(d), std::invalid_argument);
}

// A lane's own message factor is written on its link and loads back on
// that lane alone, beside a different factor on the nodes.
TEST(CalibratedPlatform, LaneMessageFactorLoadsBackOnItsLane) {
  PlatformDraft d = draft();
  d.bw_factor = SizeSteps({{0, 1}, {2097152, 0.8}});
  d.lanes[1].message_factor = SizeSteps({{0, 1}, {1048576, 0.75}, {2097152, 0.6}});
  const std::string xml = platform_xml(d);
  EXPECT_NE(xml.find("<prop id=\"xover:bw_factor\" value=\"0:1.0000;1048576:0.7500;2097152:0.6000\"/>"),
            std::string::npos);
  const std::string file = write_temp(xml);
  const std::string report = in_child([&] {
    const Path path = sim::LogGPPlatform::load(file).path("node0", "node1");
    const auto text = [](double v) { return std::to_string(v); };
    return path.message_factor.to_string(text) + "\n" + path.lanes[0].message_factor.to_string(text) + "|\n" +
           path.lanes[1].message_factor.to_string(text) + "\n";
  });
  std::remove(file.c_str());
  EXPECT_EQ(report, "0:1.000000; 2M:0.800000\n"
                    "|\n"
                    "0:1.000000; 1M:0.750000; 2M:0.600000\n");
  d.lanes[1].message_factor = SizeSteps({{0, 1}, {1024, 0}});
  EXPECT_THROW(platform_xml(d), std::invalid_argument);
}

TEST(CalibratedPlatform, CommentBlockComesFirstAndStaysOneComment) {
  const std::string xml = platform_xml(draft());
  const std::size_t open = xml.find("<!--");
  const std::size_t close = xml.find("-->");
  ASSERT_NE(open, std::string::npos);
  EXPECT_LT(open, xml.find("<platform"));
  EXPECT_EQ(xml.substr(open + 4, close - open - 4).find("--"), std::string::npos) << "'--' ends an XML comment";
  EXPECT_NE(xml.find("lane mm: PRTT(1,0,s) = 0.3 us + 0.2 ns/B * s"), std::string::npos);
  EXPECT_NE(xml.find("<prop id=\"network/model\" value=\"CM02\"/>"), std::string::npos);
}

/// The lanes of `file`, node0 to node1, one line each: name, whether L is
/// at least 0, B positive and o_s, o_r, g at least 0 and finite.
std::string plausible_lanes(const std::string& file) {
  return in_child([&] {
    const sim::LogGPPlatform platform = sim::LogGPPlatform::load(file);
    std::string out;
    for (const LaneAttrs& l : platform.path("node0", "node1").lanes) {
      const bool ok = l.latency >= 0 && l.bandwidth > 0 && std::isfinite(l.bandwidth) && l.o_send >= 0 &&
                      l.o_recv >= 0 && l.gap >= 0 && std::isfinite(l.o_send + l.o_recv + l.gap + l.latency);
      out += l.name + (ok ? " plausible\n" : " implausible\n");
    }
    return out;
  });
}

TEST(CalibratedPlatform, TheShippedCalibrationsLoadWithPlausibleLanes) {
  const std::string dir = std::string(XOVER_SOURCE_DIR) + "/platforms/";
  EXPECT_EQ(plausible_lanes(dir + "shm-calibrated.xml"), "mm plausible\ncma plausible\n");
  EXPECT_EQ(plausible_lanes(dir + "tcp-calibrated.xml"), "tcp-lo plausible\ntcp-lo-rma plausible\n");
  for (const char* name : {"shm-calibrated.xml", "tcp-calibrated.xml"}) {
    std::ifstream in(dir + name);
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_NE(text.str().find("Calibrated on "), std::string::npos) << name;
    EXPECT_NE(text.str().find("rel RMS"), std::string::npos) << name;
  }
}

TEST(CalibratedPlatform, RailNamesHoldNoDots) {
  EXPECT_EQ(rail_name("tcp:lo.0"), "tcp-lo-0");
  EXPECT_EQ(rail_name("mm"), "mm");
}

TEST(CalibratedPlatform, RefusesFiguresThatAreNotALanes) {
  PlatformDraft d = draft();
  d.lanes[0].bandwidth = 0;
  EXPECT_THROW(platform_xml(d), std::invalid_argument);
  d = draft();
  d.lanes[1].latency = -1e-9;
  EXPECT_THROW(platform_xml(d), std::invalid_argument);
  d = draft();
  d.lanes[0].o_send = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(platform_xml(d), std::invalid_argument);
  d = draft();
  d.memcpy_bw = 0;
  EXPECT_THROW(platform_xml(d), std::invalid_argument);
}

}  // namespace
}  // namespace xover::calib
