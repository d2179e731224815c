// The simulator against the cost models: on one rail every protocol's
// simulated ping-pong time equals its cost line within 1e-9 relative where
// the model is exact, and within one fragment's slowest stage where it is
// not (multi-fragment messages whose last fragment is short); on two rails,
// striping halves the wire time as predicted.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "protocols/workload/workloads.hpp"
#include "sim/simulate.hpp"
#include "tests/sim/exactness_support.hpp"

namespace xover {
namespace {

using namespace exactness;

// Multi-eager messages of 2 to 8 fragments whose last is one byte, half a
// fragment or near-empty (8 and 16 KiB: 64 and 128 bytes past whole
// fragments): the simulated ping-pong is its cost line exactly, the last
// fragment's fixed costs included (protocols/fragment_tail.hpp), where the
// sender is the slowest stage (eager/multi/bcopy on one_rail_exact.xml:
// o_s + S/M, 0.81 us), where the receiver is (eager/multi/zcopy: o_r +
// S/M, 0.71 us, against a sender's 0.3 us), and with a part of o_s after
// the message has left (one_rail_send_after.xml), each point simulated
// fresh. Before, the line missed the last fragment's fixed costs.
TEST(SimExactness, MultiEagersLastShortFragmentIsInItsLine) {
  std::vector<Bytes> sizes{8192, 16384};
  for (Bytes k = 2; k <= 8; ++k)
    for (Bytes r : {Bytes{1}, kMultiFragment / 2})
      sizes.push_back((k - 1) * kMultiFragment + r);
  std::sort(sizes.begin(), sizes.end());
  for (const char* platform : {"one_rail_exact.xml", "one_rail_send_after.xml"})
    for (Bytes size : sizes) {
      // Each point in a fresh simulation, as `xover run` simulates it.
      const auto results = simulate(kData + platform, {"eager/multi/bcopy", "eager/multi/zcopy"}, {size},
                                    {{"cache", with("reg_cache", "on")}});
      ASSERT_EQ(results.size(), 2u) << platform;
      for (const auto& [key, points] : results)
        for (const Measured& m : points)
          EXPECT_NEAR(m.time, m.model, 1e-9 * m.model) << platform << " " << key << " at " << m.size << " B";
    }
}

TEST(SimExactness, EveryProtocolOnOneRailMatchesItsModel) {
  const std::vector<std::string> curves{"eager/short",       "eager/bcopy", "eager/zcopy", "eager/multi/bcopy",
                                        "eager/multi/zcopy", "rndv/am",     "rndv/get"};
  const std::vector<Bytes> sizes{0,     8,     240,   1000,  kMultiFragment, kRndvAmFragment, 10000, 3 * kMultiFragment,
                                 4 * kRndvAmFragment, 16 * kMultiFragment, 100000, 64 * kRndvAmFragment, 1 << 22};
  const auto results = simulate(kData + "one_rail_exact.xml", curves, sizes,
                                {{"cache", with("reg_cache", "on")}, {"nocache", with("reg_cache", "off")}});
  // The slowest stage: the receiver's o_recv + copy, 0.71 us here.
  const Tally tally = check_against_models(results, 1e-6);
  EXPECT_GE(tally.exact, 100);
  EXPECT_GT(tally.bounded, 10);
}

// Buffers in device memory on platforms/shm-gpu.xml (stage_o 10 us, stage_bw
// 25 GB/s, ipc_bw 250 GB/s at each end; a bcopy segment of 8 KiB, so an
// rndv/pipe fragment carries 8176 B): every byte checked, and each
// protocol's time its cost line, exactly where the line is exact; above one
// fragment, rndv/pipe's line spreads the last, shorter fragment over the
// bytes while the simulation pays its copies whole: less than one
// fragment's slowest stage off (the sender's o_s + stage + bounce copy,
// 11.05 us here).
TEST(SimExactness, DeviceMemoryProtocolsMatchTheirModels) {
  constexpr Bytes kPipeFragment = 8176;
  const std::vector<Bytes> sizes{0,    8,    1000, 8000, kPipeFragment, 10000, 3 * kPipeFragment, 100000,
                                 16 * kPipeFragment, 1 << 20};
  const auto results = simulate(XOVER_SOURCE_DIR "/platforms/shm-gpu.xml", {"eager/staged", "rndv/pipe", "rndv/ipc"},
                                sizes, {{"gpu", SelectConfig{}}}, MemType::Cuda);
  ASSERT_EQ(results.count("gpu rndv/ipc"), 1U);
  EXPECT_EQ(results.at("gpu rndv/ipc").size(), sizes.size());
  EXPECT_EQ(results.at("gpu rndv/pipe").size(), sizes.size());
  EXPECT_EQ(results.at("gpu eager/staged").size(), 5U) << "up to the 8176 B a bcopy segment carries";
  int exact = 0;
  int bounded = 0;
  for (const auto& [key, points] : results) {
    for (const Measured& m : points) {
      const bool fragmented = m.protocol == "rndv/pipe" && m.size > kPipeFragment;
      if (!fragmented || m.size % kPipeFragment == 0) {
        EXPECT_NEAR(m.time, m.model, 1e-9 * m.model) << key << " at " << m.size << " B";
        ++exact;
      } else {
        EXPECT_GE(m.time, m.model) << key << " at " << m.size << " B";
        EXPECT_LT(m.time - m.model, 11.05e-6) << key << " at " << m.size << " B";
        ++bounded;
      }
    }
  }
  EXPECT_EQ(exact, 22);
  EXPECT_EQ(bounded, 3);
}

// Figures that change with the operation's size (one_rail_steps.xml: memcpy
// steps at 2 KiB and 1 MiB, o_send at 1 KiB, o_recv at 64 KiB, the wire's
// bandwidth at 16 KiB and 1 MiB, moved at a SimGrid flow rate): every
// protocol still matches its model below, at and above each breakpoint,
// where the model is exact; fragmented messages whose last fragment is
// short stay within its slowest stage.
TEST(SimExactness, SizeStepsOnOneRailMatchTheModelOnBothSidesOfEachBreakpoint) {
  const std::vector<std::string> curves{"eager/short",       "eager/bcopy", "eager/zcopy", "eager/multi/bcopy",
                                        "eager/multi/zcopy", "rndv/am",     "rndv/get"};
  const std::vector<Bytes> sizes{0,     200,   1023,  1024,  1025,  2047,  2048,  2049,    kMultiFragment,
                                 kRndvAmFragment, 3 * kMultiFragment, 16383, 16384, 16385, 65535, 65536, 65537,
                                 16 * kRndvAmFragment,
                                 (1 << 20) - 1,   1 << 20,            (1 << 20) + 1, 1 << 22};
  const auto results = simulate(kData + "one_rail_steps.xml", curves, sizes,
                                {{"cache", with("reg_cache", "on")}, {"nocache", with("reg_cache", "off")}});
  EXPECT_GE(check_against_models(results, 1.5e-6).exact, 120);
}

// Two equal rails of 10 GB/s: rndv/get over both against rndv/get over one.
// Both match their models, and the difference between them is n/(2B) plus a
// constant (one more get to post and take in): the wire time halves.
TEST(SimExactness, StripingOverTwoRailsHalvesTheWireTime) {
  const std::vector<Bytes> sizes{100000, 1 << 20, 1 << 22, 1 << 24};
  const auto results = simulate(kData + "two_rails_exact.xml", {"rndv/get"}, sizes,
                                {{"one", with("max_rndv_lanes", "1")}, {"two", with("max_rndv_lanes", "2")}});
  const auto& one = results.at("one rndv/get");
  const auto& two = results.at("two rndv/get");
  ASSERT_EQ(one.size(), sizes.size());
  ASSERT_EQ(two.size(), sizes.size());
  std::vector<double> constant;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    EXPECT_NEAR(one[i].time, one[i].model, 1e-9 * one[i].model) << sizes[i];
    EXPECT_NEAR(two[i].time, two[i].model, 1e-9 * two[i].model) << sizes[i];
    constant.push_back(one[i].time - two[i].time - static_cast<double>(sizes[i]) / 20e9);
  }
  for (double c : constant)
    EXPECT_NEAR(c, constant.front(), 1e-12);
  // What two lanes cost on top: the get stage's max(k·o_s + o_r,
  // o_s + k·o_r) grows from 0.5 us to max(0.8, 0.7) = 0.8 us, and the RTS
  // carries a second (lane, key, address): 24 B at 10 GB/s.
  EXPECT_NEAR(constant.front(), -(0.8e-6 - 0.5e-6) - 24.0 / 10e9, 1e-12);
}

// The same two rails with a bandwidth step at 16 KiB (10 GB/s, then 6 GB/s):
// where each rail's share is in the message's step, rndv/get over both
// matches its model, and its wire time is n/(2·6 GB/s).
TEST(SimExactness, StripingWithBandwidthStepsMatchesTheModel) {
  const std::vector<Bytes> sizes{100000, 1 << 20, 1 << 22};
  const auto results = simulate(kData + "two_rails_steps.xml", {"rndv/get"}, sizes,
                                {{"one", with("max_rndv_lanes", "1")}, {"two", with("max_rndv_lanes", "2")}});
  const auto& one = results.at("one rndv/get");
  const auto& two = results.at("two rndv/get");
  ASSERT_EQ(one.size(), sizes.size());
  ASSERT_EQ(two.size(), sizes.size());
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    EXPECT_NEAR(one[i].time, one[i].model, 1e-9 * one[i].model) << sizes[i];
    EXPECT_NEAR(two[i].time, two[i].model, 1e-9 * two[i].model) << sizes[i];
  }
  EXPECT_NEAR((one[2].time - two[2].time) - (one[1].time - two[1].time), 3.0 * (1 << 20) / 12e9, 1e-12);
}

