// Whole thresholds tables on hand-computed paths. Costs in ns and ns/B;
// every crossover below is worked out from the formulas in protocols/.
#include <gtest/gtest.h>

#include "protocols/registry.hpp"
#include "protocols/select/threshold_table.hpp"
#include "tests/support/paths.hpp"

namespace xover {
namespace {

struct Row {
  Bytes from;
  Bytes to;
  std::string protocol;
  bool operator==(const Row&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Row& r) {
  return os << "{" << r.from << ".." << r.to << " " << r.protocol << "}";
}

std::vector<Row> rows(const ThresholdTable& table) {
  std::vector<Row> out;
  for (const ThresholdRange& range : table.ranges())
    out.push_back({range.from, range.to, std::string(table.choices()[range.choice].protocol->name)});
  return out;
}

/// The one lane of the two tests below: 72-byte short, 4104-byte bcopy and
/// segments, a registration of 930.1 ns.
LaneAttrs one_lane() {
  LaneAttrs l = test::lane("r0", 1, 1, 0.4);
  l.max_short = 72;
  l.max_bcopy = 4104;
  l.seg_size = 4104;
  l.reg_cost = 930.1e-9;
  return l;
}

/// Settings without a registration cache.
SelectConfig no_reg_cache() {
  SelectConfig config;
  config.reg_cache = false;
  return config;
}

// One lane, registration cache off. Headers cross the wire: 16 B eager,
// 32 B multi-eager, 72 B RTS (one lane), 16 B read request.
//   L = 1 us, B = 1 GB/s (1 ns/B), o_send = o_recv = 400 ns, memcpy 4 GB/s
//   (0.25 ns/B), max_short 72, segment = max_bcopy = 4104, reg 930.1 ns.
// Costs:
//   eager/short   1816 + 1.25n                 n ≤ 56   (72 − 16 B header)
//   eager/bcopy   1816 + 1.5n                  n ≤ 4088
//   eager/zcopy   2746.1 + 1.25n               n ≤ 4088
//     bcopy|zcopy cross at 930.1 / 0.25 = 3720.4
//   eager/multi/zcopy, S = 4104 − 32 = 4072, above S:
//     t_s = 400, t_w = 4104, t_r = 400 + 1018 = 1418; wire-bound,
//     m* = 4104/4072 = 1.0078585; fill 6922 → 2818 + m*·n + reg 930.1;
//     above eager/zcopy's last size, 4088, it is the cheapest eager
//   rndv/get  930.1 + (1800 + 72) + 930.1 + (2000 + 16 + n + 800) + 400
//     (the ACK's o_send) = 6948.2 + n, times d = 0.99: 6878.718 + 0.99n;
//     meets multi/zcopy at 3130.618 / 0.0178585 = 175300.6
//   rndv/am   0.99 × (7416.1 + 1.0039n): never below rndv/get
TEST(ThresholdTableGolden, OneLaneNoRegistrationCache) {
  const LaneAttrs l = one_lane();
  const SelectConfig config = no_reg_cache();
  const ThresholdTable table = ThresholdTable::build(test::path({l}, 4), config);
  EXPECT_EQ(rows(table), (std::vector<Row>{{0, 56, "eager/short"},
                                          {57, 3720, "eager/bcopy"},
                                          {3721, 4088, "eager/zcopy"},
                                          {4089, 175300, "eager/multi/zcopy"},
                                          {175301, kSizeMax, "rndv/get"}}));
}

// The lane above with a memcpy that leaves the cache at 2 KiB: 4 GB/s
// (0.25 ns/B) below, 1 GB/s (1 ns/B) from 2048 B. Registration cache off.
//   eager/bcopy   1816 + 1.5n below 2048, 1816 + 3n from it
//   eager/zcopy   2746.1 + 1.25n below 2048, 2746.1 + 2n from it
//     below 2048 bcopy stays cheaper (they would cross at 3720.4); from
//     2048 zcopy is: the handover moves to the breakpoint
//   eager/multi/zcopy, S = 4072, fragments copied at 1 ns/B: t_s = 400,
//     t_w = 4104, t_r = 4472, m* = 4472/4072 = 1.0982318, fill 9976
//     → 6434.1 + 1.0982318n past S
//   rndv/get  6878.718 + 0.99n, as above (it copies nothing): would meet
//     that line at 4108.02, but a message of 4073..8144 B is one full
//     fragment and a last of r bytes, which takes the receiver's 400 + r
//     where the line had 1.0982318·r: multi/zcopy is 10924.7 + 398.3 at
//     4089 against rndv/get's 10926.8, and never wins
TEST(ThresholdTableGolden, MemcpyStepMovesTheCopyHandoverToItsBreakpoint) {
  Path path = test::path({one_lane()}, 4);
  path.memcpy_local_steps = SizeSteps({{0, 4e9}, {2048, 1e9}});
  path.memcpy_remote_steps = path.memcpy_local_steps;
  const ThresholdTable table = ThresholdTable::build(path, no_reg_cache());
  EXPECT_EQ(rows(table), (std::vector<Row>{{0, 56, "eager/short"},
                                          {57, 2047, "eager/bcopy"},
                                          {2048, 4088, "eager/zcopy"},
                                          {4089, kSizeMax, "rndv/get"}}));
  const std::size_t bcopy = table.lookup(100) - table.choices().data();
  EXPECT_NEAR(*table.selection_cost(bcopy, 2047), (1816 + 1.5 * 2047) * 1e-9, 1e-15);
  EXPECT_NEAR(*table.selection_cost(bcopy, 2048), (1816 + 3 * 2048) * 1e-9, 1e-15);
}

// An o_send that grows at 1 KiB: control messages keep the first step's,
// so rndv/get's RTS and ACK cost what they did, and only the gets' post
// (one o_send at n) moves: rndv/get past 1 KiB costs 0.99 × 600 ns more
// than without the step; eager/bcopy, whose one message is n bytes, pays
// the full 600 ns.
TEST(ThresholdTableGolden, ControlMessagesTakeTheFirstStep) {
  LaneAttrs stepped = one_lane();
  stepped.o_send_steps = SizeSteps({{0, 400e-9}, {1024, 1000e-9}});
  const ThresholdTable plain = ThresholdTable::build(test::path({one_lane()}, 4), no_reg_cache());
  const ThresholdTable table = ThresholdTable::build(test::path({stepped}, 4), no_reg_cache());
  const auto cost = [](const ThresholdTable& t, std::string_view name, Bytes n) {
    for (std::size_t i = 0; i < t.choices().size(); ++i)
      if (t.choices()[i].protocol->name == name)
        return *t.selection_cost(i, n);
    return -1.0;
  };
  EXPECT_NEAR(cost(table, "rndv/get", 1023), cost(plain, "rndv/get", 1023), 1e-15);
  EXPECT_NEAR(cost(table, "rndv/get", 1024) - cost(plain, "rndv/get", 1024), 0.99 * 600e-9, 1e-15);
  EXPECT_NEAR(cost(table, "eager/bcopy", 1024) - cost(plain, "eager/bcopy", 1024), 600e-9, 1e-15);
}

// A message factor of 0.5 from 32 KiB (xover:bw_factor "0:1;32KiB:0.5"):
// below it the table is the one above; from it every per-byte figure of
// the message halves, the wire to 2 ns/B and memcpy to 0.5 ns/B, fragments
// included, while L, o and registration keep theirs:
//   eager/multi/zcopy  t_s = 400, t_w = 2·4104 = 8208, t_r = 400 + 2036 =
//     2436; wire-bound, m* = 8208/4072 = 2.0157171; fill 12044 →
//     12044 − 8208 + m*·n + reg 930.1 = 4766.1 + 2.0157171n
//   rndv/get  930.1 + (1800 + 144) + 930.1 + (2000 + 32 + 2n + 800) + 400
//     = 7036.2 + 2n, times 0.99: 6965.838 + 1.98n
//   they meet at 2199.738 / 0.0357171 = 61587.8, inside the factor's range:
//   the crossover moves down from 175300.6 to 61587.8
TEST(ThresholdTableGolden, MessageFactorMovesTheRendezvousCrossover) {
  Path path = test::path({one_lane()}, 4);
  path.message_factor = SizeSteps({{0, 1}, {32768, 0.5}});
  const ThresholdTable table = ThresholdTable::build(path, no_reg_cache());
  EXPECT_EQ(rows(table), (std::vector<Row>{{0, 56, "eager/short"},
                                          {57, 3720, "eager/bcopy"},
                                          {3721, 4088, "eager/zcopy"},
                                          {4089, 61587, "eager/multi/zcopy"},
                                          {61588, kSizeMax, "rndv/get"}}));
  const std::size_t get = table.lookup(1 << 20) - table.choices().data();
  EXPECT_NEAR(*table.selection_cost(get, 32767), (6878.718 + 0.99 * 32767) * 1e-9, 1e-15);
  EXPECT_NEAR(*table.selection_cost(get, 32768), (6965.838 + 1.98 * 32768) * 1e-9, 1e-15);
}

// The same 0.5 from 32 KiB as the lane's own factor (its link's
// xover:bw_factor), none on the path: the wire halves as above, the copies
// keep their pace. rndv/get makes no copy and costs what it costs with the
// path's factor; eager/multi/zcopy's receiver copies at the full memcpy
// bandwidth and costs less, so the crossover stays above the path
// factor's 61587.
TEST(ThresholdTableGolden, LaneMessageFactorLeavesTheCopiesTheirPace) {
  LaneAttrs own = one_lane();
  own.message_factor = SizeSteps({{0, 1}, {32768, 0.5}});
  Path on_path = test::path({one_lane()}, 4);
  on_path.message_factor = own.message_factor;
  const ThresholdTable lane = ThresholdTable::build(test::path({own}, 4), no_reg_cache());
  const ThresholdTable path = ThresholdTable::build(on_path, no_reg_cache());
  const auto cost = [](const ThresholdTable& t, std::string_view name, Bytes n) {
    for (std::size_t i = 0; i < t.choices().size(); ++i)
      if (t.choices()[i].protocol->name == name)
        return *t.selection_cost(i, n);
    return -1.0;
  };
  for (Bytes n : {Bytes{32767}, Bytes{32768}, Bytes{1} << 20})
    EXPECT_NEAR(cost(lane, "rndv/get", n), cost(path, "rndv/get", n), 1e-15) << n;
  EXPECT_NEAR(cost(lane, "eager/multi/zcopy", 32767), cost(path, "eager/multi/zcopy", 32767), 1e-15);
  EXPECT_LT(cost(lane, "eager/multi/zcopy", 32768), cost(path, "eager/multi/zcopy", 32768));
  EXPECT_EQ(path.lookup(61588)->protocol->name, "rndv/get");
  EXPECT_EQ(lane.lookup(61588)->protocol->name, "eager/multi/zcopy");
}

// A table per memory type: the host table is the one above whatever asks
// for it, and holds no protocol of device memory; the cuda table holds
// only those, and is empty on a path without device figures.
TEST(ThresholdTableGolden, EachMemoryTypeHasItsOwnTable) {
  const LaneAttrs l = one_lane();
  const SelectConfig config = no_reg_cache();
  const ThresholdTable host = ThresholdTable::build(test::path({l}, 4), config, MemType::Host);
  EXPECT_EQ(host.mem(), MemType::Host);
  EXPECT_EQ(rows(host), rows(ThresholdTable::build(test::path({l}, 4), config)));
  for (const ProtoChoice& choice : host.choices())
    EXPECT_NE(choice.protocol->mem_types & mem_bit(MemType::Host), 0) << choice.protocol->name;
  const ThresholdTable cuda = ThresholdTable::build(test::path({l}, 4), config, MemType::Cuda);
  EXPECT_EQ(cuda.mem(), MemType::Cuda);
  EXPECT_TRUE(cuda.choices().empty());
  EXPECT_TRUE(cuda.ranges().empty());
  EXPECT_EQ(cuda.lookup(8), nullptr);
  EXPECT_EQ(mem_type_named("cuda"), MemType::Cuda);
  EXPECT_EQ(mem_type_named("host"), MemType::Host);
  EXPECT_EQ(mem_type_named("rocm"), std::nullopt);
}

// one_lane() with a GPU at each end: a staged copy costs 2000 + 0.5n (2 us,
// 2 GB/s), a copy from a peer's mapped buffer 2000 + 0.01n (100 GB/s).
//   eager/staged  1816 + n (the message) + 2000 + 0.5n + 0.25n (stage and
//                 bounce copy, sender) + 2000 + 0.5n (stage, receiver)
//                 = 5816 + 2.25n,  1 ≤ n ≤ 4088; 1816 at 0 (no copy)
//   rndv/pipe     RTS 1848 + RTR 1816 + one fragment 5816 + 2.25n (as
//                 eager/staged, 16 B header) + 0.25n (the receiver's copy
//                 out of its segment into a staging slot) = 9480 + 2.5n,
//                 × d = 0.99: 9385.2 + 2.475n up to S = 4088, above
//                 eager/staged's last size the only protocol
//   rndv/ipc      RTS with six entries (48 + 144 B) 1992 + ACK's o_s 400
//                 + 2000 + 0.01n = 4392 + 0.01n, × 0.99: below
//                 eager/staged from 1 B on; at 0 (no copy) 2368.08, above
//                 eager/staged's 1816
Path gpu_path(BytesPerSecond ipc_bw) {
  Path path = test::path({one_lane()}, 4);
  path.device_local = path.device_remote = DeviceCopy{2e-6, 2e9, ipc_bw};
  return path;
}

TEST(ThresholdTableGolden, DeviceMemoryStagedOrThroughIpc) {
  const SelectConfig config = no_reg_cache();
  const ThresholdTable staged = ThresholdTable::build(gpu_path(0), config, MemType::Cuda);
  EXPECT_EQ(rows(staged), (std::vector<Row>{{0, 4088, "eager/staged"}, {4089, kSizeMax, "rndv/pipe"}}));
  const auto index = static_cast<std::size_t>(staged.lookup(100) - staged.choices().data());
  EXPECT_NEAR(staged.selection_cost(index, 100).value() * 1e9, 5816 + 2.25 * 100, 1e-6);
  EXPECT_NEAR(staged.selection_cost(index, 4088).value() * 1e9, 5816 + 2.25 * 4088, 1e-6);
  const ThresholdTable ipc = ThresholdTable::build(gpu_path(100e9), config, MemType::Cuda);
  EXPECT_EQ(rows(ipc), (std::vector<Row>{{0, 0, "eager/staged"}, {1, kSizeMax, "rndv/ipc"}}));
  // The host table of the same path is the host table: no device figure in it.
  EXPECT_EQ(rows(ThresholdTable::build(gpu_path(100e9), config)),
            rows(ThresholdTable::build(test::path({one_lane()}, 4), config)));
}

// gpu_path(0) whose receiving end copies from pageable memory at its own
// figures, 5 us + n / 1 GB/s (5000 + n), against 2000 + 0.5n pinned:
//   eager/staged  the receiver's copy is out of its receive segment
//                 (pageable): 1816 + n + 2000 + 0.75n + 5000 + n
//                 = 8816 + 2.75n
//   rndv/pipe     the receiver copies each fragment into a pinned slot
//                 first: 9385.2 + 2.475n as above, the pinned figures
//   crossover     8816 + 2.75n = 9385.2 + 2.475n at n = 569.2 / 0.275
//                 = 2069.8: eager/staged to 2069, rndv/pipe from 2070
TEST(ThresholdTableGolden, AReceiveFromPageableMemoryIsPricedAtItsOwnFigures) {
  Path path = gpu_path(0);
  path.device_remote.pageable_o = 5e-6;
  path.device_remote.pageable_bw = 1e9;
  const ThresholdTable table = ThresholdTable::build(path, no_reg_cache(), MemType::Cuda);
  EXPECT_EQ(rows(table), (std::vector<Row>{{0, 2069, "eager/staged"}, {2070, kSizeMax, "rndv/pipe"}}));
  const auto staged = static_cast<std::size_t>(table.lookup(100) - table.choices().data());
  EXPECT_NEAR(table.selection_cost(staged, 100).value() * 1e9, 8816 + 2.75 * 100, 1e-6);
  EXPECT_NEAR(table.selection_cost(staged, 2069).value() * 1e9, 8816 + 2.75 * 2069, 1e-6);
  const auto pipe = static_cast<std::size_t>(table.lookup(3000) - table.choices().data());
  EXPECT_NEAR(table.selection_cost(pipe, 3000).value() * 1e9, 9385.2 + 2.475 * 3000, 1e-6);
  EXPECT_NEAR(table.selection_cost(pipe, 4088).value() * 1e9, 9385.2 + 2.475 * 4088, 1e-6);
  // Without a pageable figure the receive is priced at the pinned one.
  const ThresholdTable pinned = ThresholdTable::build(gpu_path(0), no_reg_cache(), MemType::Cuda);
  const auto at = static_cast<std::size_t>(pinned.lookup(100) - pinned.choices().data());
  EXPECT_NEAR(pinned.selection_cost(at, 100).value() * 1e9, 5816 + 2.25 * 100, 1e-6);
}

// Two equal rails, registration cache on (the default).
//   L = 1 us, B = 10 GB/s (0.1 ns/B), o = 250 ns, memcpy 5 GB/s (0.2 ns/B),
//   max_short 136, segment = max_bcopy = 8216.
//   eager/short   1501.6 + 0.3n   n ≤ 120
//   eager/zcopy   1501.6 + 0.3n   n ≤ 8200  (equal to short: short wins its range)
//   eager/bcopy   1501.6 + 0.5n
//   eager/multi/zcopy on r0 (max_eager_lanes 1), S = 8184, above S:
//     t_s = 250, t_w = 821.6, t_r = 250 + 1636.8 = 1886.8: bound by the
//     receiver's copy, m* = 1886.8/8184 = 0.2305474;
//     fill 3958.4 → 2071.6 + 0.2305474n: below eager/zcopy only past
//     8201.4, where eager/zcopy has already stopped (8200)
//   rndv/get over r0 and r1, 50 % each: 1509.6 (RTS, 96 B) + 2001.6 +
//     n/20 GB/s + max(2·250 + 250, 250 + 2·250) + 250 (ACK) = 4511.2 +
//     0.05n; times 0.99: 4466.088 + 0.0495n; would meet that line at
//     13225.8, but with two fragments (8185..16368) the last, r bytes,
//     takes the receiver's 250 + 0.2r where the line had 0.2305474r:
//     2571.6 + 0.2n, which it meets at 12587.9
TEST(ThresholdTableGolden, TwoEqualRailsStripeRendezvous) {
  LaneAttrs r0 = test::lane("r0", 1, 10, 0.25);
  r0.max_short = 136;
  r0.max_bcopy = 8216;
  r0.seg_size = 8216;
  LaneAttrs r1 = r0;
  r1.name = "r1";
  const ThresholdTable table = ThresholdTable::build(test::path({r0, r1}, 5), SelectConfig{});
  EXPECT_EQ(rows(table), (std::vector<Row>{{0, 120, "eager/short"},
                                          {121, 8200, "eager/zcopy"},
                                          {8201, 12587, "eager/multi/zcopy"},
                                          {12588, kSizeMax, "rndv/get"}}));
  const ProtoChoice* get = table.lookup(1 << 20);
  ASSERT_NE(get, nullptr);
  EXPECT_EQ(get->candidate.lanes, (std::vector<LaneShare>{{0, 0.5}, {1, 0.5}}));
  EXPECT_EQ(table.lookup(100)->candidate.lanes, (std::vector<LaneShare>{{0, 1.0}}));
}

// A RoCE-like lane without inline sends or connect-to-interface, and a slow
// TCP-like lane that has them. Registration cache off.
//   r0:  L = 2 us, 12.5 GB/s (0.08 ns/B), o = 500 ns, segment 8256,
//        reg 2000 ns + 0.01 ns/B, caps am_bcopy, am_zcopy, put, get
//   tcp: L = 10 us, 1.25 GB/s, o = 2 us, caps am_short, am_bcopy, connect
//   memcpy 8 GB/s (0.125 ns/B).
// Lanes: AM = r0 (3 us against 14 us; short or bcopy will do); bootstrap =
// tcp, the only one that connects to an interface; tcp is 10× slower than
// r0, past the ratio 4, so no bandwidth class takes it.
//   eager/short   absent: r0 has no am_short
//   eager/bcopy   3001.28 + 0.33n     n ≤ 8240
//   eager/zcopy   5001.28 + 0.215n: meets bcopy at 17391, past its range
//   eager/multi/bcopy, S = 8224: t_s = t_r = 500 + 1028 = 1528,
//     t_w = 8256 × 0.08 = 660.48: CPU-bound, m* = 1528/8224; fill
//     5716.48 → 4188.48 + 0.18579767n, cheaper than eager/bcopy from
//     8233; but with two fragments the last, r bytes, takes the receiver's
//     500 + 0.125r where the line had 0.18579767r: 499.5 more at 8233, so
//     eager/bcopy holds to its last size, 8240
//   rndv/get  (2000 + 0.01n)·2 + 3005.76 (RTS, 72 B) + 4001.28 + 0.08n
//     + 1000 + 500 (ACK) = 12507.04 + 0.1n, times 0.99: 12381.97 + 0.099n;
//     meets multi/bcopy at 94397.9
TEST(ThresholdTableGolden, CapabilitiesAndBandwidthRatioShapeTheLanes) {
  LaneAttrs r0 = test::lane("r0", 2, 12.5, 0.5);
  r0.seg_size = r0.max_bcopy = 8256;
  r0.reg_cost = 2000e-9;
  r0.reg_growth = 0.01e-9;
  r0.caps = {LaneCap::AmBcopy, LaneCap::AmZcopy, LaneCap::PutZcopy, LaneCap::GetZcopy};
  LaneAttrs tcp = test::lane("tcp", 10, 1.25, 2);
  tcp.caps = {LaneCap::AmShort, LaneCap::AmBcopy, LaneCap::ConnectToIface};
  const Path path = test::path({tcp, r0}, 8);
  SelectConfig config;
  config.reg_cache = false;
  const ThresholdTable table = ThresholdTable::build(path, config);
  EXPECT_EQ(rows(table), (std::vector<Row>{{0, 8240, "eager/bcopy"},
                                          {8241, 94397, "eager/multi/bcopy"},
                                          {94398, kSizeMax, "rndv/get"}}));
  EXPECT_EQ(table.lanes().am, 1u);
  EXPECT_EQ(table.lanes().bootstrap, 0u);
  EXPECT_TRUE(table.lanes().needs_bootstrap(path));
  EXPECT_EQ(table.bw_lanes("rndv/get"), (std::vector<LaneShare>{{1, 1.0}}));
  EXPECT_EQ(table.bw_lanes("eager/multi/bcopy"), (std::vector<LaneShare>{{1, 1.0}}));
}

/// The two lanes of shared memory as the wire-up measures them (figures of
/// this project's machine, rounded): mm, the rings (112-byte inline cells,
/// 8176-byte descriptors, copied both ways), and cma, process_vm_readv (the
/// initiator's own copy; twice the rate between huge pages, from 1 MiB).
Path shm_path(SecondsPerByte mm_recv_per_byte) {
  LaneAttrs mm = test::lane("mm", 0.24, 30, 0.04);
  mm.max_short = 112;
  mm.max_bcopy = mm.seg_size = 8176;
  mm.max_zcopy = 0;
  mm.caps = {LaneCap::AmShort, LaneCap::AmBcopy, LaneCap::ConnectToIface};
  mm.o_recv_per_byte = mm_recv_per_byte;
  LaneAttrs cma = test::lane("cma", 0.8, 13.5, 0);
  cma.bandwidth_steps = SizeSteps({{0, 13.5e9}, {Bytes{1} << 20, 27e9}});
  cma.max_short = cma.max_bcopy = cma.seg_size = 0;
  cma.caps = {LaneCap::GetZcopy, LaneCap::PutZcopy, LaneCap::ConnectToIface};
  cma.cpu_moves = true;
  return test::path({mm, cma}, 40);
}

// Shared memory at 1 MiB: eager/multi/bcopy against rndv/get.
//   Without the receiver's time per byte past its memcpy, each 8144-byte
//   fragment's stages are t_s = 40 + 8144/40 = 243.6 ns, t_r = 243.6 ns and
//   the ring's 8176/30 = 272.53 ns: wire-bound, 35.1 us for 1 MiB, under
//   rndv/get's 1 MiB/27 GB/s = 38.8 us plus its latencies.
//   With 60 ps/B (the wire-up measures 34 to 75 on this machine: the copy
//   out of lines the other core has just written), t_r = 243.6 + 488.64 =
//   732.24 ns: receiver-bound, 94.3 us, and rndv/get takes 1 MiB.
//   Past 8 fragments the multi-eager line's slope is t_r / 8144 per byte.
TEST(ThresholdTableGolden, TheShmReceiversCopyOutTurnsOneMebibyteToRndvGet) {
  const Bytes mib = Bytes{1} << 20;
  const ThresholdTable before = ThresholdTable::build(shm_path(0), SelectConfig{});
  ASSERT_NE(before.lookup(mib), nullptr);
  EXPECT_EQ(std::string(before.lookup(mib)->protocol->name), "eager/multi/bcopy");

  const SecondsPerByte per_byte = 60e-12;
  const ThresholdTable after = ThresholdTable::build(shm_path(per_byte), SelectConfig{});
  ASSERT_NE(after.lookup(mib), nullptr);
  EXPECT_EQ(std::string(after.lookup(mib)->protocol->name), "rndv/get");
  EXPECT_EQ(std::string(after.lookup(4 * mib)->protocol->name), "rndv/get");

  SelectConfig multi;
  multi.forced = {"eager/multi/bcopy"};
  const ThresholdTable forced = ThresholdTable::build(shm_path(per_byte), multi);
  ASSERT_EQ(forced.choices().size(), 1u);
  const std::optional<Seconds> at_1 = forced.selection_cost(0, mib);
  const std::optional<Seconds> at_2 = forced.selection_cost(0, 2 * mib);
  ASSERT_TRUE(at_1 && at_2);
  const double payload = 8176 - 32;
  const Seconds t_recv = 40e-9 + payload / 40e9 + payload * per_byte;
  EXPECT_NEAR((*at_2 - *at_1) / static_cast<double>(mib), t_recv / payload, 1e-9 * t_recv / payload);
}

/// TCP's two lanes: active messages on tcp, gets on tcp-rma, which the
/// target's CPU serves (o_s 1 us, o_r 0.2 us, the sender's 0.5 ns/B and the
/// receiver's 0.25 ns/B), each lane's overheads holding the protocol core's
/// `core_send` and `core_recv`.
Path tcp_path(Seconds core_send, Seconds core_recv) {
  LaneAttrs am = test::lane("tcp", 2, 10, 1);
  am.o_recv = 0.2e-6;
  am.max_short = 256;
  am.max_bcopy = am.seg_size = 4096;
  am.caps = {LaneCap::AmShort, LaneCap::AmBcopy, LaneCap::AmZcopy};
  am.bcopy_copies = false;
  am.o_send_per_byte = 0.5e-9;
  am.o_recv_per_byte = 0.25e-9;
  LaneAttrs rma = am;
  rma.name = "tcp-rma";
  rma.caps = {LaneCap::GetZcopy};
  rma.get_served = true;
  for (LaneAttrs* lane : {&am, &rma}) {
    lane->o_core_send = core_send;
    lane->o_core_recv = core_recv;
  }
  return test::path({am, rma}, 8);
}

std::optional<Seconds> forced_cost(const Path& path, const char* protocol, Bytes n) {
  SelectConfig config;
  config.forced = {protocol};
  config.set("reg_cache", "on");
  const ThresholdTable table = ThresholdTable::build(path, config);
  return table.choices().size() == 1 ? table.selection_cost(0, n) : std::nullopt;
}

// The served get's target runs its transport, not the protocol core: its
// take-in of the request and post of the reply are o_r(0) + o_s less the
// core's part, so rndv/get's line drops by exactly d·(0.3 + 0.05 us) at
// every size, per byte unchanged, and a core's part larger than the
// overheads leaves the target none of them (d·1.2 us less). Every protocol that runs the
// core pays the whole o_s and o_r: eager's lines stay as they were. (A
// rendezvous line is scaled by UCX's d = 0.99, as above.)
TEST(ThresholdTableGolden, TheServedGetsLineDropsByTheCoresPart) {
  const Path whole = tcp_path(0, 0);
  const Path part = tcp_path(0.3e-6, 0.05e-6);
  const Path all = tcp_path(2e-6, 1e-6);
  for (Bytes n : {Bytes{1}, Bytes{1000}, Bytes{100000}, Bytes{1} << 22}) {
    const std::optional<Seconds> before = forced_cost(whole, "rndv/get", n);
    const std::optional<Seconds> after = forced_cost(part, "rndv/get", n);
    const std::optional<Seconds> none = forced_cost(all, "rndv/get", n);
    ASSERT_TRUE(before && after && none) << n;
    EXPECT_NEAR(*before - *after, 0.99 * 0.35e-6, 1e-15) << n;
    EXPECT_NEAR(*before - *none, 0.99 * 1.2e-6, 1e-15) << n;
    for (const char* eager : {"eager/short", "eager/bcopy", "eager/zcopy"})
      EXPECT_EQ(forced_cost(whole, eager, n), forced_cost(all, eager, n)) << eager << " " << n;
  }
}

}  // namespace
}  // namespace xover
