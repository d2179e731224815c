// For thousands of random lane sets and settings, the protocol the table
// picks at a size is the argmin of the protocols' own costs at that size,
// computed here straight from their factors (sum for latency, largest
// non-latency factor for streaming), ties to the earlier protocol.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "protocols/select/threshold_table.hpp"

namespace xover {
namespace {

double log_uniform(std::mt19937_64& rng, double lo, double hi) {
  return std::exp(std::uniform_real_distribution<double>(std::log(lo), std::log(hi))(rng));
}

LaneAttrs random_lane(std::mt19937_64& rng, int i) {
  LaneAttrs l;
  l.name = "r" + std::to_string(i);
  l.latency = log_uniform(rng, 50e-9, 20e-6);
  l.bandwidth = log_uniform(rng, 0.5e9, 50e9);
  l.o_send = log_uniform(rng, 10e-9, 3e-6);
  l.o_recv = log_uniform(rng, 10e-9, 3e-6);
  l.gap = std::bernoulli_distribution(0.5)(rng) ? log_uniform(rng, 1e-9, 2e-6) : 0;
  l.reg_cost = log_uniform(rng, 100e-9, 50e-6);
  l.reg_growth = log_uniform(rng, 1e-13, 1e-10);
  l.max_short = static_cast<Bytes>(log_uniform(rng, 4, 1024));
  l.seg_size = static_cast<Bytes>(log_uniform(rng, 16, 65536));
  l.max_bcopy = static_cast<Bytes>(log_uniform(rng, 16, 65536));
  l.max_zcopy = static_cast<Bytes>(log_uniform(rng, 4096, 1 << 30));
  LaneCaps caps;
  for (LaneCap cap : {LaneCap::AmShort, LaneCap::AmBcopy, LaneCap::AmZcopy, LaneCap::GetZcopy, LaneCap::ConnectToIface})
    if (std::bernoulli_distribution(0.8)(rng))
      caps.add(cap);
  l.caps = caps;
  return l;
}

// The protocol's cost at n as selection must see it, from its factors alone.
std::optional<double> own_cost(const ProtoChoice& choice, PerfType perf, Bytes n) {
  const double x = static_cast<double>(n);
  for (const PerfRange& range : choice.candidate.ranges) {
    if (n < range.from || n > range.to)
      continue;
    const PerfFactors f = range.factors.scaled(choice.bias);
    if (perf == PerfType::Latency)
      return f.single().apply(x);
    return std::max({f[Factor::LocalCpu].apply(x), f[Factor::RemoteCpu].apply(x),
                     std::max(f[Factor::Network].apply(x), f.gap)});
  }
  return std::nullopt;
}

TEST(SelectionRandom, TablePicksTheCheapestProtocolAtEverySize) {
  std::mt19937_64 rng(20261122);
  int checked = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    Path path;
    const int lanes = std::uniform_int_distribution<int>(1, 3)(rng);
    for (int i = 0; i < lanes; ++i)
      path.lanes.push_back(random_lane(rng, i));
    path.memcpy_bw_local = log_uniform(rng, 1e9, 30e9);
    path.memcpy_bw_remote = log_uniform(rng, 1e9, 30e9);
    SelectConfig config;
    config.reg_cache = std::bernoulli_distribution(0.5)(rng);
    config.perf = std::bernoulli_distribution(0.5)(rng) ? PerfType::Latency : PerfType::Streaming;
    config.rndv_perf_diff = std::uniform_real_distribution<double>(0, 10)(rng);
    config.lanes.max_eager_lanes = std::uniform_int_distribution<std::size_t>(1, 3)(rng);
    config.lanes.max_rndv_lanes = std::uniform_int_distribution<std::size_t>(1, 3)(rng);
    const ThresholdTable table = ThresholdTable::build(path, config);

    std::vector<Bytes> sizes;
    for (const ThresholdRange& range : table.ranges()) {
      for (Bytes n : {range.from, range.to, range.from - 1, range.to + 1})
        sizes.push_back(n);
    }
    for (int k = 0; k < 40; ++k)
      sizes.push_back(static_cast<Bytes>(log_uniform(rng, 1, 1e12)));
    sizes.push_back(0);

    for (Bytes n : sizes) {
      std::optional<double> best;
      std::size_t argmin = 0;
      for (std::size_t i = 0; i < table.choices().size(); ++i) {
        const auto cost = own_cost(table.choices()[i], config.perf, n);
        if (cost && (!best || *cost < *best)) {
          best = cost;
          argmin = i;
        }
      }
      const ProtoChoice* picked = table.lookup(n);
      if (!best) {
        EXPECT_EQ(picked, nullptr) << "size " << n << " trial " << trial;
        continue;
      }
      ASSERT_NE(picked, nullptr) << "size " << n << " uncovered, trial " << trial;
      const auto picked_cost = own_cost(*picked, config.perf, n);
      ASSERT_TRUE(picked_cost) << "picked protocol does not cover " << n;
      // Equal to the minimum up to rounding; the exact argmin must be picked
      // whenever another protocol is cheaper by more than rounding.
      EXPECT_LE(*picked_cost, *best * (1 + 1e-12) + 1e-18)
          << "trial " << trial << " size " << n << ": picked " << picked->protocol->name << " but "
          << table.choices()[argmin].protocol->name << " is cheaper";
      ++checked;
    }
  }
  EXPECT_GT(checked, 100000);
}

}  // namespace
}  // namespace xover