// A message factor (xover:bw_factor "0:1;64KiB:0.5" on both nodes of
// one_rail_factor.xml, one_rail_exact.xml otherwise): every protocol still
// matches its model on both sides of 64 KiB, multi-eager's and rndv/am's
// 4 KiB fragments at their message's factor, not at their own size's; below
// 64 KiB each time is the plain platform's, from 64 KiB each is slower.
// With a factor, the slowest stage of a fragment is the receiver's o_recv +
// copy at half the memcpy bandwidth: 0.2 us + 4064 B / 4 GB/s ≈ 1.22 us.
TEST(SimExactness, MessageFactorMatchesTheModelOnBothSidesOfItsStep) {
  const std::vector<std::string> curves{"eager/bcopy", "eager/multi/bcopy", "eager/multi/zcopy", "rndv/am",
                                        "rndv/get"};
  const std::vector<Bytes> sizes{0,         1000,  kMultiFragment,      16 * kMultiFragment, 16 * kRndvAmFragment,
                                 65535,     65536, 65537,               17 * kMultiFragment, 17 * kRndvAmFragment,
                                 1 << 20,   1 << 22};
  const std::vector<std::pair<std::string, SelectConfig>> settings{{"cache", with("reg_cache", "on")}};
  const auto factor = simulate(kData + "one_rail_factor.xml", curves, sizes, settings);
  EXPECT_GE(check_against_models(factor, 1.5e-6).exact, 30);
  const auto plain = simulate(kData + "one_rail_exact.xml", curves, sizes, settings);
  int slower = 0;
  for (const auto& [key, points] : factor) {
    ASSERT_EQ(plain.count(key), 1U) << key;
    ASSERT_EQ(plain.at(key).size(), points.size()) << key;
    for (std::size_t i = 0; i < points.size(); ++i) {
      const Measured& with_factor = points[i];
      const Measured& without = plain.at(key)[i];
      ASSERT_EQ(with_factor.size, without.size);
      if (with_factor.size < 65536) {
        EXPECT_NEAR(with_factor.time, without.time, 1e-9 * without.time) << key << " at " << with_factor.size;
      } else {
        EXPECT_GT(with_factor.time, without.time) << key << " at " << with_factor.size;
        ++slower;
      }
    }
  }
  EXPECT_EQ(slower, 4 * 6) << "every curve but eager/bcopy (4 KiB at most here) at the 6 sizes from 64 KiB";
}

