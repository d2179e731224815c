// xover proto-info driven as a user drives it: output, JSON, exit statuses.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/support/run.hpp"

namespace xover {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::StartsWith;

const std::string kXover = XOVER_BINARY;
const std::string kSource = XOVER_SOURCE_DIR;

test::CommandResult proto_info(const std::string& args) {
  return test::run_command(kXover + " proto-info " + args);
}

std::string data(const std::string& name) {
  return kSource + "/tests/data/platforms/" + name;
}

/// `xover proto-info --json --platform PLATFORM` read by python3 as `d`,
/// then `checks` (python asserts, one per line); "json ok" in its output
/// when every one holds.
test::CommandResult json_checked(const std::string& platform, const std::string& checks) {
  return test::run_command(kXover + " proto-info --json --platform " + platform +
                           " | python3 -c 'import json, sys\nd = json.load(sys.stdin)\n" + checks +
                           "print(\"json ok\")'");
}

// The shipped two-rail HDR platform, worked out from platforms/hdr-2rail.xml
// (L 0.8 us, 24 GB/s, o 0.1 us, gap 20 ns, memcpy 12 GB/s, registration
// cache on, max_short 220, segment 8 KiB):
//   eager/short        1000.67 ns + 0.125 n      n ≤ 204 (220 − 16 B header, 16/24 ns)
//   eager/zcopy        the same line             n ≤ 8176
//   eager/multi/zcopy  S = 8160, bound by the receiver's copy:
//                      t_r = 0.1 us + 8160/12 GB/s = 780 ns, m* = t_r/S;
//                      fill 2021.33 ns → 1241.33 ns + 0.0955882 n, below
//                      eager/zcopy from 8182.7, past its last size 8176;
//                      with 3 fragments (16321..24480) the last, r bytes,
//                      takes the receiver's 100 + r/12 GB/s where the line
//                      had r·m*: 1541.33 ns + n/12 GB/s
//   rndv/get           0.99 (3004.67 ns + n/48 GB/s), crossing multi at 22856.6
TEST(ProtoInfoCli, DefaultPlatformTable) {
  const auto r = proto_info("--platform " + kSource + "/platforms/hdr-2rail.xml");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("| 0..204                     | eager/short"));
  EXPECT_THAT(r.out, HasSubstr("| 205..8176                  | eager/zcopy"));
  EXPECT_THAT(r.out, HasSubstr("| 8177..22856                | eager/multi/zcopy"));
  EXPECT_THAT(r.out, HasSubstr("| 22857..inf                 | rndv/get           | r0 50%, r1 50%"));
  EXPECT_EQ(r.err, "");
}

