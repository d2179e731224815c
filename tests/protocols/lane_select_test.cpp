#include <gtest/gtest.h>

#include "protocols/lanes/lane_select.hpp"
#include "tests/support/paths.hpp"

namespace xover {
namespace {

// Two requirements as a protocol declares them: rendezvous data over RDMA
// read and as active messages, both capped by max_rndv_lanes.
constexpr LaneRequirement kRma{LaneCap::GetZcopy, &LaneConfig::max_rndv_lanes};
constexpr LaneRequirement kRndvAm{LaneCap::AmZcopy, &LaneConfig::max_rndv_lanes};
constexpr LaneRequirement kRequirements[]{kRma, kRndvAm};

TEST(LaneSelect, BandwidthLanesAreGreedyAndDropSlowOnes) {
  // 25, 5 and 20 GB/s: with a ratio of 4 the 5 GB/s lane (< 25/4) goes;
  // the other two share bytes 25:20.
  const Path path = test::path({test::lane("a", 1, 25, 0.1), test::lane("b", 1, 5, 0.1), test::lane("c", 1, 20, 0.1)}, 10);
  const auto lanes = select_bw_lanes(path, LaneCap::GetZcopy, 3, 4);
  ASSERT_EQ(lanes.size(), 2u);
  EXPECT_EQ(lanes[0].lane, 0u);
  EXPECT_EQ(lanes[1].lane, 2u);
  EXPECT_DOUBLE_EQ(lanes[0].weight, 25.0 / 45);
  EXPECT_DOUBLE_EQ(lanes[1].weight, 20.0 / 45);
  // A ratio of 6 keeps the slow lane too; a limit of one keeps the fastest.
  EXPECT_EQ(select_bw_lanes(path, LaneCap::GetZcopy, 3, 6).size(), 3u);
  EXPECT_EQ(select_bw_lanes(path, LaneCap::GetZcopy, 1, 4), (std::vector<LaneShare>{{0, 1.0}}));
}

TEST(LaneSelect, EqualBandwidthPrefersLowerLatencyThenOrder) {
  const Path path = test::path({test::lane("a", 2, 10, 0.1), test::lane("b", 1, 10, 0.1), test::lane("c", 1, 10, 0.1)}, 10);
  const auto lanes = select_bw_lanes(path, LaneCap::AmZcopy, 2, 4);
  ASSERT_EQ(lanes.size(), 2u);
  EXPECT_EQ(lanes[0].lane, 1u);
  EXPECT_EQ(lanes[1].lane, 2u);
}

TEST(LaneSelect, AmLaneIsTheLowestLatencyWithShortOrBcopy) {
  LaneAttrs fast = test::lane("fast", 0.5, 10, 0.1);
  fast.caps = {LaneCap::GetZcopy};
  LaneAttrs slow = test::lane("slow", 3, 10, 0.1);
  LaneAttrs mid = test::lane("mid", 1, 1, 0.1);
  mid.caps = {LaneCap::AmBcopy};
  const Path path = test::path({fast, slow, mid}, 10);
  const EndpointLanes lanes = select_lanes(path, LaneConfig{}, kRequirements);
  EXPECT_EQ(lanes.am, 2u);
  EXPECT_EQ(lanes.bootstrap, 1u);
  EXPECT_TRUE(lanes.needs_bootstrap(path));
  EXPECT_EQ(lanes.bw(kRma), (std::vector<LaneShare>{{0, 0.5}, {1, 0.5}}));
}

TEST(LaneSelect, NoCapableLaneGivesNothing) {
  LaneAttrs l = test::lane("a", 1, 10, 0.1);
  l.caps = {LaneCap::AmShort};
  const Path path = test::path({l}, 10);
  const EndpointLanes lanes = select_lanes(path, LaneConfig{}, kRequirements);
  EXPECT_TRUE(lanes.bw(kRma).empty());
  EXPECT_TRUE(lanes.bw(kRndvAm).empty());
  EXPECT_FALSE(lanes.bootstrap);
}

TEST(LaneSelect, EachRequirementIsResolvedOnceWithItsOwnLimit) {
  // Three equal am_zcopy lanes: the same capability under two limits gives
  // two classes; a requirement asked for twice is one.
  const Path path = test::path({test::lane("a", 1, 10, 0.1), test::lane("b", 1, 10, 0.1), test::lane("c", 1, 10, 0.1)}, 10);
  const LaneRequirement eager{LaneCap::AmZcopy, &LaneConfig::max_eager_lanes};
  LaneConfig config;
  config.max_eager_lanes = 1;
  config.max_rndv_lanes = 3;
  const LaneRequirement asked[]{kRndvAm, eager, kRndvAm};
  const EndpointLanes lanes = select_lanes(path, config, asked);
  ASSERT_EQ(lanes.bandwidth.size(), 2u);
  EXPECT_EQ(lanes.bw(kRndvAm).size(), 3u);
  EXPECT_EQ(lanes.bw(eager), (std::vector<LaneShare>{{0, 1.0}}));
  EXPECT_THROW(lanes.bw(kRma), std::logic_error);
}

TEST(LaneCaps, ParseAndPrintRoundTrip) {
  const LaneCaps caps = LaneCaps::parse("am_short, get_zcopy,connect_to_iface");
  EXPECT_TRUE(caps.has(LaneCap::AmShort));
  EXPECT_FALSE(caps.has(LaneCap::AmBcopy));
  EXPECT_EQ(caps.to_string(), "am_short,get_zcopy,connect_to_iface");
  EXPECT_EQ(LaneCaps::parse(LaneCaps::all().to_string()), LaneCaps::all());
  EXPECT_THROW(LaneCaps::parse("am_short,warp_drive"), std::invalid_argument);
}

// A message factor scales every per-byte figure of the path at the
// message's size, each step of them included, and clears itself; device
// copies, latencies and overheads keep theirs.
TEST(Path, ForMessageScalesEveryPerByteFigureByTheMessagesFactor) {
  LaneAttrs stepped{.name = "r0", .latency = 2e-6, .bandwidth = 10e9, .o_send = 0.3e-6};
  stepped.bandwidth_steps = SizeSteps({{0, 10e9}, {16384, 8e9}});
  LaneAttrs plain{.name = "r1", .latency = 3e-6, .bandwidth = 5e9};
  Path path{"a", "b", {stepped, plain}, 16e9, 12e9};
  path.memcpy_local_steps = SizeSteps({{0, 16e9}, {2048, 8e9}});
  path.device_local = {.stage_o = 1e-6, .stage_bw = 25e9, .ipc_bw = 0};
  path.message_factor = SizeSteps({{0, 1}, {65536, 0.5}});

  EXPECT_EQ(path.message_factor_at(0), 1);
  EXPECT_EQ(path.message_factor_at(65535), 1);
  EXPECT_EQ(path.message_factor_at(65536), 0.5);
  EXPECT_EQ(path.message_factor_at(Bytes{1} << 30), 0.5);
  EXPECT_EQ(Path{}.message_factor_at(65536), 1) << "no factor: 1 at every size";
  EXPECT_EQ(path.breakpoints(), (std::vector<Bytes>{2048, 16384, 65536}));

  const Path small = path.for_message(4096);
  EXPECT_TRUE(small.message_factor.empty());
  EXPECT_EQ(small.lanes[0].bandwidth, 10e9);
  EXPECT_EQ(small.memcpy_bw_local, 8e9) << "at(4096): the copy's step";

  const Path big = path.for_message(65536);
  EXPECT_TRUE(big.message_factor.empty());
  EXPECT_EQ(big.lanes[0].bandwidth, 4e9) << "8 GB/s at 64 KiB, halved";
  EXPECT_EQ(big.lanes[0].bandwidth_steps, SizeSteps({{0, 5e9}, {16384, 4e9}}));
  EXPECT_EQ(big.lanes[0].bandwidth_at(8192), 5e9) << "a fragment keeps the message's pace";
  EXPECT_EQ(big.lanes[1].bandwidth, 2.5e9);
  EXPECT_TRUE(big.lanes[1].bandwidth_steps.empty());
  EXPECT_EQ(big.memcpy_bw_local, 4e9);
  EXPECT_EQ(big.memcpy_local_steps, SizeSteps({{0, 8e9}, {2048, 4e9}}));
  EXPECT_EQ(big.memcpy_bw_remote, 6e9);
  EXPECT_TRUE(big.memcpy_remote_steps.empty());
  EXPECT_EQ(big.lanes[0].latency, 2e-6);
  EXPECT_EQ(big.lanes[0].o_send, 0.3e-6);
  EXPECT_EQ(big.device_local, path.device_local);
  EXPECT_TRUE(big.breakpoints() == (std::vector<Bytes>{2048, 16384}));
}

// A lane's own factor scales that lane's bandwidth, steps included, in
// place of the path's; the other lanes and the copies keep the path's; its
// sizes are the path's breakpoints, and for_message clears it.
TEST(Path, ForMessageGivesALaneItsOwnFactor) {
  LaneAttrs own{.name = "cma", .bandwidth = 10e9};
  own.bandwidth_steps = SizeSteps({{0, 10e9}, {16384, 8e9}});
  own.message_factor = SizeSteps({{0, 1}, {32768, 0.8}, {1048576, 0.25}});
  LaneAttrs plain{.name = "mm", .bandwidth = 5e9};
  Path path{"a", "b", {own, plain}, 16e9, 12e9};
  path.message_factor = SizeSteps({{0, 1}, {65536, 0.5}});

  EXPECT_EQ(path.lane_factor_at(path.lanes[0], 40000), 0.8);
  EXPECT_EQ(path.lane_factor_at(path.lanes[1], 40000), 1);
  EXPECT_EQ(path.lane_factor_at(path.lanes[1], 65536), 0.5);
  EXPECT_TRUE(path.has_message_factor());
  EXPECT_EQ(path.breakpoints(), (std::vector<Bytes>{16384, 32768, 65536, 1048576}));

  const Path mid = path.for_message(40000);
  EXPECT_EQ(mid.lanes[0].bandwidth, 6.4e9) << "8 GB/s at 0.8, the lane's own";
  EXPECT_EQ(mid.lanes[0].bandwidth_steps, SizeSteps({{0, 8e9}, {16384, 6.4e9}}));
  EXPECT_EQ(mid.lanes[1].bandwidth, 5e9) << "the path's 1 below 64 KiB";
  EXPECT_EQ(mid.memcpy_bw_local, 16e9);
  EXPECT_FALSE(mid.has_message_factor());

  const Path big = path.for_message(Bytes{1} << 20);
  EXPECT_EQ(big.lanes[0].bandwidth, 2e9) << "8 GB/s at 0.25, not the path's 0.5";
  EXPECT_EQ(big.lanes[1].bandwidth, 2.5e9);
  EXPECT_EQ(big.memcpy_bw_local, 8e9);
  EXPECT_EQ(big.memcpy_bw_remote, 6e9);
  EXPECT_TRUE(big.lanes[0].message_factor.empty());

  Path lane_only = path;
  lane_only.message_factor = {};
  EXPECT_TRUE(lane_only.has_message_factor());
  EXPECT_FALSE(Path{}.has_message_factor());
}

}  // namespace
}  // namespace xover
