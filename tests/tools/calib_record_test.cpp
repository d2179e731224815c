// The calibration record: a calibrated platform says, in zone properties
// the loader accepts and read_calibration_record() reads back, the fit set
// (the workloads and curves its figures were fitted to) and which probe
// gave each figure; a figure the sweeps moved is the fit set's.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "base/child.hpp"
#include "formats/calibration_record.hpp"
#include "sim/platform_loader.hpp"
#include "tools/calib/calibration.hpp"
#include "tools/calib/provenance.hpp"
#include "tests/tools/model_prtts.hpp"

namespace xover::calib {
namespace {

/// PRTTs of one lane as fit.hpp's model gives them: L 1 us, o_s 2 us,
/// o_r 3 us, g 0.1 us, 3 GB/s.
std::vector<PrttPoint> prtts(int n) {
  return test::model_prtts({1e-6, 0.1e-6, 1 / 3e9, [](double) { return 2e-6; }, [](double) { return 3e-6; }}, n);
}

std::string write_temp(const std::string& text) {
  char name[] = "/tmp/xover-calib-record-XXXXXX";
  const int fd = mkstemp(name);
  close(fd);
  std::ofstream(name) << text;
  return name;
}

Measurements measured() {
  Measurements m;
  m.backend = "tcp";
  LaneMeasurement lane;
  lane.hardware.name = "tcp:lo";
  lane.hardware.max_short = 64;
  lane.hardware.max_bcopy = 8192;
  lane.hardware.seg_size = 8192;
  lane.hardware.caps = {LaneCap::AmShort, LaneCap::AmBcopy};
  lane.am = prtts(m.messages);
  m.lanes = {lane};
  for (const char* curve : {"eager/short", "auto"})
    for (Bytes s : {Bytes{8}, Bytes{64}})
      m.sweeps.point(curve, s).samples = {20e-6, 21e-6};
  return m;
}

TEST(CalibrationRecord, ThePlatformRecordsItsFitSetAndEachFiguresProbe) {
  const Calibration c = calibrate(measured(), FitDepth::Probes);
  const std::string file = write_temp(platform_xml(c.draft));
  const CalibrationRecord record = read_calibration_record(file);
  EXPECT_TRUE(record.recorded);
  EXPECT_EQ(record.fit_set, (std::vector<FitEntry>{{"pingpong", "auto"}, {"pingpong", "eager/short"}}));
  EXPECT_TRUE(record.in_sample("pingpong", "eager/short"));
  EXPECT_FALSE(record.in_sample("stream", "eager/short"));
  EXPECT_FALSE(record.in_sample("pingpong", "rndv/get"));
  EXPECT_EQ(record.sources.at("tcp-lo.latency"), "prtt");
  EXPECT_EQ(record.sources.at("tcp-lo.gap"), "train");
  // The eager/short sweep runs above the probes' model: the core's time
  // goes into both overheads, which then hold something of the fit set.
  EXPECT_EQ(record.sources.at("tcp-lo.o_send"), "post+fit-set");
  EXPECT_EQ(record.sources.at("tcp-lo.o_recv"), "delayed-prtt+fit-set");
  // The loader takes the record's properties.
  const std::string lanes = in_child([&] {
    return std::to_string(sim::LogGPPlatform::load(file).path("node0", "node1").lanes.size());
  });
  std::remove(file.c_str());
  EXPECT_EQ(lanes, "1");
}

// The fit to the sweeps moves no figure a probe identifies: the lane's L,
// o_s, o_r, g and bandwidth and the copy bandwidth are the probes' (the
// protocol core's own time on top of the overheads measured once, before
// it), and their sources say so; the comment block names what was left.
TEST(CalibrationRecord, TheFitToTheSweepsMovesNoFigureAProbeIdentifies) {
  const Calibration probes = calibrate(measured(), FitDepth::Probes);
  const Calibration fitted = calibrate(measured(), FitDepth::Sweeps);
  const LaneAttrs& a = probes.draft.lanes.at(0);
  const LaneAttrs& b = fitted.draft.lanes.at(0);
  EXPECT_EQ(b.latency, a.latency);
  EXPECT_EQ(b.o_send, a.o_send);
  EXPECT_EQ(b.o_recv, a.o_recv);
  EXPECT_EQ(b.gap, a.gap);
  EXPECT_EQ(b.bandwidth, a.bandwidth);
  EXPECT_TRUE(b.o_send_steps.empty());
  EXPECT_TRUE(b.bandwidth_steps.empty());
  EXPECT_EQ(fitted.draft.memcpy_bw, probes.draft.memcpy_bw);
  EXPECT_EQ(fitted.draft.sources.at("tcp-lo.latency"), "prtt");
  EXPECT_EQ(fitted.draft.sources.at("tcp-lo.gap"), "train");
  EXPECT_EQ(fitted.draft.sources.at("tcp-lo.bandwidth"), "prtt");
  EXPECT_EQ(fitted.draft.sources.at("memcpy"), "stream");
  bool said = false;
  for (const std::string& line : fitted.draft.comments)
    said = said || line.find("left as the probes gave them: memcpy, tcp-lo.bandwidth, tcp-lo.gap, tcp-lo.latency, "
                             "tcp-lo.o_recv, tcp-lo.o_send") != std::string::npos;
  EXPECT_TRUE(said);
}

// G per size range: a stream whose copies pace at 30 GB/s up to 2 KiB and
// at 6 GB/s from 8 KiB (its buffers past the caches) gives the copy
// bandwidth in steps by size, each the stream's own, from the probe alone;
// where a range's fixed cost (1 us) outweighs its bytes, that range takes
// the stream's one G.
TEST(CalibrationRecord, TheStreamGivesTheCopyBandwidthPerSizeRange) {
  Measurements m = measured();
  for (PrttPoint& p : m.lanes.at(0).am) {
    const double x = static_cast<double>(p.size);
    const double per_message = x <= 2048 ? 0.01e-6 + x / 30e9 : 0.01e-6 + 2048 / 30e9 + (x - 2048) / 6e9;
    p.stream = p.rtt1 + (p.stream_messages - 1) * per_message;
  }
  const Calibration c = calibrate(m, FitDepth::Probes);
  const std::vector<SizeStep>& steps = c.draft.memcpy_steps.steps();
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_NEAR(steps[0].value, 30e9, 0.1 * 30e9);
  EXPECT_EQ(steps[1].from, 8192u);
  EXPECT_NEAR(steps[1].value, 6e9, 0.05 * 6e9);
  EXPECT_EQ(steps[2].from, (Bytes{512} << 10) + 1);  // past the largest size probed
  EXPECT_EQ(c.draft.memcpy_bw, steps[0].value);
  EXPECT_EQ(c.draft.sources.at("memcpy"), "stream-segments");
  // Where a range's fixed cost outweighs its bytes, its slope is noise:
  // that range takes the stream's one G.
  for (PrttPoint& p : m.lanes.at(0).am) {
    const double x = static_cast<double>(p.size);
    const double per_message = x <= 2048 ? 1e-6 + x / 30e9 : 1e-6 + 2048 / 30e9 + (x - 2048) / 6e9;
    p.stream = p.rtt1 + (p.stream_messages - 1) * per_message;
  }
  const Calibration small = calibrate(m, FitDepth::Probes);
  ASSERT_GE(small.draft.memcpy_steps.steps().size(), 2u);
  EXPECT_EQ(small.draft.memcpy_steps.steps().front().value, small.draft.memcpy_steps.steps().back().value);
}

// A stream slower per byte than a whole round trip (here 20 times the
// lane's 3 GB/s, as when a rank waits for a core) was disturbed: the copy
// bandwidth is the train's G, 3 GB/s, recorded as the train's, with no
// steps cut from the disturbed stream.
TEST(CalibrationRecord, ADisturbedStreamLeavesTheCopyToTheTrain) {
  Measurements m = measured();
  for (PrttPoint& p : m.lanes.at(0).am)
    p.stream = p.rtt1 + (p.stream_messages - 1) * 20 * static_cast<double>(p.size) / 3e9;
  const Calibration c = calibrate(m, FitDepth::Probes);
  EXPECT_NEAR(c.draft.memcpy_bw, 3e9, 1e-6 * 3e9);
  EXPECT_EQ(c.draft.sources.at("memcpy"), "train");
  EXPECT_TRUE(c.draft.memcpy_steps.empty());
  const Calibration steady = calibrate(measured(), FitDepth::Probes);
  EXPECT_EQ(steady.draft.sources.at("memcpy"), "stream");
  EXPECT_NEAR(steady.draft.memcpy_bw, 3e9, 1e-6 * 3e9);
}

// A stream whose time per message its line hardly explains (R2 well below
// 0.9: every other size waited for a core), though its slope is within a
// round trip's, was disturbed as much: the train's G paces the copies, and
// no G per size range is cut from it.
TEST(CalibrationRecord, AStreamItsLineDoesNotExplainLeavesTheCopyToTheTrain) {
  Measurements m = measured();
  int i = 0;
  for (PrttPoint& p : m.lanes.at(0).am)
    p.stream = p.rtt1 + (p.stream_messages - 1) * ((i++ % 2 ? 40e-6 : 1e-6) + static_cast<double>(p.size) / 30e9);
  const Calibration c = calibrate(m, FitDepth::Probes);
  EXPECT_EQ(c.draft.sources.at("memcpy"), "train");
  EXPECT_NEAR(c.draft.memcpy_bw, 3e9, 1e-6 * 3e9);
  EXPECT_TRUE(c.draft.memcpy_steps.empty());
}

TEST(CalibrationRecord, AFigureTheSweepsMovedIsTheFitSets) {
  PlatformDraft before;
  LaneAttrs lane;
  lane.name = "mm";
  lane.latency = 1e-6;
  lane.gap = 0.1e-6;
  before.lanes = {lane};
  std::map<std::string, std::string> sources;
  set_probe_sources(lane, true, false, sources);
  PlatformDraft after = before;
  after.lanes[0].latency = 0.5e-6;
  set_refined_sources(before, after, sources);
  EXPECT_EQ(sources.at("mm.latency"), "fit-set");
  EXPECT_EQ(sources.at("mm.gap"), "train");
}

// A TCP lane carries active messages and gets: its L is the PRTTs', its
// bandwidth the gets'; its gets' own lane (NAME-rma) takes the gets' L.
TEST(CalibrationRecord, ALaneOfMessagesAndGetsKeepsThePrttsLatency) {
  LaneAttrs tcp;
  tcp.name = "tcp-lo";
  tcp.caps = {LaneCap::AmBcopy, LaneCap::AmZcopy};
  LaneAttrs rma = tcp;
  rma.name = "tcp-lo-rma";
  rma.caps = {LaneCap::GetZcopy};
  std::map<std::string, std::string> sources;
  set_probe_sources(tcp, true, true, sources);
  set_probe_sources(rma, true, true, sources);
  EXPECT_EQ(sources.at("tcp-lo.latency"), "prtt");
  EXPECT_EQ(sources.at("tcp-lo.bandwidth"), "get");
  EXPECT_EQ(sources.at("tcp-lo-rma.latency"), "get");
  EXPECT_EQ(sources.at("tcp-lo-rma.o_send"), "post");
}

TEST(CalibrationRecord, APlatformWithoutOneReadsUnrecordedAndABadEntryFailsAtItsLine) {
  const std::string none = write_temp("<?xml version='1.0'?>\n<platform version=\"4.1\">\n<zone id=\"z\" "
                                      "routing=\"Full\"/>\n</platform>\n");
  EXPECT_FALSE(read_calibration_record(none).recorded);
  const std::string bad = write_temp("<?xml version='1.0'?>\n<platform version=\"4.1\">\n<zone id=\"z\" "
                                     "routing=\"Full\">\n<prop id=\"xover:fit_set\" value=\"pingpong\"/>\n</zone>\n"
                                     "</platform>\n");
  try {
    read_calibration_record(bad);
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).rfind(bad + ":4: xover:fit_set: 'pingpong'", 0), 0U) << e.what();
  }
  std::remove(none.c_str());
  std::remove(bad.c_str());
}

}  // namespace
}  // namespace xover::calib