// tests/data/platforms/one_rail_steps.xml: each figure that changes with
// size under its lane, and the cost lines split where a protocol's figures
// change (eager/bcopy: o_send at 1 KiB, the copies at 2 KiB).
TEST(ProtoInfoCli, SizeStepsShowUnderTheirLaneAndSplitTheCostLines) {
  const auto r = proto_info("--platform " + data("one_rail_steps.xml"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("#     lane r0 o_send by size: 0:300.000ns; 1K:500.000ns\n"));
  EXPECT_THAT(r.out, HasSubstr("#     lane r0 o_recv by size: 0:200.000ns; 64K:400.000ns\n"));
  EXPECT_THAT(r.out, HasSubstr("#     lane r0 bandwidth by size: 0:10.000 GB/s; 16K:8.000 GB/s; 1M:5.000 GB/s\n"));
  EXPECT_THAT(r.out, HasSubstr("#     memcpy at node1 by size: 0:16.000 GB/s; 2K:8.000 GB/s; 1M:4.000 GB/s\n"));
  EXPECT_THAT(r.out, HasSubstr("  eager/bcopy          0..1023                c 2.502us     m  0.22500 ns/B"));
  EXPECT_THAT(r.out, HasSubstr("  eager/bcopy          1024..2047             c 2.702us     m  0.22500 ns/B"));
  EXPECT_THAT(r.out, HasSubstr("  eager/bcopy          2048..4080             c 2.702us     m  0.35000 ns/B"));
  const auto json = json_checked(data("one_rail_steps.xml"),
                                 "assert d[\"lanes\"][0][\"o_send_steps\"][1] == {\"from\": 1024, \"value\": 5e-07}\n"
                                 "assert [s[\"from\"] for s in d[\"memcpy_remote_steps\"]] == [0, 2048, 1048576]\n");
  EXPECT_EQ(json.status, 0) << json.err;
  EXPECT_THAT(json.out, HasSubstr("json ok"));
}

// o_send_after (one_rail_send_after.xml: 0.8 us of a 1 us o_send) shows on
// its lane and comes off a message's cost line: eager/bcopy's c is
// 0.2 + 2 + 16 B / 10 GB/s + 0.2 us; a bcopy without a sender copy
// (one_rail_no_bcopy_copy.xml, o_send 1 us) shows on its lane and leaves
// eager/bcopy's m at the wire's 0.1 and the receiver's copy's 0.125 ns/B.
TEST(ProtoInfoCli, SendOverlapAndBcopyCopyShowOnTheLaneAndInTheCostLines) {
  const auto after = proto_info("--platform " + data("one_rail_send_after.xml"));
  ASSERT_EQ(after.status, 0) << after.err;
  EXPECT_THAT(after.out, HasSubstr("o_send 1.000us (800.000ns after the message has left)  o_recv 200.000ns"));
  EXPECT_THAT(after.out, HasSubstr("  eager/bcopy          0..4080                c 2.402us     m  0.35000 ns/B"));
  const auto none = proto_info("--platform " + data("one_rail_no_bcopy_copy.xml"));
  ASSERT_EQ(none.status, 0) << none.err;
  EXPECT_THAT(none.out, HasSubstr("o_send 1.000us  o_recv 200.000ns"));
  EXPECT_THAT(none.out, HasSubstr("bcopy_copy no\n"));
  EXPECT_THAT(none.out, HasSubstr("  eager/bcopy          0..4080                c 3.202us     m  0.22500 ns/B"));
  const auto json = json_checked(data("one_rail_send_after.xml"),
                                 "assert d[\"lanes\"][0][\"o_send_after\"] == 8e-07\n"
                                 "assert d[\"lanes\"][0][\"bcopy_copy\"] is True\n");
  EXPECT_EQ(json.status, 0) << json.err;
  EXPECT_THAT(json.out, HasSubstr("json ok"));
}

// A message factor (one_rail_factor_mixed.xml: the smaller of the two
// nodes' at each size) shows under the lanes and in the JSON, and splits
// the cost lines at its sizes: eager/multi/bcopy's slope grows by 1/0.8
// from 16 KiB (where its ranges by fragment count, protocols/fragment_tail.hpp,
// are split again).
TEST(ProtoInfoCli, MessageFactorShowsAndSplitsTheCostLines) {
  const auto r = proto_info("--platform " + data("one_rail_factor_mixed.xml"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("#     message factor by size: 0:1; 16K:0.8; 64K:0.5; 1M:0.25\n"));
  EXPECT_THAT(r.out, HasSubstr("eager/multi/bcopy    16257..16383 "));
  EXPECT_THAT(r.out, HasSubstr("eager/multi/bcopy    16384.."));
  const auto json = json_checked(data("one_rail_factor_mixed.xml"),
                                 "assert [s[\"value\"] for s in d[\"message_factor\"]] == [1, 0.8, 0.5, 0.25]\n");
  EXPECT_EQ(json.status, 0) << json.err;
  EXPECT_THAT(json.out, HasSubstr("json ok"));
}

// A lane's own message factor (one_rail_lane_factor.xml: 0.8 from 16 KiB
// and 0.25 from 1 MiB on the link, 0.5 from 64 KiB on the nodes) shows
// under its lane and in its lane's JSON, apart from the path's, and splits
// the cost lines at its sizes; a bad one on a link exits 2 with the file
// and line.
TEST(ProtoInfoCli, LaneMessageFactorShowsUnderItsLane) {
  const auto r = proto_info("--platform " + data("one_rail_lane_factor.xml"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("#     lane r0 message factor by size: 0:1; 16K:0.8; 1M:0.25\n"));
  EXPECT_THAT(r.out, HasSubstr("#     message factor by size: 0:1; 64K:0.5\n"));
  EXPECT_THAT(r.out, HasSubstr("eager/multi/bcopy    16257..16383 "));
  EXPECT_THAT(r.out, HasSubstr("eager/multi/bcopy    16384.."));
  const auto json = json_checked(data("one_rail_lane_factor.xml"),
                                 "lane = d[\"lanes\"][0]\n"
                                 "assert [s[\"value\"] for s in lane[\"message_factor\"]] == [1, 0.8, 0.25]\n"
                                 "assert [s[\"value\"] for s in d[\"message_factor\"]] == [1, 0.5]\n");
  EXPECT_EQ(json.status, 0) << json.err;
  EXPECT_THAT(json.out, HasSubstr("json ok"));
  const auto bad = proto_info("--platform " + data("bad_link_factor_zero.xml"));
  EXPECT_EQ(bad.status, 2);
  EXPECT_THAT(bad.err, HasSubstr("bad_link_factor_zero.xml:12: link 'l': xover:bw_factor: '0' is not a factor"));
}

TEST(ProtoInfoCli, JsonCarriesRangesCostsAndClosedForm) {
  const auto r = json_checked(kSource + "/platforms/hdr-2rail.xml",
                              "r = d[\"ranges\"]\n"
                              "assert r[0][\"from\"] == 0 and r[0][\"protocol\"] == \"eager/short\", r[0]\n"
                              "assert r[-1][\"to\"] is None and r[-1][\"protocol\"] == \"rndv/get\", r[-1]\n"
                              "assert [l[\"share\"] for l in r[-1][\"lanes\"]] == [0.5, 0.5]\n"
                              "assert all(a[\"to\"] + 1 == b[\"from\"] for a, b in zip(r, r[1:]))\n"
                              "c = {x[\"protocol\"]: x for x in d[\"costs\"]}\n"
                              "assert abs(c[\"eager/short\"][\"ranges\"][0][\"c\"] - (1.0e-6 + 16 / 24e9)) < 1e-15\n"
                              "assert abs(c[\"rndv/get\"][\"ranges\"][-1][\"m\"] - 1 / 48e9) < 1e-22\n"
                              "assert set(d[\"closed_form\"]) == {\"rndv_am\", \"rndv_get\"}\n"
                              "assert d[\"closed_form\"][\"rndv_get\"] == 169284, d[\"closed_form\"]\n");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("json ok"));
}

TEST(ProtoInfoCli, SaysWhyClosedFormAndEnvelopeDiffer) {
  const auto r = proto_info("--platform " + kSource + "/platforms/hdr-2rail.xml");
  ASSERT_EQ(r.status, 0);
  EXPECT_THAT(r.out, HasSubstr("differ"));
  EXPECT_THAT(r.out, HasSubstr("why: eager/zcopy"));
  EXPECT_THAT(r.out, HasSubstr("no latency or header term"));
  EXPECT_THAT(r.out, HasSubstr("sender's ACK"));
}

TEST(ProtoInfoCli, SettingsChangeTheTable) {
  const auto r = proto_info("--platform " + kSource + "/platforms/hdr-2rail.xml --set rndv_thresh=4KiB");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("| 4096..inf                  | rndv/get"));
  const auto forced = proto_info("--platform " + kSource + "/platforms/hdr-2rail.xml --set proto=eager/short");
  ASSERT_EQ(forced.status, 0) << forced.err;
  EXPECT_THAT(forced.out, HasSubstr("| 205..inf                   | (no protocol)"));
}

struct BadInput {
  std::string args;
  std::string message;
};

void PrintTo(const BadInput& input, std::ostream* os) {
  *os << "proto-info " << input.args;
}

class ProtoInfoBadInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(ProtoInfoBadInput, ExitsWithStatusTwoAndSaysWhere) {
  const auto r = proto_info(GetParam().args);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_THAT(r.err, StartsWith("xover proto-info: "));
  EXPECT_THAT(r.err, HasSubstr(GetParam().message));
  EXPECT_EQ(r.out, "");
}

INSTANTIATE_TEST_SUITE_P(
    Platforms, ProtoInfoBadInput,
    ::testing::Values(
        BadInput{"--platform " + data("missing.xml"), data("missing.xml") + ": no such file"},
        BadInput{"--platform " + data("malformed.xml"), data("malformed.xml") + ":10: malformed XML"},
        BadInput{"--platform " + data("bad_unit.xml"), data("bad_unit.xml") + ":12: link 'l': xover:o_send: '0.3xs'"},
        BadInput{"--platform " + data("negative_latency.xml"),
                 data("negative_latency.xml") + ":11: link 'l': latency must not be negative"},
        BadInput{"--platform " + data("zero_bandwidth.xml"),
                 data("zero_bandwidth.xml") + ":11: link 'l': bandwidth must be positive"},
        BadInput{"--platform " + data("no_route.xml") + " --from a --to lonely",
                 data("no_route.xml") + ": no route from a to lonely"},
        BadInput{"--platform " + data("unknown_prop.xml"), "unknown property 'xover:o_snd'"},
        BadInput{"--platform " + data("bad_steps_unsorted.xml"),
                 data("bad_steps_unsorted.xml") + ":12: link 'l': xover:o_send: size steps must be in increasing"},
        BadInput{"--platform " + data("bad_send_after.xml"),
                 data("bad_send_after.xml") + ":13: link 'l': xover:o_send_after 500.000ns is more than its"},
        BadInput{"--platform " + data("bad_bcopy_copy.xml"),
                 data("bad_bcopy_copy.xml") + ":12: link 'l': xover:bcopy_copy: 'maybe' is neither yes nor no"},
        BadInput{"--platform " + data("duplicate_route.xml"),
                 data("duplicate_route.xml") + ":9: the route from 'b' to 'a' is already declared at line 8"},
        BadInput{"--from node0 --to nodeX", "unknown node 'nodeX' (nodes: node0, node1)"}));

INSTANTIATE_TEST_SUITE_P(Options, ProtoInfoBadInput,
                         ::testing::Values(BadInput{"--set eagr_limit=4", "unknown setting 'eagr_limit'"},
                                           BadInput{"--set rndv_thresh=4parsecs", "unknown size unit"},
                                           BadInput{"--set proto=eager/mul", "unknown protocol 'eager/mul'"},
                                           BadInput{"--bogus", "unrecognised option '--bogus'"}));

TEST(ProtoInfoCli, HelpListsOptionsAndSettings) {
  const auto r = proto_info("--help");
  EXPECT_EQ(r.status, 0);
  EXPECT_THAT(r.out, HasSubstr("--platform"));
  EXPECT_THAT(r.out, HasSubstr("rndv_perf_diff"));
  const auto top = test::run_command(kXover + " --help");
  EXPECT_EQ(top.status, 0);
  EXPECT_THAT(top.out, HasSubstr("proto-info"));
  EXPECT_EQ(test::run_command(kXover + " frobnicate").status, 2);
}

// The alltoall star (platforms/alltoall-star.xml: L 1 us, 25 GB/s, g 10 ns,
// o_d 0.5 us, 1024 threads, o_p 1.5 us, wake-up 3 us) at P = 8 with 32
// threads: direct 1.5 us + 7x, proxy 6 us + 7x (x = n/25 GB/s) once the
// NIC is bandwidth-bound; direct must win by 5 %, which it does below
// n = 316,071.4 (tests/protocols/alltoall_model_test.cpp works it out). The golden
// hand-over sizes of the README's table, each in the same table, cost lines
// and JSON keys as the point-to-point protocols'.
TEST(ProtoInfoCli, AlltoallTable) {
  const std::string star = "--platform " + kSource + "/platforms/alltoall-star.xml";
  auto r = proto_info(star + " --alltoall 8 --threads 32");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("threads 32"));
  EXPECT_THAT(r.out, HasSubstr("| 0..316071                  | coll/alltoall/direct | ib_link_0"));
  EXPECT_THAT(r.out, HasSubstr("| 316072..inf                | coll/alltoall/proxy  | ib_link_0"));
  EXPECT_THAT(r.out, HasSubstr("  coll/alltoall/direct 251..inf               c 1.500us     m  0.28000 ns/B"));
  for (const auto& [pes, from] : {std::pair<int, std::string>{8, "316072"}, {64, "37385"}, {512, "35918"},
                                  {4096, "35740"}}) {
    r = proto_info(star + " --alltoall " + std::to_string(pes));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("| " + from + "..inf")) << "P = " << pes << "\n" << r.out;
  }
  r = proto_info(star + " --alltoall 8 --set direct_perf_diff=0 --json");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(R"("ranges":[{"from":0,"to":null,"protocol":"coll/alltoall/direct",)"
                               R"("lanes":[{"name":"ib_link_0","share":1}]}])"));
  EXPECT_THAT(r.out, HasSubstr(R"("pes":8)"));
  EXPECT_THAT(r.out, HasSubstr(R"("operation":"alltoall")"));
  EXPECT_THAT(r.out, HasSubstr(R"({"protocol":"coll/alltoall/direct","bias":1,"ranges":[)"));
}

