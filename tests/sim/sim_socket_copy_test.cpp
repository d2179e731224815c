// The CPUs' time per payload byte of an active message (xover:o_send_per_byte,
// xover:o_recv_per_byte: a TCP send() copying into the socket, a recv()
// copying out of it) in the simulator and the cost lines alike: every
// protocol's simulated time is its line, one message costs the receiver's
// share more and the sender's none, and a stream is paced by the sender's.
// Platforms one_rail_send_copy.xml (0.5 and 0.25 ns/B) and
// one_rail_recv_copy.xml (0.1 and 1 ns/B), against one_rail_slow_send.xml,
// their figures without the two (o_send 1 us, B 10 GB/s, M 8 GB/s).
#include <gtest/gtest.h>

#include <algorithm>

#include "protocols/workload/workloads.hpp"
#include "tests/sim/exactness_support.hpp"

namespace xover {
namespace {

using namespace exactness;

const std::vector<std::string> kCurves{"eager/short",       "eager/bcopy", "eager/zcopy", "eager/multi/bcopy",
                                       "eager/multi/zcopy", "rndv/am",     "rndv/get"};

// Every protocol, sizes from 0 to 1 MiB, whole fragments included, each
// point simulated fresh, as `xover run` simulates it (after other points in
// one simulation, a receiver-bound pipeline ran 0.1 us behind its line):
// the simulation is its line within 1e-9 where the line is exact, within a
// fragment's slowest stage (below 5 us) where the last fragment is short.
TEST(SimSocketCopy, EveryProtocolMatchesItsLine) {
  const std::vector<Bytes> sizes{0,      8,     1000,  kMultiFragment, kRndvAmFragment, 10000, 16 * kMultiFragment,
                                 100000, 16 * kRndvAmFragment, 1 << 20};
  for (const char* platform : {"one_rail_send_copy.xml", "one_rail_recv_copy.xml"}) {
    int exact = 0;
    for (const std::string& curve : kCurves)
      for (Bytes size : sizes)
        exact += check_against_models(simulate(kData + platform, {curve}, {size}, {{"cache", with("reg_cache", "on")}}),
                                      5e-6)
                     .exact;
    EXPECT_EQ(exact, 38) << platform;
  }
}

// Multi-eager messages of 2 to 8 fragments whose last is one byte or half a
// fragment, each simulated fresh: the line holds the last fragment exactly,
// where the sender is the slowest stage (its time per byte spent after the
// fragment has left, so that a short last fragment leaves (S − r)·m_s
// later in its stage than a full one) and where the receiver is.
TEST(SimSocketCopy, MultiEagersLastShortFragmentIsInItsLine) {
  std::vector<Bytes> sizes;
  for (Bytes k = 2; k <= 8; k += 3)
    for (Bytes r : {Bytes{1}, kMultiFragment / 2})
      sizes.push_back((k - 1) * kMultiFragment + r);
  for (const char* platform : {"one_rail_send_copy.xml", "one_rail_recv_copy.xml"})
    for (const char* curve : {"eager/multi/bcopy", "eager/multi/zcopy"})
      for (Bytes size : sizes) {
        const auto results = simulate(kData + platform, {curve}, {size}, {{"cache", with("reg_cache", "on")}});
        ASSERT_EQ(results.size(), 1u) << platform;
        for (const Measured& m : results.begin()->second)
          EXPECT_NEAR(m.time, m.model, 1e-9 * m.model) << platform << " " << curve << " at " << m.size << " B";
      }
}

// One message of n bytes: the sender's time per byte comes after the
// message has left and is on no critical path of a ping-pong, the
// receiver's is: each of the single-message protocols' half round trips
// takes n·0.25 ns more than without the two figures.
TEST(SimSocketCopy, OneMessagePaysTheReceiversShareOnly) {
  const std::vector<std::pair<std::string, SelectConfig>> settings{{"cache", with("reg_cache", "on")}};
  const auto copying =
      simulate(kData + "one_rail_send_copy.xml", {"eager/bcopy", "eager/zcopy"}, {8, 1000, 4000}, settings);
  const auto plain = simulate(kData + "one_rail_slow_send.xml", {"eager/bcopy", "eager/zcopy"}, {8, 1000, 4000},
                              settings);
  const std::map<std::string, double> less = exact_differences(plain, copying);
  ASSERT_EQ(less.size(), 6U);
  for (const auto& [key, d] : less) {
    const double n = std::stod(key.substr(key.find(' ') + 1));
    EXPECT_NEAR(-d, n * 0.25e-9, 1e-12) << key;
  }
}

// Under a message factor (xover:bw_factor, half from 2 KiB on), the CPUs'
// time per payload byte is a copy at the message's pace, as the memcpy
// bandwidths are: a ping-pong message of 4000 B costs the receiver's
// 0.25 ns/B at half pace, one of 1000 B at full pace, in the simulation and
// the cost lines alike (every protocol on its line where the line is exact:
// 22 of the 28 points).
TEST(SimSocketCopy, TheCpusTimePerByteRunsAtTheMessagesPace) {
  const std::vector<std::pair<std::string, SelectConfig>> settings{{"cache", with("reg_cache", "on")}};
  const auto copying =
      simulate(kData + "one_rail_send_copy_factor.xml", {"eager/bcopy", "eager/zcopy"}, {1000, 4000}, settings);
  const auto plain =
      simulate(kData + "one_rail_slow_send_factor.xml", {"eager/bcopy", "eager/zcopy"}, {1000, 4000}, settings);
  const std::map<std::string, double> less = exact_differences(plain, copying);
  ASSERT_EQ(less.size(), 4U);
  for (const auto& [key, d] : less) {
    const double n = std::stod(key.substr(key.find(' ') + 1));
    EXPECT_NEAR(-d, n * 0.25e-9 / (n >= 2048 ? 0.5 : 1), 1e-12) << key;
  }
  int exact = 0;
  for (const std::string& curve : kCurves)
    exact += check_against_models(
                 simulate(kData + "one_rail_send_copy_factor.xml", {curve}, {8, 1000, 4000, 16 * kMultiFragment},
                          settings),
                 5e-6)
                 .exact;
  EXPECT_EQ(exact, 22);
}

// A stream of 16 (window) eager/zcopy messages: the sender, o_s + n·m_s its
// stage, is the slowest, and overlaps none of its time per byte with its
// next post. Per message, from 100 to 4000 B, the window takes 15/16 of the
// 3900 B's 0.5 ns more (the last message's comes after it has left), and
// 1/16 of the receiver's 0.25 ns (the last message's take-in is on the
// critical path); the cost line's streaming time, the sender's factor,
// 3900·0.5 ns more.
TEST(SimSocketCopy, AStreamIsPacedByTheSendersTimePerByte) {
  const std::vector<std::pair<std::string, SelectConfig>> settings{{"cache", with("reg_cache", "on")}};
  const auto copying = simulate(kData + "one_rail_send_copy.xml", {"eager/zcopy"}, {100, 4000}, settings,
                                MemType::Host, &stream_workload);
  const auto plain = simulate(kData + "one_rail_slow_send.xml", {"eager/zcopy"}, {100, 4000}, settings,
                              MemType::Host, &stream_workload);
  const std::vector<Measured>& c = copying.at("cache eager/zcopy");
  const std::vector<Measured>& p = plain.at("cache eager/zcopy");
  ASSERT_EQ(c.size(), 2U);
  ASSERT_EQ(p.size(), 2U);
  EXPECT_NEAR((c[1].time - p[1].time) - (c[0].time - p[0].time), 3900 * (15.0 / 16 * 0.5e-9 + 1.0 / 16 * 0.25e-9),
              1e-12);
  EXPECT_NEAR((c[1].model - p[1].model) - (c[0].model - p[0].model), 3900 * 0.5e-9, 1e-12);
}

}  // namespace
}  // namespace xover
