// The CPUs' time per payload byte of a TCP-like lane (tools/calib/
// socket_copies.hpp): the probes give the figures, the calibrated platform
// writes them with their probes and sizes, and the loader reads them back.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "base/child.hpp"
#include "formats/calibration_record.hpp"
#include "sim/platform_loader.hpp"
#include "tools/calib/calibration.hpp"
#include "tools/calib/refine.hpp"
#include "tools/calib/socket_copies.hpp"
#include "tests/tools/model_prtts.hpp"

namespace xover::calib {
namespace {

constexpr double kSendPerByte = 0.2e-9;  // the sender's CPU per byte of a post
constexpr double kRecvPerByte = 0.1e-9;  // the receiver's, its copy out of the socket
constexpr double kMemcpy = 20e9;         // the probe handler's copy into the user's buffer
constexpr double kGetBandwidth = 5e9;
constexpr double kGetIntercept = 14e-6;

/// PRTTs of a lane whose posts take 2 us + s·0.2 ns and whose take-in
/// 3 us + s·(0.1 ns + 1/M), as fit.hpp's model gives them (L 1 us, g 0.1 us).
std::vector<PrttPoint> prtts(int n) {
  return test::model_prtts({1e-6, 0.1e-6, 1 / 10e9, [](double x) { return 2e-6 + kSendPerByte * x; },
                            [](double x) { return 3e-6 + (kRecvPerByte + 1 / kMemcpy) * x; }},
                           n);
}

/// A TCP lane: active messages from the user's buffer, and gets.
Measurements tcp_lane(bool bcopy_copies) {
  Measurements m;
  m.backend = "tcp";
  m.memcpy_bw = kMemcpy;
  LaneMeasurement lane;
  lane.hardware.name = "tcp:lo";
  lane.hardware.max_short = 64;
  lane.hardware.caps = {LaneCap::AmShort, LaneCap::AmBcopy, LaneCap::AmZcopy, LaneCap::GetZcopy};
  lane.hardware.bcopy_copies = bcopy_copies;
  lane.am = prtts(m.messages);
  for (Bytes s = 1024; s <= Bytes{1} << 20; s *= 4)
    lane.get.push_back({s, kGetIntercept + static_cast<double>(s) / kGetBandwidth});
  m.lanes = {lane};
  return m;
}

const LaneAttrs& lane_named(const PlatformDraft& draft, const std::string& name) {
  for (const LaneAttrs& lane : draft.lanes)
    if (lane.name == name)
      return lane;
  throw std::out_of_range(name);
}

TEST(SocketCopies, ThePostsAndTheDelayedTakeInGiveEachSidesTimePerByte) {
  const std::optional<SocketCopies> c = fit_socket_copies(prtts(8), kMemcpy);
  ASSERT_TRUE(c);
  EXPECT_NEAR(c->send_per_byte, kSendPerByte, 1e-6 * kSendPerByte);
  EXPECT_NEAR(c->recv_per_byte, kRecvPerByte, 1e-6 * kRecvPerByte);
  EXPECT_EQ(c->from, 8u);
  EXPECT_EQ(c->to, Bytes{1} << 19);
  EXPECT_FALSE(fit_socket_copies(std::span<const PrttPoint>(prtts(8)).first(1), kMemcpy));
}

// calibrate on the TCP lane: the active-message lane takes both figures
// and, as its bandwidth, the gets' time per byte less the receiver's (0.2 −
// 0.1 ns/B: 10 GB/s). Its gets' lane, whose gets the target serves with
// the same sockets' send() and recv(), takes them too and the same
// bandwidth. The platform written says which probe gave them, and the
// loader reads them back.
TEST(SocketCopies, CalibrateWritesTheFiguresAndTheirProbes) {
  const Calibration c = calibrate(tcp_lane(false), FitDepth::Probes);
  const LaneAttrs& am = lane_named(c.draft, "tcp-lo");
  const LaneAttrs& rma = lane_named(c.draft, "tcp-lo-rma");
  EXPECT_NEAR(am.o_send_per_byte, kSendPerByte, 1e-6 * kSendPerByte);
  EXPECT_NEAR(am.o_recv_per_byte, kRecvPerByte, 1e-6 * kRecvPerByte);
  EXPECT_NEAR(am.bandwidth, 10e9, 1e-4 * 10e9);
  EXPECT_NEAR(rma.o_send_per_byte, kSendPerByte, 1e-6 * kSendPerByte);
  EXPECT_NEAR(rma.o_recv_per_byte, kRecvPerByte, 1e-6 * kRecvPerByte);
  EXPECT_NEAR(rma.bandwidth, 10e9, 1e-4 * 10e9);
  EXPECT_EQ(c.draft.sources.at("tcp-lo-rma.o_send_per_byte"), "post-slope");
  EXPECT_EQ(c.draft.sources.at("tcp-lo-rma.bandwidth"), "get-less-recv-slope");
  EXPECT_EQ(c.draft.sources.at("tcp-lo.o_send_per_byte"), "post-slope");
  EXPECT_EQ(c.draft.sources.at("tcp-lo.o_recv_per_byte"), "delayed-prtt-slope");
  EXPECT_EQ(c.draft.sources.at("tcp-lo.bandwidth"), "get-less-recv-slope");
  bool said = false;
  for (const std::string& line : c.draft.comments)
    said = said || line.starts_with("lane tcp-lo: the CPUs' time per payload byte, over 8..524288 B");
  EXPECT_TRUE(said);

  char name[] = "/tmp/xover-socket-copies-XXXXXX";
  close(mkstemp(name));
  std::ofstream(name) << platform_xml(c.draft);
  const CalibrationRecord record = read_calibration_record(name);
  const std::string loaded = in_child([&] {
    const Path path = sim::LogGPPlatform::load(name).path("node0", "node1");
    char buf[128];
    std::snprintf(buf, sizeof buf, "%.5f %.5f %.5f", path.lanes.at(0).o_send_per_byte * 1e9,
                  path.lanes.at(0).o_recv_per_byte * 1e9, path.lanes.at(1).o_send_per_byte * 1e9);
    return std::string(buf);
  });
  std::remove(name);
  EXPECT_EQ(record.sources.at("tcp-lo.o_send_per_byte"), "post-slope");
  EXPECT_EQ(loaded, "0.20000 0.10000 0.20000");
}

// The gets of a lane that also carries active messages (TCP) are served by
// the target's CPU: its gets' lane says so, and its L is what the gets'
// intercept leaves once the request's and the reply's o_s − a + o_r are
// out: (14 us − 2·(o_s − a + o_r) − 16 B at 5 GB/s) / 2. The
// active-message lane's own gets are none of its business.
TEST(SocketCopies, TheGetsLaneIsServedByTheTargetAndItsLLeavesBothMessages) {
  const Calibration c = calibrate(tcp_lane(false), FitDepth::Probes);
  const LaneAttrs& am = lane_named(c.draft, "tcp-lo");
  const LaneAttrs& rma = lane_named(c.draft, "tcp-lo-rma");
  EXPECT_TRUE(rma.get_served);
  EXPECT_FALSE(am.get_served);
  const double l = (kGetIntercept - 2 * (am.o_send - am.o_send_after + am.o_recv) - 16 / kGetBandwidth) / 2;
  ASSERT_GT(l, 1e-6);
  EXPECT_NEAR(rma.latency, l, 1e-12);
}

// A lane whose transport copies a bcopy message into a buffer of its own
// (shared memory's ring) has its post's time per byte in that copy, priced
// at the memcpy bandwidth: it takes neither figure.
TEST(SocketCopies, ALaneThatCopiesIntoItsOwnBufferTakesNone) {
  const Calibration c = calibrate(tcp_lane(true), FitDepth::Probes);
  for (const LaneAttrs& lane : c.draft.lanes) {
    EXPECT_EQ(lane.o_send_per_byte, 0) << lane.name;
    EXPECT_EQ(lane.o_recv_per_byte, 0) << lane.name;
  }
  EXPECT_EQ(c.draft.sources.count("tcp-lo.o_send_per_byte"), 0u);
}

// The core probe's figures (core_probe.hpp) go to the gets' lane, whose
// target serves without the core: o_core_send and o_core_recv as probed,
// their probe in the record, the probe's line in the comment block, the
// loader reading them back; the active-message lane, whose every message
// runs the core, takes none, nor does any lane when the core was not probed.
TEST(SocketCopies, CalibrateWritesTheCoresPartOnTheGetsLane) {
  Measurements m = tcp_lane(false);
  EXPECT_EQ(lane_named(calibrate(m, FitDepth::Probes).draft, "tcp-lo-rma").o_core_send, 0);
  m.core = {0.375e-6, 0.125e-6, 64, 41};
  const Calibration c = calibrate(m, FitDepth::Probes);
  const LaneAttrs& am = lane_named(c.draft, "tcp-lo");
  const LaneAttrs& rma = lane_named(c.draft, "tcp-lo-rma");
  EXPECT_EQ(rma.o_core_send, 0.375e-6);
  EXPECT_EQ(rma.o_core_recv, 0.125e-6);
  EXPECT_EQ(am.o_core_send, 0);
  EXPECT_EQ(am.o_core_recv, 0);
  EXPECT_EQ(c.draft.sources.at("tcp-lo-rma.o_core_send"), "core-probe");
  EXPECT_EQ(c.draft.sources.at("tcp-lo-rma.o_core_recv"), "core-probe");
  bool said = false;
  for (const std::string& line : c.draft.comments)
    said = said || line.starts_with("lane tcp-lo-rma: the protocol core's own time per message, from the core probe");
  EXPECT_TRUE(said);

  std::string temp = (std::filesystem::temp_directory_path() / "xover-core-part-XXXXXX").string();
  close(mkstemp(temp.data()));
  const char* name = temp.c_str();
  std::ofstream(name) << platform_xml(c.draft);
  const std::string loaded = in_child([&] {
    const Path path = sim::LogGPPlatform::load(name).path("node0", "node1");
    char buf[128];
    std::snprintf(buf, sizeof buf, "%.4f %.4f %.4f", path.lanes.at(1).o_core_send * 1e6,
                  path.lanes.at(1).o_core_recv * 1e6, path.lanes.at(0).o_core_send * 1e6);
    return std::string(buf);
  });
  std::remove(name);
  EXPECT_EQ(loaded, "0.3750 0.1250 0.0000");
}

/// rndv/get's time at n by its cost line on `draft`'s path.
Seconds rndv_get_model(const PlatformDraft& draft, Bytes n) {
  SelectConfig config;
  config.forced = {"rndv/get"};
  return model_time(ThresholdTable::build(draft_path(draft), config), n).value();
}

// The rndv/get sweep's excess over its model (the protocol core's time, 12
// us here) goes into the gets' lane's overheads, half each, and into their
// core part, which the target serving the get does not pay: the initiator
// pays it once, and the model of the sweep meets the sweep. Charged at
// both ends, the model ran the excess above the sweep.
TEST(SocketCopies, TheGetSweepsExcessIsPaidOnceByTheInitiator) {
  Measurements m = tcp_lane(false);
  const Calibration bare = calibrate(m, FitDepth::Probes);
  const std::vector<Bytes> sizes = {Bytes{64} << 10, Bytes{96} << 10, Bytes{128} << 10};
  for (Bytes n : sizes)
    m.sweeps.point("rndv/get", n).samples = {rndv_get_model(bare.draft, n) + 12e-6};
  const Calibration c = calibrate(m, FitDepth::Probes);
  for (Bytes n : sizes)
    EXPECT_NEAR(rndv_get_model(c.draft, n), m.sweeps.point("rndv/get", n).samples.front(), 1e-12) << n;
  const LaneAttrs& rma = lane_named(c.draft, "tcp-lo-rma");
  EXPECT_NEAR(rma.o_send - lane_named(bare.draft, "tcp-lo-rma").o_send, 6e-6, 1e-12);
  EXPECT_NEAR(rma.o_core_send, 6e-6, 1e-12);
  EXPECT_NEAR(rma.o_core_recv, 6e-6, 1e-12);
  EXPECT_EQ(c.draft.sources.at("tcp-lo-rma.o_core_send"), "fit-set");
}

}  // namespace
}  // namespace xover::calib