// A platform with the GPU lane's terms (tests/data/platforms/alltoall_gpu_lane.xml)
// shows them beside the device figures, in the table and the JSON; a host
// platform, which sets none, has no such line.
TEST(ProtoInfoCli, AlltoallShowsTheGpuLane) {
  const std::string gpu = "--platform " + kSource + "/tests/data/platforms/alltoall_gpu_lane.xml --alltoall 2";
  auto r = proto_info(gpu);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("#   gpu lane launch 4.000us  post slope 50.000ns  doorbell batch 3  engine gap "
                               "40.000ns  engine 10.000 GB/s  proxy threads 2  ring 5 commands\n"));
  r = proto_info(gpu + " --json");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, ContainsRegex(R"("launch":(4e-06|3\.9+[0-9]*e-06),"post_slope":(5e-08|5\.0+[0-9]*e-08),)"
                                   R"("doorbell_batch":3,"engine_gap":(4e-08|4\.0+[0-9]*e-08),)"
                                   R"("engine_bw":10000000000,"proxy_threads":2,"ring_capacity":5})"));
  r = proto_info("--platform " + kSource + "/platforms/alltoall-star.xml --alltoall 8");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("gpu lane")));
}

// --mem picks the memory type's table: host is the default's; no protocol
// serves cuda memory yet, and proto-info says its table is empty.
TEST(ProtoInfoCli, MemoryTypes) {
  const std::string platform = "--platform " + kSource + "/platforms/hdr-2rail.xml";
  const auto host = proto_info(platform + " --mem host");
  ASSERT_EQ(host.status, 0) << host.err;
  EXPECT_EQ(host.out, proto_info(platform).out);
  EXPECT_THAT(host.out, HasSubstr("# operation   tag_send, host memory"));
  const auto cuda = proto_info(platform + " --mem cuda");
  ASSERT_EQ(cuda.status, 0) << cuda.err;
  EXPECT_THAT(cuda.out, HasSubstr("# operation   tag_send, cuda memory"));
  EXPECT_THAT(cuda.out, HasSubstr("(no protocol serves cuda memory: the table is empty)"));
  EXPECT_THAT(cuda.out, ::testing::Not(HasSubstr("eager/short")));
  EXPECT_THAT(cuda.out, ::testing::Not(HasSubstr("closed form")));
  const auto json = proto_info(platform + " --mem cuda --json");
  ASSERT_EQ(json.status, 0) << json.err;
  EXPECT_THAT(json.out, HasSubstr("\"memory\":\"cuda\""));
  const auto bad = proto_info(platform + " --mem rocm");
  EXPECT_EQ(bad.status, 2);
  EXPECT_THAT(bad.err, HasSubstr("xover proto-info: --mem: unknown memory type 'rocm' (known: host, cuda)"));
}

TEST(ProtoInfoCli, AlltoallBadInput) {
  const std::string star = "--platform " + kSource + "/platforms/alltoall-star.xml";
  for (const std::string& args : {star + " --alltoall 1", star + " --alltoall 8 --from pe0 --to pe1",
                                  star + " --alltoall 8 --threads 0", star + " --threads 4"}) {
    const auto r = proto_info(args);
    EXPECT_EQ(r.status, 2) << args;
    EXPECT_THAT(r.err, StartsWith("xover proto-info: ")) << args;
  }
  const auto r = proto_info(star + " --alltoall 5000");
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("an alltoall of 5000 PEs needs 5000 nodes, the platform has 4096"));
}

}  // namespace
}  // namespace xover