// eager/bcopy as one fragment of any size (one_rail_big_segment_factor.xml,
// the same factor on one_rail_big_segment.xml): its copies at both ends and
// its wire time at the message's factor, exactly its model, and slower than
// without the factor from 64 KiB.
TEST(SimExactness, MessageFactorPacesAWholeEagerMessage) {
  const std::vector<std::string> curves{"eager/bcopy", "rndv/get"};
  const std::vector<Bytes> sizes{1000, 65535, 65536, 1 << 20};
  const std::vector<std::pair<std::string, SelectConfig>> settings{{"eager", SelectConfig{}}};
  const auto factor = simulate(kData + "one_rail_big_segment_factor.xml", curves, sizes, settings);
  const auto plain = simulate(kData + "one_rail_big_segment.xml", curves, sizes, settings);
  for (const std::string& curve : curves) {
    const auto& with_factor = factor.at("eager " + curve);
    const auto& without = plain.at("eager " + curve);
    ASSERT_EQ(with_factor.size(), sizes.size()) << curve;
    ASSERT_EQ(without.size(), sizes.size()) << curve;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      EXPECT_NEAR(with_factor[i].time, with_factor[i].model, 1e-9 * with_factor[i].model) << curve << sizes[i];
      if (sizes[i] < 65536)
        EXPECT_NEAR(with_factor[i].time, without[i].time, 1e-9 * without[i].time) << curve << sizes[i];
      else
        EXPECT_GT(with_factor[i].time, without[i].time) << curve << sizes[i];
    }
  }
  // eager/bcopy at 1 MiB: a copy at each end and the wire, each twice as
  // long: the time grows by n/8 GB/s · 2 + (n + header)/10 GB/s.
  const double n = 1 << 20;
  const double header = (factor.at("eager eager/bcopy")[3].time - plain.at("eager eager/bcopy")[3].time -
                         2 * n / 8e9) * 10e9 - n;
  EXPECT_GE(header, 0);
  EXPECT_LT(header, 64) << "the eager header's bytes, no more";
}


