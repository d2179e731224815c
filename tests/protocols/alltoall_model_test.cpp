// The alltoall's arithmetic (protocols/coll/alltoall.hpp): the closed form
// against the put-by-put stages it unrolls, its cost pieces against the
// closed form, and which flavour selection picks.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "protocols/coll/alltoall.hpp"
#include "protocols/registry.hpp"

namespace xover {
namespace {

/// The star of platforms/alltoall-star.xml: 1 us, 25 GB/s, 10 ns gap.
AlltoallParams star(std::uint32_t pes, Bytes size) {
  AlltoallParams p;
  p.pes = pes;
  p.size = size;
  p.latency = 1e-6;
  p.bandwidth = 25e9;
  p.gap = 10e-9;
  p.device = DeviceAttrs{0.5e-6, 1024, 1.5e-6, 3e-6};
  return p;
}

/// The last landing of one PE, put by put through PostClock's stages.
Seconds stepped(AlltoallFlavour flavour, const AlltoallParams& p) {
  PostClock clock(p);
  Seconds injected = 0;
  for (std::size_t i = 0; i + 1 < p.pes; ++i) {
    const Seconds ready = flavour == AlltoallFlavour::Proxy ? clock.serve(clock.posted(i)) : clock.posted(i);
    injected = clock.inject(ready);
  }
  return injected + p.latency + static_cast<double>(p.size) / p.bandwidth;
}

TEST(AlltoallModel, ClosedFormUnrollsTheStages) {
  // Every regime: the NIC's gap or bandwidth, the proxy or the NIC the
  // slower server, one posting round or many, a last round full or not.
  for (const AlltoallFlavour flavour : {AlltoallFlavour::Proxy, AlltoallFlavour::Direct})
    for (const std::uint32_t pes : {2u, 3u, 8u, 33u, 100u, 1025u})
      for (const std::uint32_t threads : {1u, 4u, 32u, 1024u})
        for (const Bytes size : {Bytes{0}, Bytes{8}, Bytes{250}, Bytes{4096}, Bytes{65536}, Bytes{1} << 20})
          for (const Seconds proxy_o : {0.05e-6, 1.5e-6}) {
            AlltoallParams p = star(pes, size);
            p.device.threads = threads;
            p.device.proxy_o = proxy_o;
            const Seconds want = stepped(flavour, p);
            EXPECT_NEAR(alltoall_closed_form(flavour, p), want, 1e-12 * want)
                << "P=" << pes << " T=" << threads << " n=" << size << " o_p=" << proxy_o;
          }
}

TEST(AlltoallModel, SeedFormWhenOnePutPerPe) {
  // P = 2: one put, T = o + L + n·G (the seed's L + 2·o + M·G with the
  // target's o zero), the proxy adding its wake-up and its own o.
  const AlltoallParams p = star(2, 1000);
  EXPECT_DOUBLE_EQ(alltoall_closed_form(AlltoallFlavour::Direct, p), 0.5e-6 + 1e-6 + 1000 / 25e9);
  EXPECT_DOUBLE_EQ(alltoall_closed_form(AlltoallFlavour::Proxy, p), 0.5e-6 + 3e-6 + 1.5e-6 + 1e-6 + 1000 / 25e9);
}

TEST(AlltoallModel, ProxyPaysItsOverheadInSeries) {
  // 8 B at P = 4096: the proxy serves 4095 commands at 1.5 us; the device
  // posts in 4 rounds and the NIC's 10 ns gap is the bottleneck.
  const AlltoallParams p = star(4096, 8);
  EXPECT_NEAR(alltoall_closed_form(AlltoallFlavour::Proxy, p), 0.5e-6 + 3e-6 + 4095 * 1.5e-6 + 1e-6 + 8 / 25e9,
              1e-15);
  EXPECT_NEAR(alltoall_closed_form(AlltoallFlavour::Direct, p), 0.5e-6 + 4094 * 10e-9 + 1e-6 + 8 / 25e9, 1e-15);
}

TEST(AlltoallModel, CostPiecesAgreeWithTheClosedForm) {
  for (const AlltoallFlavour flavour : {AlltoallFlavour::Proxy, AlltoallFlavour::Direct})
    for (const std::uint32_t pes : {2u, 8u, 64u, 4096u}) {
      const PiecewiseFunc cost = alltoall_cost(flavour, star(pes, 0));
      ASSERT_FALSE(cost.empty());
      EXPECT_EQ(cost.front().from, 0u);
      EXPECT_EQ(cost.back().to, kSizeMax);
      for (std::size_t i = 1; i < cost.size(); ++i)
        EXPECT_EQ(cost[i].from, cost[i - 1].to + 1);
      for (Bytes n = 0; n <= (Bytes{1} << 24); n = n ? n * 3 / 2 + 1 : 1) {
        Seconds t = 0;
        ASSERT_TRUE(evaluate(cost, n, t));
        const Seconds want = alltoall_closed_form(flavour, star(pes, n));
        EXPECT_NEAR(t, want, 1e-12 * want) << "P=" << pes << " n=" << n;
      }
    }
}

TEST(AlltoallModel, DirectWinsSmallMessagesUntilItsLeadIsUnderTheBias) {
  // The direct flavour leads by the proxy's serial overhead while that is
  // larger than the NIC's time per put; beyond, both are bandwidth-bound
  // and direct leads only by the proxy's wake-up and first command,
  // W + o_p = 4.5 us, which falls under 5 % of the exchange once the
  // direct one takes 90 us.
  const auto at = [](std::uint32_t pes, double bias) {
    std::vector<std::pair<Bytes, std::string_view>> table;
    for (const EnvelopeRange& range : alltoall_selection(star(pes, 0), bias))
      table.emplace_back(range.to, protocols_for(ProtoOp::Alltoall)[range.index]->name);
    return table;
  };
  using Table = std::vector<std::pair<Bytes, std::string_view>>;
  // P = 8, 7 puts, x = n/25GB/s: direct 1.5us + 7x, proxy 6us + 7x;
  // 1.05·(1.5us + 7x) = 6us + 7x at x = 12.643 us, n = 316,071.4.
  EXPECT_EQ(at(8, 5), (Table{{316071, "coll/alltoall/direct"}, {kSizeMax, "coll/alltoall/proxy"}}));
  EXPECT_EQ(at(8, 0), (Table{{kSizeMax, "coll/alltoall/direct"}}));
  // P = 4096: the exchange takes 80 us from much smaller messages on.
  const Table big = at(4096, 5);
  ASSERT_EQ(big.size(), 2u);
  EXPECT_EQ(big[0].second, "coll/alltoall/direct");
  EXPECT_LT(big[0].first, 316071u);
  EXPECT_EQ(big[1], (std::pair<Bytes, std::string_view>{kSizeMax, "coll/alltoall/proxy"}));
}

}  // namespace
}  // namespace xover
