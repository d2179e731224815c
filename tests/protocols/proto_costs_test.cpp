// The shared cost pieces with the two lane terms that refine LogGP
// (protocols/proto_costs.hpp): o_send_after comes off one message's sum and
// a pipeline's fill, never off the sender's CPU factor that paces a stream;
// a bcopy's sender copy is there only where the lane's transport makes one.
#include <gtest/gtest.h>

#include "protocols/proto_costs.hpp"

namespace xover {
namespace {

LaneAttrs slow_send(Seconds after) {
  LaneAttrs lane{.name = "r0", .latency = 2e-6, .bandwidth = 10e9, .o_send = 1e-6, .o_recv = 0.2e-6};
  lane.o_send_after = after;
  return lane;
}

void expect_line(const LinearFunc& got, double c, double m) {
  EXPECT_NEAR(got.c, c, 1e-15);
  EXPECT_NEAR(got.m, m, 1e-21);
}

// One message: 1 − 0.8 + 2 + 16 B / 10 GB/s + 0.2 us; a stream of them is
// paced by the whole 1 us of o_send either way.
TEST(ProtoCosts, SendOverlapComesOffOneMessageNotOffAStream) {
  const PerfFactors with = cost::am_message(slow_send(0.8e-6), 16);
  const PerfFactors without = cost::am_message(slow_send(0), 16);
  expect_line(with.single(), 2.4016e-6, 0.1e-9);
  expect_line(without.single(), 3.2016e-6, 0.1e-9);
  expect_line(with[Factor::LocalCpu], 1e-6, 0);
  const PiecewiseFunc stream = with.streaming(0, 1000);
  ASSERT_EQ(stream.size(), 1U);
  expect_line(stream[0].f, 1e-6, 0);
  ASSERT_EQ(without.streaming(0, 1000).size(), 1U);
  EXPECT_EQ(without.streaming(0, 1000)[0].f, stream[0].f);
}

// Sixteen fragments of 4064 B, the sender's 1 us the slowest stage: the
// fill is 0.8 us shorter, the rate (1 us per fragment) the same.
TEST(ProtoCosts, SendOverlapShortensAPipelinesFillNotItsRate) {
  const auto pipeline = [](Seconds after) {
    Path path;
    path.lanes = {slow_send(after)};
    return cost::fragment_pipeline(path, {{0, 1.0}}, 4064, 32, LinearFunc::constant(1e-6),
                                   LinearFunc{0.2e-6, 1 / 8e9})
        .single();
  };
  const LinearFunc with = pipeline(0.8e-6);
  const LinearFunc without = pipeline(0);
  EXPECT_NEAR(without.c - with.c, 0.8e-6, 1e-15);
  EXPECT_DOUBLE_EQ(with.m, without.m);
  EXPECT_DOUBLE_EQ(with.m, 1e-6 / 4064);
}

// An o_send_after above an operation's o_send is all of that o_send.
TEST(ProtoCosts, SendOverlapIsAtMostTheOperationsOSend) {
  LaneAttrs lane = slow_send(0.8e-6);
  lane.o_send_steps = SizeSteps({{0, 1e-6}, {1024, 0.5e-6}});
  EXPECT_EQ(lane.o_send_after_at(0), 0.8e-6);
  EXPECT_EQ(lane.o_send_after_at(4096), 0.5e-6);
  EXPECT_EQ(lane.at(4096).sent_after(), 0.5e-6);
  EXPECT_EQ(lane.at(4096).o_send_after, 0.8e-6) << "kept whole for the other sizes";
}

TEST(ProtoCosts, ABcopysSenderCopyOnlyWhereTheTransportMakesOne) {
  LaneAttrs lane = slow_send(0);
  EXPECT_EQ(cost::bcopy_send_copy(lane, 8e9), LinearFunc::per_byte(1 / 8e9));
  lane.bcopy_copies = false;
  EXPECT_EQ(cost::bcopy_send_copy(lane, 8e9), LinearFunc{});
}

}  // namespace
}  // namespace xover