// o_send_after (one_rail_send_after.xml: 0.8 us of a 1 us o_send after the
// message has left; one_rail_slow_send.xml the same 1 us without): every
// protocol matches its model, and each message the critical path waits for
// leaves 0.8 us sooner, no more: eager and multi-eager 0.8 us, rndv/get
// 1.6 us (RTS and the read request; the ACK's o_s is all the receiver's
// before its next send), rndv/am 2.4 us (RTS, RTR, data). A fragment
// pipeline's sender stage is the slowest here (o_s + a fragment's copy,
// 1.508 us, against the receiver's 0.708 us) and keeps the whole o_s: 16
// fragments are 0.8 us sooner, not 16 × 0.8 us.
TEST(SimExactness, SendOverlapComesOffEachMessageButNotOffTheSendersStage) {
  const std::vector<std::string> curves{"eager/short",       "eager/bcopy", "eager/zcopy", "eager/multi/bcopy",
                                        "eager/multi/zcopy", "rndv/am",     "rndv/get"};
  const std::vector<Bytes> sizes{0,      8,     1000,  kMultiFragment, kRndvAmFragment, 10000, 16 * kMultiFragment,
                                 100000, 16 * kRndvAmFragment, 1 << 20};
  const std::vector<std::pair<std::string, SelectConfig>> settings{{"cache", with("reg_cache", "on")}};
  const auto after = simulate(kData + "one_rail_send_after.xml", curves, sizes, settings);
  const auto whole = simulate(kData + "one_rail_slow_send.xml", curves, sizes, settings);
  EXPECT_EQ(check_against_models(after, 1.6e-6).exact, 38);
  EXPECT_EQ(check_against_models(whole, 1.6e-6).exact, 38);
  const std::map<std::string, double> sooner = exact_differences(whole, after);
  EXPECT_EQ(sooner.size(), 38U);
  for (const auto& [key, d] : sooner) {
    const double messages =
        key.starts_with("rndv/am ") ? 3 : (key.starts_with("rndv/get ") && key != "rndv/get 0" ? 2 : 1);
    EXPECT_NEAR(d, messages * 0.8e-6, 1e-12) << key;
  }
  EXPECT_NEAR(sooner.at("eager/multi/bcopy " + std::to_string(16 * kMultiFragment)), 0.8e-6, 1e-12);
}

