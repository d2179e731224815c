// The alltoall across GPU nodes (platforms/gpu-nodes-x8.xml, scenarios/
// alltoall-gpu-nodes.xml; README.md, "The alltoall across GPU nodes"): the
// platform gives the lanes its comment cites, and the simulated exchange at
// EP 8 to 256, with DeepEP's low-latency dispatch bytes (128 tokens of
// 7392 B, top-8: the same 7.6 MB a GPU at every EP, spread over its
// peers), shows the trends the README compares: the direct flavour bound
// by NVLink within a node and by the NIC beyond, at about the same time
// from EP 16 on; the proxy's serial commands growing with EP. One child
// process loads the platform and runs every point.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "base/child.hpp"
#include "sim/alltoall_sim.hpp"

namespace xover::sim {
namespace {

const std::string kPlatform = std::string(XOVER_SOURCE_DIR) + "/platforms/gpu-nodes-x8.xml";

/// DeepEP's low-latency dispatch: 128 tokens a GPU, each of 7168 FP8
/// values and 56 float scales (7392 B), to 8 experts.
constexpr Bytes kBytesPerGpu = Bytes{128} * 8 * 7392;

struct Exchange {
  double time = 0, closed_form = 0;
  std::size_t errors = 0;
};

/// "flavour ep time closed_form errors" per run, or, with no EP, "lane to
/// bandwidth latency gap" for three lanes from n0-g0.
std::string simulate_all(const std::vector<std::uint32_t>& eps) {
  return in_child([&] {
    const LogGPPlatform platform = LogGPPlatform::load(kPlatform);
    std::ostringstream out;
    out.precision(17);
    for (const std::uint32_t ep : eps)
      for (const AlltoallFlavour flavour : {AlltoallFlavour::Direct, AlltoallFlavour::Proxy}) {
        AlltoallSpec spec;
        spec.flavour = flavour;
        spec.pes = ep;
        spec.size = kBytesPerGpu / ep;
        const std::vector<std::string> nodes = alltoall_nodes(platform, ep);
        const AlltoallParams params = alltoall_params(platform, nodes, spec);
        spec.batch = alltoall_batch(flavour, params);
        const AlltoallOutcome got = simulate_alltoall(platform, nodes, spec);
        out << static_cast<int>(flavour) << ' ' << ep << ' ' << got.time << ' '
            << alltoall_closed_form(flavour, params) << ' ' << got.errors << '\n';
      }
    const std::vector<std::string> lanes_to =
        eps.empty() ? std::vector<std::string>{"n0-g1", "n1-g0", "n31-g7"} : std::vector<std::string>{};
    for (const std::string& to : lanes_to) {
      const Path path = platform.path("n0-g0", to);
      const LaneAttrs& lane = path.lanes.at(0);
      out << "lane " << to << ' ' << lane.bandwidth << ' ' << lane.latency << ' ' << platform.node(to).gap << '\n';
    }
    return out.str();
  });
}

TEST(AlltoallNodes, TheLanesAreThePlatformsFigures) {
  // NVLink in a node: 160 GB/s, 2 x 0.25 us; a NIC across nodes, next door
  // or across the tree: 50 GB/s, 0.25 + 0.5 + 0.5 + 0.25 us; a 10 ns gap.
  std::istringstream in(simulate_all({}));
  std::map<std::string, std::vector<double>> lanes;
  std::string word, to;
  double bandwidth = 0, latency = 0, gap = 0;
  while (in >> word >> to >> bandwidth >> latency >> gap)
    lanes[to] = {bandwidth, latency, gap};
  ASSERT_EQ(lanes.size(), 3u);
  const std::map<std::string, std::vector<double>> want{
      {"n0-g1", {160e9, 0.5e-6, 10e-9}}, {"n1-g0", {50e9, 1.5e-6, 10e-9}}, {"n31-g7", {50e9, 1.5e-6, 10e-9}}};
  for (const auto& [name, figures] : want)
    for (std::size_t i = 0; i < figures.size(); ++i)
      EXPECT_NEAR(lanes[name][i], figures[i], 1e-9 * figures[i]) << name << " figure " << i;
}

TEST(AlltoallNodes, TrendsFromEp8To256) {
  const std::vector<std::uint32_t> eps{8, 16, 32, 64, 128, 256};
  std::istringstream in(simulate_all(eps));
  std::map<std::pair<int, std::uint32_t>, Exchange> runs;
  int flavour = 0;
  std::uint32_t ep = 0;
  Exchange r;
  while (in >> flavour >> ep >> r.time >> r.closed_form >> r.errors)
    runs[{flavour, ep}] = r;
  ASSERT_EQ(runs.size(), 2 * eps.size());
  const auto direct = [&runs](std::uint32_t e) { return runs[{static_cast<int>(AlltoallFlavour::Direct), e}]; };
  const auto proxy = [&runs](std::uint32_t e) { return runs[{static_cast<int>(AlltoallFlavour::Proxy), e}]; };
  // The table README.md quotes.
  for (const std::uint32_t e : eps)
    std::printf("EP %3u  %7llu B a peer  direct %7.1f us (closed form %7.1f)  proxy %7.1f us (closed form %7.1f)\n", e,
                static_cast<unsigned long long>(kBytesPerGpu / e), direct(e).time * 1e6, direct(e).closed_form * 1e6,
                proxy(e).time * 1e6, proxy(e).closed_form * 1e6);
  for (const auto& [key, run] : runs) {
    EXPECT_EQ(run.errors, 0u) << key.first << " EP " << key.second;
    // Nothing above the NICs is shared: no run is slower than the closed
    // form on the middle shift's lane (the NIC's from EP 16 on), and the
    // first shifts, in the node over NVLink, make up at most the 7/(EP − 1)
    // of the bytes that go faster.
    EXPECT_LE(run.time, run.closed_form * (1 + 1e-9)) << key.first << " EP " << key.second;
    EXPECT_GE(run.time, run.closed_form * (key.second == 8 ? 1 - 1e-9 : 1 - 7.0 / (key.second - 1)))
        << key.first << " EP " << key.second;
  }
  // EP 8, one node: 7 puts of 946 KB over NVLink, 41 us and some.
  const double nvlink = 7.0 * (kBytesPerGpu / 8) / 160e9;
  EXPECT_GT(direct(8).time, nvlink);
  EXPECT_LT(direct(8).time, nvlink + 5e-6);
  // From EP 16 on the direct flavour moves (EP − 1)/EP of 7.6 MB through
  // its NIC at 50 GB/s: 140–150 us whatever the EP, within 10 % of each
  // other, and above EP 8's NVLink-bound time by the NIC's 160/50.
  for (const std::uint32_t e : {16u, 32u, 64u, 128u, 256u}) {
    const double nic = (e - 1.0) * static_cast<double>(kBytesPerGpu / e) / 50e9;
    EXPECT_GT(direct(e).time, 0.95 * nic) << "EP " << e;
    EXPECT_LT(direct(e).time, nic + 10e-6) << "EP " << e;
    EXPECT_NEAR(direct(e).time, direct(256).time, 0.1 * direct(256).time) << "EP " << e;
  }
  EXPECT_GT(direct(16).time, 2.5 * direct(8).time);
  // The proxy serves EP − 1 commands of 7.6 us in series: it overtakes the
  // NIC from EP 32 on and grows with EP from there, to 1.9 ms at EP 256.
  for (const std::uint32_t e : {32u, 64u, 128u, 256u})
    EXPECT_GT(proxy(e).time, (e - 1) * 7.6e-6) << "EP " << e;
  EXPECT_GT(proxy(256).time, 10 * direct(256).time);
  EXPECT_GT(proxy(256).time, 1.9 * proxy(128).time);
}

}  // namespace
}  // namespace xover::sim
