// Gets their target's CPU serves (xover:get_served: a TCP get is a request
// the target takes in and answers with a send of the bytes, which the
// initiator reads out of the socket), in the simulator and the cost lines
// alike. Platform one_rail_get_served.xml against one_rail_send_copy.xml,
// its figures with NIC-served gets (o_send 1 us, o_recv 0.2 us, B 10 GB/s,
// the sender's 0.5 ns/B, the receiver's 0.25 ns/B).
#include <gtest/gtest.h>

#include "protocols/workload/workloads.hpp"
#include "tests/sim/exactness_support.hpp"

namespace xover {
namespace {

using namespace exactness;

const std::vector<std::pair<std::string, SelectConfig>> kCached{{"cache", with("reg_cache", "on")}};

// rndv/get from 0 B to 40 kB, each point simulated fresh: the simulation is
// its line within 1e-9. Past about 41 kB the target's 0.5 ns/B after its
// reply has left outlasts the reply's flight, the reader's 0.25 ns/B and
// the pong's RTS (0.35 ns/B + 6.2 us): a ping-pong's half round trip is
// then longer than one message's line, by what the target is still busy.
TEST(SimServedGet, EveryGetMatchesItsLine) {
  int exact = 0;
  for (Bytes size : {Bytes{0}, Bytes{8}, Bytes{1000}, Bytes{10000}, Bytes{40000}})
    exact += check_against_models(simulate(kData + "one_rail_get_served.xml", {"rndv/get"}, {size}, kCached), 0).exact;
  EXPECT_EQ(exact, 5);
  const auto big = simulate(kData + "one_rail_get_served.xml", {"rndv/get"}, {Bytes{1} << 20}, kCached);
  const Measured& m = big.at("cache rndv/get").front();
  EXPECT_GT(m.time, m.model * (1 + 1e-9));
}

// One rendezvous of n bytes: the get pays the target's take-in of the
// request and post of the reply, o_r(0) + o_s = 1.2 us, and the
// initiator's read of n bytes out of the socket, n·0.25 ns; the target's
// 0.5 ns/B comes after the reply has left.
TEST(SimServedGet, OneGetPaysTheTargetsServiceAndTheReadersCopy) {
  const std::vector<Bytes> sizes{8, 1000, 30000};
  const auto served = simulate(kData + "one_rail_get_served.xml", {"rndv/get"}, sizes, kCached);
  const auto nic = simulate(kData + "one_rail_send_copy.xml", {"rndv/get"}, sizes, kCached);
  const std::map<std::string, double> less = exact_differences(nic, served);
  ASSERT_EQ(less.size(), 3U);
  for (const auto& [key, d] : less) {
    const double n = std::stod(key.substr(key.find(' ') + 1));
    EXPECT_NEAR(-d, 1.2e-6 + n * 0.25e-9, 1e-12) << key;
  }
}

// A stream of 16 (window) rendezvous: the target serves the gets one after
// another with its CPU, so the stream is paced by the sender's 0.5 ns/B,
// where NIC-served gets overlap on the wire at 0.1 ns/B. Per message from
// 64 to 128 KiB, the simulation and the cost line's streaming time grow by
// the sender's time per byte (the window's first and last messages within
// 1/16 of it).
TEST(SimServedGet, AStreamIsPacedByTheTargetsService) {
  const std::vector<Bytes> sizes{64 << 10, 128 << 10};
  const double dn = 64 << 10;
  const auto served =
      simulate(kData + "one_rail_get_served.xml", {"rndv/get"}, sizes, kCached, MemType::Host, &stream_workload);
  const auto nic =
      simulate(kData + "one_rail_send_copy.xml", {"rndv/get"}, sizes, kCached, MemType::Host, &stream_workload);
  const std::vector<Measured>& s = served.at("cache rndv/get");
  const std::vector<Measured>& n = nic.at("cache rndv/get");
  ASSERT_EQ(s.size(), 2U);
  ASSERT_EQ(n.size(), 2U);
  EXPECT_NEAR((s[1].time - s[0].time) / dn, 0.5e-9, 0.5e-9 / 16);
  EXPECT_NEAR((s[1].model - s[0].model) / dn, 0.5e-9, 1e-15);
  EXPECT_NEAR((n[1].time - n[0].time) / dn, 0.1e-9, 0.1e-9 / 16);
}

// The same platform whose overheads hold the protocol core's own time
// (one_rail_get_served_core.xml: 0.3 us of o_s, 0.05 us of o_r): the target
// serves each get in its transport, without the core, 0.35 us sooner. The
// simulation is its line within 1e-9 at every size, and both drop by
// exactly 0.35 us from the platform without the core's part.
TEST(SimServedGet, TheTargetServesWithoutTheCoresPart) {
  const std::vector<Bytes> sizes{8, 1000, 10000, 30000};
  const auto whole = simulate(kData + "one_rail_get_served.xml", {"rndv/get"}, sizes, kCached);
  const auto part = simulate(kData + "one_rail_get_served_core.xml", {"rndv/get"}, sizes, kCached);
  EXPECT_EQ(check_against_models(part, 0).exact, 4);
  const std::map<std::string, double> less = exact_differences(whole, part);
  ASSERT_EQ(less.size(), 4U);
  for (const auto& [key, d] : less)
    EXPECT_NEAR(d, 0.35e-6, 1e-12) << key;
  const std::vector<Measured>& w = whole.at("cache rndv/get");
  const std::vector<Measured>& p = part.at("cache rndv/get");
  ASSERT_EQ(w.size(), p.size());
  for (std::size_t i = 0; i < w.size(); ++i)
    EXPECT_NEAR(w[i].model - p[i].model, 0.35e-6, 1e-15) << sizes[i];
}

}  // namespace
}  // namespace xover