// xover:bcopy_copy no (one_rail_no_bcopy_copy.xml, one_rail_slow_send.xml
// otherwise: o_send 1 us, so that the sender's stage paces a fragment
// pipeline with its copy or without): no sender copy in a bcopy message, in
// the cost lines and the simulation alike, which agree. eager/bcopy is n/M
// sooner (M = 8 GB/s), and eager/multi/bcopy S/M per fragment, the sender's
// stage falling from 1.508 us to 1 us; eager/short and eager/zcopy are as
// before.
TEST(SimExactness, BcopyWithoutASenderCopyMatchesItsModel) {
  const std::vector<std::string> curves{"eager/short", "eager/bcopy", "eager/zcopy", "eager/multi/bcopy"};
  const std::vector<Bytes> sizes{0, 8, 240, 1000, kMultiFragment, 4 * kMultiFragment, 16 * kMultiFragment};
  const std::vector<std::pair<std::string, SelectConfig>> settings{{"cache", with("reg_cache", "on")}};
  const auto none = simulate(kData + "one_rail_no_bcopy_copy.xml", curves, sizes, settings);
  const auto copied = simulate(kData + "one_rail_slow_send.xml", curves, sizes, settings);
  EXPECT_EQ(check_against_models(none, 1.6e-6).exact, 20);
  const std::map<std::string, double> sooner = exact_differences(copied, none);
  EXPECT_EQ(sooner.size(), 20U);
  for (const auto& [key, d] : sooner) {
    const std::size_t space = key.find(' ');
    const std::string curve = key.substr(0, space);
    const double n = std::stod(key.substr(space + 1));
    if (curve == "eager/bcopy" || curve == "eager/multi/bcopy")
      EXPECT_NEAR(d, n / 8e9, 1e-12) << key;
    else
      EXPECT_NEAR(d, 0, 1e-12) << key;
  }
  EXPECT_NEAR(sooner.at("eager/multi/bcopy " + std::to_string(16 * kMultiFragment)), 16 * 508e-9, 1e-12);
}

// Nodes with different factors (one_rail_factor_mixed.xml): the route takes
// the smaller at each size, 1, then 0.8 from 16 KiB, 0.5 from 64 KiB and
// 0.25 from 1 MiB, and the simulation matches the model built on it at both
// ends of every message.
TEST(SimExactness, MessageFactorOfTwoDifferentNodesIsTheSmaller) {
  const std::vector<std::string> curves{"eager/multi/bcopy", "rndv/am", "rndv/get"};
  const std::vector<Bytes> sizes{kMultiFragment, 4 * kMultiFragment, 4 * kRndvAmFragment, 16383, 16384,
                                 16 * kMultiFragment, 16 * kRndvAmFragment, 65536, (1 << 20) - 1, 1 << 20, 1 << 22};
  const auto results = simulate(kData + "one_rail_factor_mixed.xml", curves, sizes,
                                {{"cache", with("reg_cache", "on")}});
  // The slowest stage: the receiver's o_recv + a fragment's copy at a
  // quarter of 8 GB/s, 0.2 us + 4064 B / 2 GB/s ≈ 2.23 us.
  EXPECT_GE(check_against_models(results, 2.3e-6).exact, 15);
}

