#include <gtest/gtest.h>

#include <cmath>

#include "protocols/select/closed_form.hpp"
#include "tests/support/paths.hpp"

namespace xover {
namespace {

TEST(ClosedForm, SeedFormulaByHand) {
  // ecost 2, egro 0, ebw 1 (1 s/B), eover 1; rcost 10, rgro 0, rbw 4, rlat 1,
  // rover 1, d = 1:
  //   rrc 0: n = (10 + 4 + 3 − 2 − 1) / (1 − 0.25) = 14 / 0.75 = 18.67
  //   rrc 1: n = (20 + 4 + 3 − 3) / 0.75 = 32
  SeedInputs in{2, 0, 1, 1, 10, 0, 4, 1, 1, 1};
  EXPECT_NEAR(*seed_threshold(in, 0), 14 / 0.75, 1e-12);
  EXPECT_NEAR(*seed_threshold(in, 1), 32, 1e-12);
  // A rendezvous that grows faster than eager never wins.
  in.rgro = 1;
  EXPECT_FALSE(seed_threshold(in, 0));
  // Nor does one that is already cheaper have a positive threshold.
  in = SeedInputs{100, 0, 1, 0, 0, 0, 4, 0, 0, 1};
  EXPECT_FALSE(seed_threshold(in, 0));
}

// The seed's assumptions, made true: the two rails are equal, latency and
// overheads vanish, the copy is free, the receive segment takes any eager
// message, registration is paid every time, and eager means zero-copy (with
// free copies and paid registration the bcopy protocols would otherwise win
// eager's side, and the table would hand over from them). Then eager/zcopy is
//   ecost + n(egro + 1/ebw)
// and rndv/get over both rails is
//   2(Σ reg_cost) + n(2 Σ reg_growth + 1/ΣB),
// the seed's lines but for the header bytes the model puts on the wire
// (16 B eager; 96 B RTS and a 16 B read request for rendezvous: 9.5 ns
// after d), which move the crossover by 9.5 ns / 0.0357 ns/B = 266 B:
//   seed   n = (0.99·2·10 us − 5 us) / (0.105 − 0.99·0.07) ns/B = 414 565.9
//   model  n = 414 565.9 + 265.8 = 414 831.6, within 0.1 %: they agree.
TEST(ClosedForm, AgreesWithTheEnvelopeWhenTheSeedsAssumptionsHold) {
  LaneAttrs r = test::lane("r0", 0, 10, 0);
  r.reg_cost = 5e-6;
  r.reg_growth = 0.005e-9;
  r.seg_size = r.max_zcopy = Bytes{1} << 40;
  LaneAttrs r1 = r;
  r1.name = "r1";
  Path path = test::path({r, r1}, 1e21);
  SelectConfig config;
  config.reg_cache = false;
  config.set("disable=eager/bcopy,eager/multi/bcopy");
  const ThresholdTable table = ThresholdTable::build(path, config);
  const auto cmp = compare_closed_form(table, path, config);
  ASSERT_EQ(cmp.size(), 2u);
  const ClosedFormComparison& get = cmp[1];
  EXPECT_EQ(get.rndv, "rndv/get");
  ASSERT_TRUE(get.closed_form && get.envelope);
  EXPECT_EQ(*get.closed_form, 414566u);
  EXPECT_EQ(*get.envelope, 414832u);
  EXPECT_TRUE(get.agree);
  EXPECT_EQ(get.table, get.envelope);
  bool names_headers = false;
  for (const std::string& reason : get.reasons)
    names_headers |= reason.find("header") != std::string::npos;
  EXPECT_TRUE(names_headers);
}

// With latency and overheads the seed and the model count differently: the
// seed's eager time has no latency, and its rendezvous counts 4 L and 3
// overheads up to the sender's ACK where the model stops at the receiver.
TEST(ClosedForm, DiffersWithLatencyAndSaysWhy) {
  LaneAttrs r = test::lane("r0", 1, 10, 0.25);
  r.seg_size = r.max_zcopy = Bytes{1} << 40;
  LaneAttrs r1 = r;
  r1.name = "r1";
  const Path path = test::path({r, r1}, 1e21);
  const SelectConfig config;
  const ThresholdTable table = ThresholdTable::build(path, config);
  const ClosedFormComparison get = compare_closed_form(table, path, config)[1];
  // Seed: n = 0.99(4 us + 3·0.5 us) − 0.5 us) / (0.1 − 0.99·0.05) ns/B
  //         = 4.945 us / 0.0505 ns/B = 97 920.8
  // Model: eager/zcopy 1.5016 us + 0.1n (16 B header); rndv/get
  //        0.99(1.5096 + 2.0016 + 0.75 + 0.25) us + 0.0495n:
  //        n = (4.466088 − 1.5016) / 0.0505 = 58 702.7
  ASSERT_TRUE(get.closed_form && get.envelope);
  EXPECT_EQ(*get.closed_form, 97921u);
  EXPECT_EQ(*get.envelope, 58703u);
  EXPECT_FALSE(get.agree);
  ASSERT_FALSE(get.reasons.empty());
  bool names_latency = false;
  bool names_ack = false;
  for (const std::string& reason : get.reasons) {
    names_latency |= reason.find("no latency or header term") != std::string::npos;
    names_ack |= reason.find("sender's ACK") != std::string::npos;
  }
  EXPECT_TRUE(names_latency);
  EXPECT_TRUE(names_ack);
}

// A lane that keeps the receiver's CPU time per byte apart from its wire's
// (TCP: 0.02 of the 0.1 ns/B, its wire 0.08 ns/B, 12.5 GB/s) is the same
// lane to the seed, whose bandwidths are what one message sees: the same
// threshold as above, 97 921 B.
TEST(ClosedForm, TheSeedsBandwidthHoldsTheReceiversTimePerByte) {
  LaneAttrs r = test::lane("r0", 1, 10, 0.25);
  r.seg_size = r.max_zcopy = Bytes{1} << 40;
  r.o_recv_per_byte = 0.02e-9;
  r.bandwidth = 1 / 0.08e-9;
  LaneAttrs r1 = r;
  r1.name = "r1";
  const Path path = test::path({r, r1}, 1e21);
  const SelectConfig config;
  const ThresholdTable table = ThresholdTable::build(path, config);
  const ClosedFormComparison get = compare_closed_form(table, path, config)[1];
  ASSERT_TRUE(get.inputs && get.closed_form);
  EXPECT_NEAR(get.inputs->ebw, 10e9, 1e-3);
  EXPECT_NEAR(get.inputs->rbw, 20e9, 1e-3);
  EXPECT_EQ(*get.closed_form, 97921u);
}

TEST(ClosedForm, SaysSoWhenEagerZcopyStopsBeforeTheCrossover) {
  LaneAttrs r = test::lane("r0", 1, 10, 0.25);
  const Path path = test::path({r}, 10);
  const SelectConfig config;
  const ThresholdTable table = ThresholdTable::build(path, config);
  const ClosedFormComparison get = compare_closed_form(table, path, config)[1];
  bool names_segment = false;
  for (const std::string& reason : get.reasons)
    names_segment |= reason.find("one receive segment") != std::string::npos;
  EXPECT_TRUE(names_segment);
}

}  // namespace
}  // namespace xover
