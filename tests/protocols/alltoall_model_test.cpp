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
  PostClock clock(flavour, p);
  Seconds injected = 0;
  for (std::size_t i = 0; i + 1 < p.pes; ++i)
    injected = clock.inject(clock.next().ready);
  return injected + p.latency + static_cast<double>(p.size) / p.pace();
}

/// The star with every term of the GPU lane set.
AlltoallParams gpu_lane(std::uint32_t pes, Bytes size) {
  AlltoallParams p = star(pes, size);
  p.device.threads = 4;
  p.device.launch = 4e-6;
  p.device.post_slope = 0.05e-6;
  p.device.doorbell_batch = 3;
  p.device.engine_gap = 40e-9;
  p.device.engine_bw = 10e9;
  p.device.proxy_threads = 2;
  p.device.ring_capacity = 5;
  return p;
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

TEST(AlltoallModel, ClosedFormUnrollsTheGpuLanesStages) {
  // The GPU lane: launch, contention, doorbells of 3, the engine the slower
  // server (40 ns, 10 GB/s), two proxy threads and a ring of 5 commands,
  // each alone and all together, for every posting regime.
  const auto vary = [](AlltoallParams& p, int which) {
    const AlltoallParams all = gpu_lane(p.pes, p.size);
    const std::uint32_t threads = p.device.threads;
    const Seconds proxy_o = p.device.proxy_o;
    switch (which) {
      case 0: p.device = all.device; break;
      case 1: p.device.launch = all.device.launch; break;
      case 2: p.device.post_slope = all.device.post_slope; break;
      case 3: p.device.doorbell_batch = all.device.doorbell_batch; break;
      case 4: p.device.engine_gap = all.device.engine_gap, p.device.engine_bw = all.device.engine_bw; break;
      case 5: p.device.proxy_threads = all.device.proxy_threads; break;
      default: p.device.ring_capacity = all.device.ring_capacity; break;
    }
    p.device.threads = threads;
    p.device.proxy_o = proxy_o;
  };
  for (const AlltoallFlavour flavour : {AlltoallFlavour::Proxy, AlltoallFlavour::Direct})
    for (int which = 0; which < 7; ++which)
      for (const std::uint32_t pes : {2u, 3u, 8u, 33u, 100u})
        for (const std::uint32_t threads : {1u, 4u, 32u})
          for (const Bytes size : {Bytes{0}, Bytes{8}, Bytes{400}, Bytes{65536}, Bytes{1} << 20})
            for (const Seconds proxy_o : {0.05e-6, 1.5e-6}) {
              AlltoallParams p = star(pes, size);
              p.device.threads = threads;
              p.device.proxy_o = proxy_o;
              vary(p, which);
              const Seconds want = stepped(flavour, p);
              EXPECT_NEAR(alltoall_closed_form(flavour, p), want, 1e-12 * want)
                  << "term " << which << " P=" << pes << " T=" << threads << " n=" << size << " o_p=" << proxy_o;
            }
}

TEST(AlltoallModel, GpuLaneTermsByHand) {
  // P = 8, 7 puts, 1 us wire, T = 4, o_d = 0.5 us, slope 0.05 us: a post
  // at 4 posters costs 0.65 us; launch 4 us.
  AlltoallParams p = gpu_lane(8, 8);
  p.device.proxy_threads = 1;
  p.device.ring_capacity = 65536;
  const Seconds o = 0.65e-6, wire = 1e-6 + 8 / 10e9;
  // Direct, doorbells of 3: puts 0–2 ring at put 2's post (round 1), 3–5 at
  // put 5's (round 2), 6 at its own (round 2): puts 3–6 are ready together
  // at 4 us + 2·o, and the engine takes them 40 ns apart.
  EXPECT_NEAR(alltoall_closed_form(AlltoallFlavour::Direct, p), 4e-6 + 2 * o + 3 * 40e-9 + wire, 1e-15);
  // Proxy, one thread: 7 commands served in series from the first's
  // arrival, 4 us + o + W + 7·o_p.
  EXPECT_NEAR(alltoall_closed_form(AlltoallFlavour::Proxy, p), 4e-6 + o + 3e-6 + 7 * 1.5e-6 + wire, 1e-15);
  // Two proxy threads: thread 0 serves puts 0, 2, 4, 6 (4 in series).
  p.device.proxy_threads = 2;
  EXPECT_NEAR(alltoall_closed_form(AlltoallFlavour::Proxy, p), 4e-6 + o + 3e-6 + 4 * 1.5e-6 + wire, 1e-15);
  // A ring of 2 commands, one thread: command i waits for command i − 2
  // to be served, so from command 2 on the writer trails the proxy and the
  // proxy waits W + o for each: q_i = q_{i−2} + o + W + o_p for i ≥ 2.
  p.device.proxy_threads = 1;
  p.device.ring_capacity = 2;
  const Seconds q0 = 4e-6 + o + 3e-6 + 1.5e-6;
  const Seconds q1 = std::max(q0, 4e-6 + o + 3e-6) + 1.5e-6;
  const Seconds step = o + 3e-6 + 1.5e-6;
  // q6 = q0 + 3·step, q5 = q1 + 2·step; q6 > q5 since step > o_p.
  EXPECT_NEAR(alltoall_closed_form(AlltoallFlavour::Proxy, p), std::max(q0 + 3 * step, q1 + 2 * step) + wire, 1e-15);
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
  for (const bool lane : {false, true})
  for (const AlltoallFlavour flavour : {AlltoallFlavour::Proxy, AlltoallFlavour::Direct})
    for (const std::uint32_t pes : {2u, 8u, 64u, 4096u}) {
      const auto params = [lane](std::uint32_t pes, Bytes n) { return lane ? gpu_lane(pes, n) : star(pes, n); };
      const PiecewiseFunc cost = alltoall_cost(flavour, params(pes, 0));
      ASSERT_FALSE(cost.empty());
      EXPECT_EQ(cost.front().from, 0u);
      EXPECT_EQ(cost.back().to, kSizeMax);
      for (std::size_t i = 1; i < cost.size(); ++i)
        EXPECT_EQ(cost[i].from, cost[i - 1].to + 1);
      for (Bytes n = 0; n <= (Bytes{1} << 24); n = n ? n * 3 / 2 + 1 : 1) {
        Seconds t = 0;
        ASSERT_TRUE(evaluate(cost, n, t));
        const Seconds want = alltoall_closed_form(flavour, params(pes, n));
        EXPECT_NEAR(t, want, 1e-12 * want) << "GPU lane " << lane << " P=" << pes << " n=" << n;
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