// A lane's own message factor (one_rail_lane_factor.xml: the link's 0.8
// from 16 KiB and 0.25 from 1 MiB, the nodes' 0.5 from 64 KiB): the
// lane's transfers take the lane's, the copies at both ends the nodes',
// and every point matches its cost line on both sides of each factor's
// sizes. rndv/get makes no copy: against one_rail_exact.xml its 4 MiB is
// slower by the wire at a quarter of 10 GB/s, the nodes' 0.5 nowhere in it.
TEST(SimExactness, LaneMessageFactorPacesTheLaneAndTheNodesFactorTheCopies) {
  const std::vector<std::string> curves{"eager/multi/bcopy", "eager/multi/zcopy", "rndv/get"};
  const std::vector<Bytes> sizes{kMultiFragment, 4 * kMultiFragment, 16383,   16384,         16385,
                                 16 * kMultiFragment, 65535,          65536,   65537,         17 * kMultiFragment,
                                 (1 << 20) - 1,  1 << 20,            (1 << 20) + 1, 1 << 22};
  const std::vector<std::pair<std::string, SelectConfig>> settings{{"cache", with("reg_cache", "on")}};
  const auto lane = simulate(kData + "one_rail_lane_factor.xml", curves, sizes, settings);
  // The slowest stage: a fragment's wire at a quarter of 10 GB/s, 4096 B /
  // 2.5 GB/s ≈ 1.64 us, or the receiver's o_recv + copy at half of 8 GB/s.
  EXPECT_GE(check_against_models(lane, 2.3e-6).exact, 20);
  const auto plain = simulate(kData + "one_rail_exact.xml", {"rndv/get"}, {1 << 22}, settings);
  ASSERT_EQ(lane.at("cache rndv/get").size(), sizes.size());
  ASSERT_EQ(plain.at("cache rndv/get").size(), 1U);
  const double n = 1 << 22;
  const double slower = lane.at("cache rndv/get").back().time - plain.at("cache rndv/get").back().time;
  EXPECT_NEAR(slower, n / 2.5e9 - n / 10e9, 1e-7) << "the get's bytes at the lane's 0.25 (control messages aside)";
}

// eager/multi/bcopy's copies keep the nodes' factor: at 16 fragments
// (65024 B, under the nodes' 64 KiB) only the lane's 0.8 applies, to the
// wire alone. The sender's stage (o_s + a fragment's copy, 0.808 us) paces
// the pipeline ahead of the wire (4096 B at 8 GB/s, 0.512 us), so the
// message is later than on one_rail_exact.xml by the last fragment's wire,
// 4096 B · (1/8 − 1/10) ns/B ≈ 0.1 us; copies at the lane's factor would
// add 16 × 0.127 us.
TEST(SimExactness, LaneMessageFactorLeavesTheCopiesAtTheNodesFactor) {
  const std::vector<Bytes> sizes{16 * kMultiFragment};
  const std::vector<std::pair<std::string, SelectConfig>> settings{{"cache", with("reg_cache", "on")}};
  const auto lane = simulate(kData + "one_rail_lane_factor.xml", {"eager/multi/bcopy"}, sizes, settings);
  const auto plain = simulate(kData + "one_rail_exact.xml", {"eager/multi/bcopy"}, sizes, settings);
  const Measured& with_lane = lane.at("cache eager/multi/bcopy").at(0);
  const Measured& without = plain.at("cache eager/multi/bcopy").at(0);
  EXPECT_NEAR(with_lane.time, with_lane.model, 1e-9 * with_lane.model);
  EXPECT_NEAR(with_lane.time - without.time, 4096 * (1 / 8e9 - 1 / 10e9), 1e-9);
}


// xover:cpu_moves yes (one_rail_cpu_moves.xml, one_rail_slow_send.xml
// otherwise: o_send 1 us, B 10 GB/s, M 8 GB/s): the initiator's CPU moves
// the bytes. Every protocol matches its cost line. One message costs what
// it did, a send's (h + n)/B and a get's flights now the initiator's CPU
// time but still once on the critical path, except where a message's last
// step is a control message sent before the receive completes: rndv/get's
// receiver is busy with its ACK's 8/B = 0.8 ns more. A fragment pipeline's
// sender stage grows by a fragment's wire time, (4064 + 32)/B = 409.6 ns,
// for each fragment after the first.
TEST(SimExactness, CpuMovingTheBytesLeavesOneMessageAsItWasAndSlowsAPipeline) {
  const std::vector<std::string> curves{"eager/short",       "eager/bcopy", "eager/zcopy", "eager/multi/bcopy",
                                        "eager/multi/zcopy", "rndv/am",     "rndv/get"};
  const std::vector<Bytes> sizes{0,      8,     1000,  kMultiFragment, kRndvAmFragment, 10000, 16 * kMultiFragment,
                                 100000, 16 * kRndvAmFragment, 1 << 20};
  const std::vector<std::pair<std::string, SelectConfig>> settings{{"cache", with("reg_cache", "on")}};
  const auto moving = simulate(kData + "one_rail_cpu_moves.xml", curves, sizes, settings);
  const auto offloaded = simulate(kData + "one_rail_slow_send.xml", curves, sizes, settings);
  EXPECT_EQ(check_against_models(moving, 2e-6).exact, 38);
  const std::map<std::string, double> sooner = exact_differences(moving, offloaded);
  EXPECT_EQ(sooner.size(), 38U);
  for (const auto& [key, d] : sooner) {
    if (!key.starts_with("eager/multi/") && !key.starts_with("rndv/am ")) {
      EXPECT_NEAR(d, key.starts_with("rndv/get ") ? 8 / 10e9 : 0, 1e-12) << key;
    }
  }
  for (const char* multi : {"eager/multi/bcopy ", "eager/multi/zcopy "})
    EXPECT_NEAR(sooner.at(multi + std::to_string(16 * kMultiFragment)), 15 * 409.6e-9, 1e-12) << multi;
}

// A stream of 16 (window) eager/zcopy messages on the same two platforms:
// the sender, its 1 us o_send the slowest stage, overlaps a message's wire
// time with the next post where the lane is offloaded and not where its CPU
// moves the bytes. A window then takes 15 wire times more (the last one's
// is on the critical path either way): per message, 15/16·(h + n)/B more,
// 365.625 ns more at 4000 B than at 100 B; the cost line's streaming time,
// o_s + (h + n)/B against o_s, 390 ns more.
TEST(SimExactness, CpuMovingTheBytesPacesAStreamByOverheadPlusWire) {
  const std::vector<std::pair<std::string, SelectConfig>> settings{{"cache", with("reg_cache", "on")}};
  const auto moving = simulate(kData + "one_rail_cpu_moves.xml", {"eager/zcopy"}, {100, 4000}, settings,
                               MemType::Host, &stream_workload);
  const auto offloaded = simulate(kData + "one_rail_slow_send.xml", {"eager/zcopy"}, {100, 4000}, settings,
                                  MemType::Host, &stream_workload);
  const std::vector<Measured>& m = moving.at("cache eager/zcopy");
  const std::vector<Measured>& o = offloaded.at("cache eager/zcopy");
  ASSERT_EQ(m.size(), 2U);
  ASSERT_EQ(o.size(), 2U);
  EXPECT_NEAR((m[1].time - o[1].time) - (m[0].time - o[0].time), 15.0 / 16 * 3900 / 10e9, 1e-12);
  EXPECT_NEAR((m[1].model - o[1].model) - (m[0].model - o[0].model), 3900 / 10e9, 1e-12);
  EXPECT_GT(m[0].time, o[0].time);
}

// A stream of 16 rndv/get messages where the receiver's CPU makes each get
// itself (a cross-memory read): its gets run one after another, each
// holding it until its data is in, so every message of the window pays its
// n/B in turn, 16 of them; offloaded, the 16 gets share the wire at once.
// Per message, the window at 65536 B takes (65536 − 1024)/B = 6.4512 us more
// than at 1024 B, and the cost line's streaming time, the receiver's
// factor, the same; offloaded, 4.94 us more, and at 1024 B less than half
// the time (3.18 against 7.28 us a message).
TEST(SimExactness, CpuMovingTheBytesRunsAWindowsGetsOneAfterAnother) {
  const std::vector<std::pair<std::string, SelectConfig>> settings{{"cache", with("reg_cache", "on")}};
  const auto moving = simulate(kData + "one_rail_cpu_moves.xml", {"rndv/get"}, {1024, 65536}, settings,
                               MemType::Host, &stream_workload);
  const std::vector<Measured>& m = moving.at("cache rndv/get");
  ASSERT_EQ(m.size(), 2U);
  EXPECT_NEAR(m[1].time - m[0].time, 64512 / 10e9, 1e-12);
  EXPECT_NEAR(m[1].model - m[0].model, 64512 / 10e9, 1e-12);
  const auto offloaded = simulate(kData + "one_rail_slow_send.xml", {"rndv/get"}, {1024, 65536}, settings,
                                  MemType::Host, &stream_workload);
  const std::vector<Measured>& o = offloaded.at("cache rndv/get");
  ASSERT_EQ(o.size(), 2U);
  EXPECT_LT(o[1].time - o[0].time, 64512 / 10e9 - 1e-6);
  EXPECT_GT(m[0].time, 2 * o[0].time);
}

}  // namespace
}  // namespace xover
