// The SimGrid LogGP platform loader: the shipped platforms give the lanes
// their comments promise, plain SimGrid platforms load with the defaults, and
// every bad input fails with the file and, where there is one, the line.
// SimGrid allows one platform per process: each load runs in_child().
#include "sim/platform_loader.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <functional>
#include <string>
#include <utility>

#include "base/child.hpp"
#include "sim/platform_props.hpp"

namespace xover::sim {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string shipped(const std::string& name) {
  return std::string(XOVER_SOURCE_DIR) + "/platforms/" + name;
}

std::string fixture(const std::string& name) {
  return std::string(XOVER_SOURCE_DIR) + "/tests/data/platforms/" + name;
}

std::string num(double value) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", value);
  return buf;
}

/// One line per lane, every attribute, six significant digits.
std::string describe(const Path& path) {
  std::string out = path.from + "->" + path.to + " memcpy " + num(path.memcpy_bw_local) + " " +
                    num(path.memcpy_bw_remote) + "\n";
  for (const LaneAttrs& l : path.lanes)
    out += l.name + " L=" + num(l.latency) + " B=" + num(l.bandwidth) + " o=" + num(l.o_send) + "/" +
           num(l.o_recv) + " g=" + num(l.gap) + " reg=" + num(l.reg_cost) + "+" + num(l.reg_growth) +
           "/B short=" + std::to_string(l.max_short) + " bcopy=" + std::to_string(l.max_bcopy) +
           " zcopy=" + std::to_string(l.max_zcopy) + " seg=" + std::to_string(l.seg_size) +
           " caps=" + l.caps.to_string() + "\n";
  return out;
}

std::string describe(const std::vector<NicPair>& pairs) {
  std::string out;
  for (const NicPair& pair : pairs)
    out += (out.empty() ? "" : " ") + pair.src_host + ">" + pair.dst_host;
  return out;
}

std::string describe_nodes(const LogGPPlatform& platform) {
  std::string out;
  for (const PlatformNode& node : platform.nodes()) {
    out += node.name + " [";
    for (const std::string& nic : node.nics)
      out += (out.back() == '[' ? "" : " ") + nic;
    out += "] " + num(node.memcpy_bw) + "\n";
  }
  return out;
}

/// Loads `file` in a child process and returns what `query` says of it.
std::string with_platform(const std::string& file, const std::function<std::string(const LogGPPlatform&)>& query) {
  return in_child([&] { return query(LogGPPlatform::load(file)); });
}

/// The error load() throws for `file`, or "loaded".
std::string load_error(const std::string& file) {
  return with_platform(file, [](const LogGPPlatform&) { return std::string("loaded"); });
}

constexpr const char* kAllCaps = "am_short,am_bcopy,am_zcopy,put_zcopy,get_zcopy,atomics,connect_to_iface";

TEST(PlatformLoader, Hdr2RailHasTwoRailsBothWays) {
  const std::string out = with_platform(shipped("hdr-2rail.xml"), [](const LogGPPlatform& p) {
    return describe_nodes(p) + describe(p.path("node0", "node1")) + describe(p.path("node1", "node0")) +
           describe(p.nics("node0", "node1")) + "\n" + describe(p.nics("node1", "node0"));
  });
  const std::string lane = " L=8e-07 B=2.4e+10 o=1e-07/1e-07 g=2e-08 reg=1.6e-05+6e-11/B short=220 bcopy=8192 "
                           "zcopy=1073741824 seg=8192 caps=" + std::string(kAllCaps) + "\n";
  EXPECT_EQ(out, "node0 [node0.r0 node0.r1] 1.2e+10\n"
                 "node1 [node1.r0 node1.r1] 1.2e+10\n"
                 "node0->node1 memcpy 1.2e+10 1.2e+10\n"
                 "r0" + lane + "r1" + lane +
                 "node1->node0 memcpy 1.2e+10 1.2e+10\n"
                 "r0" + lane + "r1" + lane +
                 "node0.r0>node1.r0 node0.r1>node1.r1\n"
                 "node1.r0>node0.r0 node1.r1>node0.r1");
}

TEST(PlatformLoader, Roce1RailHasOneRail) {
  const std::string out = with_platform(shipped("roce-1rail.xml"), [](const LogGPPlatform& p) {
    return describe_nodes(p) + describe(p.path("node0", "node1")) + describe(p.nics("node0", "node1"));
  });
  EXPECT_EQ(out, "node0 [node0.r0] 1.2e+10\n"
                 "node1 [node1.r0] 1.2e+10\n"
                 "node0->node1 memcpy 1.2e+10 1.2e+10\n"
                 "r0 L=1.5e-06 B=1.15e+10 o=1e-07/1e-07 g=2e-08 reg=1.6e-05+6e-11/B short=220 bcopy=8192 "
                 "zcopy=1073741824 seg=8192 caps=" + std::string(kAllCaps) + "\n"
                 "node0.r0>node1.r0");
}

TEST(PlatformLoader, ShmIntraHasOneShmLaneWithoutAtomics) {
  const std::string out = with_platform(shipped("shm-intra.xml"), [](const LogGPPlatform& p) {
    return describe_nodes(p) + describe(p.path("node1", "node0")) + describe(p.nics("node1", "node0"));
  });
  EXPECT_EQ(out, "node0 [node0] 1.2e+10\n"
                 "node1 [node1] 1.2e+10\n"
                 "node1->node0 memcpy 1.2e+10 1.2e+10\n"
                 "shm L=1e-07 B=1.1e+10 o=4e-08/4e-08 g=0 reg=5e-07+0/B short=100 bcopy=8192 zcopy=1073741824 "
                 "seg=8192 caps=am_short,am_bcopy,put_zcopy,get_zcopy,connect_to_iface\n"
                 "node1>node0");
}

TEST(PlatformLoader, SplitDuplexPropertiesApplyToBothDirections) {
  const std::string out = with_platform(fixture("splitduplex.xml"), [](const LogGPPlatform& p) {
    return describe(p.path("a", "b")) + describe(p.path("b", "a"));
  });
  const std::string lane = "wire L=2e-06 B=4e+09 o=3e-07/2e-07 g=0 reg=0+0/B short=64 bcopy=8192 zcopy=1073741824 "
                           "seg=8192 caps=am_short,am_bcopy\n";
  EXPECT_EQ(out, "a->b memcpy 1e+10 1e+10\n" + lane + "b->a memcpy 1e+10 1e+10\n" + lane);
}

TEST(PlatformLoader, PlainPlatformTakesDefaultsAndLinkNames) {
  const std::string out = with_platform(fixture("plain.xml"), [](const LogGPPlatform& p) {
    return describe_nodes(p) + describe(p.path("a", "b")) + describe(p.path("c", "b"));
  });
  const std::string defaults = " o=2e-07/2e-07 g=0 reg=0+0/B short=128 bcopy=8192 zcopy=1073741824 seg=8192 caps=" +
                               std::string(kAllCaps) + "\n";
  EXPECT_EQ(out, "a [a] 1e+10\nb [b] 1e+10\nc [c] 1e+10\n"
                 "a->b memcpy 1e+10 1e+10\n"
                 "eth0 L=5e-05 B=1.25e+09" + defaults +
                 "c->b memcpy 1e+10 1e+10\n"
                 "wire L=1e-05 B=2e+09" + defaults);
}

TEST(PlatformLoader, ClusterLoadsWithGeneratedLinks) {
  const std::string out = with_platform(fixture("cluster.xml"), [](const LogGPPlatform& p) {
    const LaneAttrs lane = p.path("n0", "n2").lanes.at(0);
    return describe_nodes(p) + lane.name + " L=" + num(lane.latency) + " B=" + num(lane.bandwidth) + " " +
           describe(p.nics("n0", "n2"));
  });
  EXPECT_EQ(out, "n0 [n0] 1.5e+10\nn1 [n1] 1.5e+10\nn2 [n2] 1.5e+10\n"
                 "c_link_0 L=2.5e-06 B=1e+10 n0>n2");
}

// Route keys: equal where the routes are made alike (the cluster's n0 to n1
// and to n2: its link, the backbone, the peer's link of the same kind),
// apart where a source, an end's figures or a link's kind differ.
TEST(PlatformLoader, RouteKeysAgreeWhereRoutesAreMadeAlike) {
  const auto same = [](const LogGPPlatform& p, const char* a, const char* b, const char* c, const char* d) {
    return p.route_key(p.node_index(a), p.node_index(b)) == p.route_key(p.node_index(c), p.node_index(d)) ? "same"
                                                                                                           : "apart";
  };
  EXPECT_EQ(with_platform(fixture("cluster.xml"),
                          [&](const LogGPPlatform& p) {
                            return std::string(same(p, "n0", "n1", "n0", "n2")) + " " + same(p, "n1", "n2", "n0", "n2");
                          }),
            "same apart");
  EXPECT_EQ(with_platform(fixture("three_devices.xml"),
                          [&](const LogGPPlatform& p) { return std::string(same(p, "node0", "node1", "node0", "node2")); }),
            "apart");
  EXPECT_EQ(with_platform(fixture("multilink.xml"),
                          [&](const LogGPPlatform& p) { return std::string(same(p, "node0", "node1", "node1", "node0")); }),
            "apart");
}

TEST(PlatformLoader, MultiLinkRouteMergesItsLinks) {
  const std::string out = with_platform(fixture("multilink.xml"),
                                        [](const LogGPPlatform& p) { return describe(p.path("node0", "node1")); });
  EXPECT_EQ(out, "node0->node1 memcpy 1e+10 1e+10\n"
                 "r0 L=7e-07 B=1e+10 o=5e-07/2e-07 g=1e-08 reg=0+1e-10/B short=200 bcopy=8192 zcopy=1073741824 "
                 "seg=8192 caps=am_short,am_bcopy,put_zcopy\n");
}

// one_rail_steps.xml: o_send, o_recv and memcpy_bw in size:value sections.
TEST(PlatformLoader, SizeStepsGiveTheFirstStepAndTheSteps) {
  const std::string out = with_platform(fixture("one_rail_steps.xml"), [](const LogGPPlatform& p) {
    const Path path = p.path("node0", "node1");
    const LaneAttrs& lane = path.lanes.at(0);
    const auto bytes_per_second = [](double v) { return num(v); };
    const auto seconds = [](double v) { return num(v); };
    std::string breaks;
    for (Bytes b : path.breakpoints())
      breaks += " " + std::to_string(b);
    return describe(path) + "o_send " + lane.o_send_steps.to_string(seconds) + "\no_recv " +
           lane.o_recv_steps.to_string(seconds) + "\nmemcpy " + path.memcpy_remote_steps.to_string(bytes_per_second) +
           "\nbreaks" + breaks + "\nat 64K: o=" + num(path.at(65536).lanes[0].o_send) + "/" +
           num(path.at(65536).lanes[0].o_recv) + " memcpy " + num(path.at(65536).memcpy_bw_local) + "\n";
  });
  EXPECT_EQ(out, "node0->node1 memcpy 1.6e+10 1.6e+10\n"
                 "r0 L=2e-06 B=1e+10 o=3e-07/2e-07 g=1e-08 reg=5e-06+2e-12/B short=256 bcopy=4096 zcopy=1073741824 "
                 "seg=4096 caps=" + std::string(kAllCaps) + "\n"
                 "o_send 0:3e-07; 1K:5e-07\n"
                 "o_recv 0:2e-07; 64K:4e-07\n"
                 "memcpy 0:1.6e+10; 2K:8e+09; 1M:4e+09\n"
                 "breaks 1024 2048 16384 65536 1048576\n"
                 "at 64K: o=5e-07/4e-07 memcpy 8e+09\n");
}

// Size steps out of order, not from 0, with an empty section or a bad unit,
// on a figure that takes one value, or faster than the link: the file and
// line, and what is wrong.
TEST(PlatformLoader, BadSizeStepsNameTheFileAndLine) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"bad_steps_unsorted.xml", ":12: link 'l': xover:o_send: size steps must be in increasing size order (1K after 4K)"},
      {"bad_steps_no_zero.xml", ":12: link 'l': xover:o_send: the first size step must start at 0 (got 1K)"},
      {"bad_steps_empty.xml", ":12: link 'l': xover:o_send: '' is not a size:value section"},
      {"bad_steps_unit.xml", ":12: link 'l': xover:o_send: '0.5xs': unknown time unit 'xs'"},
      {"bad_steps_gap.xml", ":12: link 'l': xover:gap: takes one value, not size steps"},
      {"bad_steps_memcpy.xml", ":10: host 'a': xover:memcpy_bw: size steps must be in increasing size order"},
      {"bad_steps_above_link.xml", ":12: link 'l': xover:bandwidth: 9e+11 B/s from 1K is above the link's bandwidth"},
  };
  for (const auto& [name, what] : cases)
    EXPECT_THAT(load_error(fixture(name)), StartsWith("ERROR: " + fixture(name) + what)) << name;
}

// xover:bw_factor on node hosts: a route's message factor is the smaller
// of its two nodes' at each size, its sizes are the path's breakpoints, and
// a platform without it has none.
TEST(PlatformLoader, MessageFactorIsTheSmallerOfTheTwoNodesAtEachSize) {
  const std::string out = with_platform(fixture("one_rail_factor_mixed.xml"), [](const LogGPPlatform& p) {
    const auto factor = [](double v) { return num(v); };
    const Path there = p.path("node0", "node1");
    std::string breaks;
    for (Bytes b : there.breakpoints())
      breaks += " " + std::to_string(b);
    return there.message_factor.to_string(factor) + "\nback " +
           p.path("node1", "node0").message_factor.to_string(factor) + "\nbreaks" + breaks + "\nnode0 " +
           p.node("node0").bw_factor.to_string(factor) + "\n";
  });
  EXPECT_EQ(out, "0:1; 16K:0.8; 64K:0.5; 1M:0.25\n"
                 "back 0:1; 16K:0.8; 64K:0.5; 1M:0.25\n"
                 "breaks 16384 65536 1048576\n"
                 "node0 0:1; 64K:0.5\n");
  EXPECT_EQ(with_platform(fixture("one_rail_exact.xml"),
                          [](const LogGPPlatform& p) {
                            return std::to_string(p.path("node0", "node1").message_factor.empty());
                          }),
            "1");
}

// A factor of 0, above 1 or not a number: the file and line, and what is
// wrong.
TEST(PlatformLoader, BadMessageFactorsNameTheFileAndLine) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"bad_factor_zero.xml", ":10: host 'a': xover:bw_factor: '0' is not a factor in (0, 1]"},
      {"bad_factor_above_one.xml", ":10: host 'a': xover:bw_factor: '1.5' is not a factor in (0, 1]"},
      {"bad_factor_text.xml", ":10: host 'a': xover:bw_factor: 'abc' is not a factor in (0, 1]"},
  };
  for (const auto& [name, what] : cases)
    EXPECT_THAT(load_error(fixture(name)), StartsWith("ERROR: " + fixture(name) + what)) << name;
}

// xover:bw_factor on links (two_links_lane_factor.xml): a lane takes the
// smaller of its route's links' factors at each size, a lane without one
// has none, the path keeps its nodes', and the lane's sizes are the path's
// breakpoints too.
TEST(PlatformLoader, LaneMessageFactorIsTheSmallerOfItsLinksAtEachSize) {
  const std::string out = with_platform(fixture("two_links_lane_factor.xml"), [](const LogGPPlatform& p) {
    const auto factor = [](double v) { return num(v); };
    const Path there = p.path("node0", "node1");
    std::string breaks;
    for (Bytes b : there.breakpoints())
      breaks += " " + std::to_string(b);
    return there.lanes.at(0).name + " " + there.lanes.at(0).message_factor.to_string(factor) + "\n" +
           there.lanes.at(1).name + " [" + there.lanes.at(1).message_factor.to_string(factor) + "]\npath " +
           there.message_factor.to_string(factor) + "\nbreaks" + breaks + "\n";
  });
  EXPECT_EQ(out, "r0 0:1; 16K:0.8; 256K:0.4; 1M:0.25\n"
                 "r1 []\n"
                 "path 0:1; 64K:0.5\n"
                 "breaks 16384 65536 262144 1048576\n");
}

// A link's factor of 0, with sizes out of order or not from 0: the file and
// the line of the property, and what is wrong.
TEST(PlatformLoader, BadLaneMessageFactorsNameTheFileAndLine) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"bad_link_factor_zero.xml", ":12: link 'l': xover:bw_factor: '0' is not a factor in (0, 1]"},
      {"bad_link_factor_order.xml", ":12: link 'l': xover:bw_factor: size steps must be in increasing size order"},
      {"bad_link_factor_start.xml", ":12: link 'l': xover:bw_factor: the first size step must start at 0"},
  };
  for (const auto& [name, what] : cases)
    EXPECT_THAT(load_error(fixture(name)), StartsWith("ERROR: " + fixture(name) + what)) << name;
}

// xover:o_send_after, xover:bcopy_copy and xover:cpu_moves on a link reach
// its lane; a lane that states none has none after its send, makes the
// bcopy copy, and leaves the bytes to its NIC.
TEST(PlatformLoader, SendOverlapBcopyCopyAndCpuMovesReachTheLane) {
  const auto lane_terms = [](const std::string& file) {
    return with_platform(fixture(file), [](const LogGPPlatform& p) {
      const Path path = p.path("node0", "node1");
      const LaneAttrs& lane = path.lanes.at(0);
      return "o=" + num(lane.o_send) + " after=" + num(lane.o_send_after) +
             " bcopy_copies=" + std::to_string(lane.bcopy_copies) + " cpu_moves=" + std::to_string(lane.cpu_moves);
    });
  };
  EXPECT_EQ(lane_terms("one_rail_send_after.xml"), "o=1e-06 after=8e-07 bcopy_copies=1 cpu_moves=0");
  EXPECT_EQ(lane_terms("one_rail_no_bcopy_copy.xml"), "o=1e-06 after=0 bcopy_copies=0 cpu_moves=0");
  EXPECT_EQ(lane_terms("one_rail_cpu_moves.xml"), "o=1e-06 after=0 bcopy_copies=1 cpu_moves=1");
  EXPECT_EQ(lane_terms("one_rail_exact.xml"), "o=3e-07 after=0 bcopy_copies=1 cpu_moves=0");
}

// xover:o_send_per_byte and xover:o_recv_per_byte on a link reach its lane,
// as seconds per byte written as a time with "/B"; a lane that states
// neither has none.
TEST(PlatformLoader, TheCpusTimePerByteReachesTheLane) {
  const auto per_byte = [](const std::string& file) {
    return with_platform(fixture(file), [](const LogGPPlatform& p) {
      const Path path = p.path("node0", "node1");
      const LaneAttrs& lane = path.lanes.at(0);
      return "send=" + num(lane.o_send_per_byte) + " recv=" + num(lane.o_recv_per_byte);
    });
  };
  EXPECT_EQ(per_byte("one_rail_send_copy.xml"), "send=5e-10 recv=2.5e-10");
  EXPECT_EQ(per_byte("one_rail_recv_copy.xml"), "send=1e-10 recv=1e-09");
  EXPECT_EQ(per_byte("one_rail_exact.xml"), "send=0 recv=0");
}

// xover:get_served reaches the lane; absent, a NIC serves the gets.
TEST(PlatformLoader, AServedGetReachesTheLane) {
  const auto served = [](const std::string& file) {
    return with_platform(fixture(file), [](const LogGPPlatform& p) {
      const Path path = p.path("node0", "node1");
      return std::string(path.lanes.at(0).get_served ? "served" : "nic");
    });
  };
  EXPECT_EQ(served("one_rail_get_served.xml"), "served");
  EXPECT_EQ(served("one_rail_send_copy.xml"), "nic");
}

// An o_send_after above the link's o_send (given, by size, or the default
// 0.2 us) and a bcopy_copy other than yes or no: the file and line, and
// what is wrong.
TEST(PlatformLoader, BadSendOverlapAndBcopyCopyNameTheFileAndLine) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"bad_send_after.xml", ":13: link 'l': xover:o_send_after 500.000ns is more than its xover:o_send 300.000ns"},
      {"bad_send_after_steps.xml",
       ":12: link 'l': xover:o_send_after 200.000ns is more than its xover:o_send 100.000ns"},
      {"bad_send_after_default.xml",
       ":12: link 'l': xover:o_send_after 300.000ns is more than its xover:o_send 200.000ns"},
      {"bad_bcopy_copy.xml", ":12: link 'l': xover:bcopy_copy: 'maybe' is neither yes nor no"},
  };
  for (const auto& [name, what] : cases)
    EXPECT_THAT(load_error(fixture(name)), StartsWith("ERROR: " + fixture(name) + what)) << name;
}

TEST(PlatformLoader, ConnectedDijkstraZoneLoads) {
  const std::string out = with_platform(fixture("dijkstra.xml"), [](const LogGPPlatform& p) {
    const LaneAttrs lane = p.path("b", "a").lanes.at(0);
    return lane.name + " L=" + num(lane.latency) + " B=" + num(lane.bandwidth);
  });
  EXPECT_EQ(out, "lb L=3e-06 B=4e+09");
}

TEST(PlatformLoader, LaneBetweenTwoRailsIsNamedAfterBoth) {
  const std::string out = with_platform(fixture("cross_rail.xml"), [](const LogGPPlatform& p) {
    return describe_nodes(p) + p.path("node0", "node1").lanes.at(0).name + " " + describe(p.nics("node0", "node1"));
  });
  EXPECT_EQ(out, "node0 [node0.r0] 1e+10\nnode1 [node1.r1 node1.r0] 1e+10\nr0-r1 node0.r0>node1.r1");
}

TEST(PlatformLoader, MissingFile) {
  const std::string file = fixture("does-not-exist.xml");
  EXPECT_EQ(load_error(file), "ERROR: " + file + ": no such file");
}

TEST(PlatformLoader, MalformedXmlNamesTheLine) {
  const std::string file = fixture("malformed.xml");
  EXPECT_THAT(load_error(file), StartsWith("ERROR: " + file + ":10: malformed XML: "));
}

TEST(PlatformLoader, MissingDoctypeNamesTheLine) {
  const std::string file = fixture("no_doctype.xml");
  EXPECT_THAT(load_error(file), StartsWith("ERROR: " + file + ":2: no <!DOCTYPE platform"));
}

TEST(PlatformLoader, SimGridParseErrorKeepsFileAndLine) {
  const std::string file = fixture("simgrid_error.xml");
  EXPECT_THAT(load_error(file), StartsWith("ERROR: " + file + ":13: "));
  EXPECT_THAT(load_error(file), HasSubstr("GBx"));
}

TEST(PlatformLoader, UnknownUnitInXoverPropertyNamesFileAndLine) {
  const std::string file = fixture("bad_unit.xml");
  EXPECT_EQ(load_error(file),
            "ERROR: " + file + ":12: link 'l': xover:o_send: '0.3xs': unknown time unit 'xs' (use ps, ns, us, ms, s)");
}

TEST(PlatformLoader, UnknownXoverPropertyListsTheKnownOnes) {
  const std::string file = fixture("unknown_prop.xml");
  EXPECT_EQ(load_error(file), "ERROR: " + file +
                                  ":12: link 'l': unknown property 'xover:o_snd' (known: xover:o_send, "
                                  "xover:o_send_after, xover:o_recv, xover:gap, xover:reg_cost, xover:reg_growth, "
                                  "xover:max_short, xover:max_bcopy, xover:max_zcopy, xover:seg_size, xover:caps, "
                                  "xover:bandwidth, xover:bcopy_copy, xover:cpu_moves, xover:get_served, xover:o_core_send, "
                                  "xover:o_core_recv, xover:o_send_per_byte, xover:o_recv_per_byte, xover:bw_factor)");
}

TEST(PlatformLoader, UnknownHostProperty) {
  const std::string file = fixture("bad_host_prop.xml");
  EXPECT_THAT(load_error(file),
              StartsWith("ERROR: " + file + ":10: host 'a': unknown property 'xover:memcpy' (known: xover:memcpy_bw"));
}

TEST(PlatformLoader, MemcpyBandwidthOnANic) {
  const std::string file = fixture("nic_memcpy.xml");
  EXPECT_EQ(load_error(file),
            "ERROR: " + file + ":11: host 'node0.r0': xover:memcpy_bw belongs on the node host 'node0', not on its NIC");
}

TEST(PlatformLoader, NegativeLatency) {
  const std::string file = fixture("negative_latency.xml");
  EXPECT_EQ(load_error(file), "ERROR: " + file + ":11: link 'l': latency must not be negative (got -1.000us)");
}

TEST(PlatformLoader, ZeroBandwidth) {
  const std::string file = fixture("zero_bandwidth.xml");
  EXPECT_EQ(load_error(file), "ERROR: " + file + ":11: link 'l': bandwidth must be positive (got 0 B/s)");
}

TEST(PlatformLoader, NegativeXoverTime) {
  const std::string file = fixture("negative_time.xml");
  EXPECT_EQ(load_error(file), "ERROR: " + file + ":12: link 'l': xover:reg_cost must not be negative (got '-2us')");
}

TEST(PlatformLoader, GpuLaneFiguresAreRead) {
  const std::string out = with_platform(fixture("alltoall_gpu_lane.xml"), [](const LogGPPlatform& p) {
    const DeviceAttrs& d = p.node("pe3").device;
    return num(d.launch) + " " + num(d.post_slope) + " " + std::to_string(d.doorbell_batch) + " " +
           num(d.engine_gap) + " " + num(d.engine_bw) + " " + std::to_string(d.proxy_threads) + " " +
           std::to_string(d.ring_capacity);
  });
  EXPECT_EQ(out, "4e-06 5e-08 3 4e-08 1e+10 2 5");
  // A platform that names none keeps the defaults, which change nothing.
  EXPECT_EQ(with_platform(shipped("alltoall-star.xml"),
                          [](const LogGPPlatform& p) {
                            const DeviceAttrs& d = p.node("pe0").device;
                            return num(d.launch) + " " + num(d.engine_bw) + " " + std::to_string(d.ring_capacity);
                          }),
            "0 inf 65536");
}

TEST(PlatformLoader, BadGpuLaneFiguresNameFileAndLine) {
  // Each bad value in a platform of its own, on line 6.
  const std::pair<const char*, const char*> cases[] = {
      {"xover:doorbell_batch\" value=\"0", "'0' is not a doorbell batch from 1 to 65536"},
      {"xover:proxy_threads\" value=\"two", "'two' is not a proxy thread count from 1 to 1024"},
      {"xover:ring_capacity\" value=\"99999999", "'99999999' is not a ring capacity in commands from 1 to 16777216"},
      {"xover:engine_bw\" value=\"0GBps", "'0GBps': a bandwidth must be positive"},
      {"xover:launch\" value=\"-1us", "'-1us' is a negative time"},
      {"xover:post_slope\" value=\"1xs", "unknown time unit 'xs'"},
      {"xover:engine_gap\" value=\"infus", "'infus' is not a finite time"},
  };
  for (const auto& [prop, error] : cases) {
    const std::string file = testing::TempDir() + "/gpu_lane_bad.xml";
    std::FILE* f = std::fopen(file.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fprintf(f,
                 "<?xml version=\"1.0\"?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                 "<platform version=\"4.1\">\n  <zone id=\"world\" routing=\"Full\">\n"
                 "    <host id=\"a\" speed=\"1Gf\">\n      <prop id=\"%s\"/>\n    </host>\n"
                 "    <host id=\"b\" speed=\"1Gf\"/>\n    <link id=\"l\" bandwidth=\"1GBps\" latency=\"1us\"/>\n"
                 "    <route src=\"a\" dst=\"b\"><link_ctn id=\"l\"/></route>\n  </zone>\n</platform>\n",
                 prop);
    std::fclose(f);
    const std::string got = load_error(file);
    EXPECT_THAT(got, StartsWith("ERROR: " + file + ":6: host 'a': ")) << prop;
    EXPECT_THAT(got, HasSubstr(error)) << prop;
  }
}

TEST(PlatformLoader, ZeroSizeThatACapabilityNeeds) {
  const std::string file = fixture("zero_max_short.xml");
  EXPECT_EQ(load_error(file), "ERROR: " + file +
                                  ":12: link 'l': xover:max_short is 0 but the link's caps include am_short (give a "
                                  "size or leave those out of xover:caps)");
}

TEST(PlatformLoader, DisconnectedDijkstraZoneIsRefused) {
  const std::string file = fixture("dijkstra_disconnected.xml");
  EXPECT_THAT(load_error(file),
              StartsWith("ERROR: " + file + ":8: zone 'world' has routing=\"Dijkstra\" and no route from 'a' to 'c'"));
}

TEST(PlatformLoader, ConfigTakesModelSettingsOnly) {
  const std::string file = fixture("config_not_a_model.xml");
  EXPECT_THAT(load_error(file), StartsWith("ERROR: " + file +
                                           ":6: <config> sets 'contexts/factory'; a platform's <config> takes the "
                                           "model settings only (network/model, "));
}

TEST(PlatformLoader, UnknownModelIsRefusedBeforeSimGridAborts) {
  const std::string file = fixture("unknown_model.xml");
  EXPECT_EQ(load_error(file), "ERROR: " + file +
                                  ":5: <config> sets network/model to 'CM2'; xover takes CM02, LV08, SMPI, IB "
                                  "(SimGrid 3.32 aborts on the others)");
}

// SimGrid aborts on a <host_link> naming a link nothing makes; here the
// link is SPLITDUPLEX, so only l1_UP and l1_DOWN exist (found by fuzzing).
TEST(PlatformLoader, HostLinkToAnUnknownLinkIsRefusedBeforeSimGridAborts) {
  const std::string file = fixture("host_link_unknown.xml");
  EXPECT_EQ(load_error(file), "ERROR: " + file +
                                  ":10: <host_link> names the link 'l1', which no <link> makes (a SPLITDUPLEX link x "
                                  "makes x_UP and x_DOWN); SimGrid would abort");
}

TEST(PlatformLoader, LinkNameMadeTwiceIsRefusedBeforeSimGridAborts) {
  const std::string file = fixture("link_name_twice.xml");
  EXPECT_THAT(load_error(file), StartsWith("ERROR: " + file +
                                           ":8: link 'r0_UP' makes a link named 'r0_UP', as the link at line 7 does"));
}

TEST(PlatformLoader, NodeWithoutRoute) {
  const std::string file = fixture("no_route.xml");
  const std::string out = with_platform(file, [](const LogGPPlatform& p) { return describe(p.path("a", "lonely")); });
  EXPECT_EQ(out, "ERROR: " + file + ": no route from a to lonely");
}

TEST(PlatformLoader, UnknownNode) {
  const std::string file = fixture("plain.xml");
  const std::string out = with_platform(file, [](const LogGPPlatform& p) { return describe(p.path("a", "x")); });
  EXPECT_EQ(out, "ERROR: " + file + ": unknown node 'x' (nodes: a, b, c)");
}

TEST(PlatformLoader, SecondPlatformInOneProcessIsRefused) {
  const std::string out = in_child([] {
    LogGPPlatform::load(fixture("plain.xml"));
    LogGPPlatform::load(fixture("splitduplex.xml"));
    return std::string("loaded twice");
  });
  EXPECT_THAT(out, StartsWith("ERROR: " + fixture("splitduplex.xml") + ": this process already holds"));
}

// The fuzzer found a refused `xover:gap` written into the node before its
// check, so a node read on past the refusal held a negative gap.
TEST(PlatformLoader, ARefusedNodePropertyLeavesTheNodeAsItWas) {
  PlatformNode node;
  node.gap = 2e-6;
  node.device.launch = 3e-6;
  node.device.engine_bw = 5e9;
  EXPECT_THROW(detail::read_node_prop(node, "xover:gap", "-1us"), std::invalid_argument);
  EXPECT_THROW(detail::read_node_prop(node, "xover:launch", "1e308w"), std::invalid_argument);
  EXPECT_THROW(detail::read_node_prop(node, "xover:engine_bw", "1e308EBps"), std::invalid_argument);
  EXPECT_EQ(node.gap, 2e-6);
  EXPECT_EQ(node.device.launch, 3e-6);
  EXPECT_EQ(node.device.engine_bw, 5e9);
  EXPECT_TRUE(detail::read_node_prop(node, "xover:gap", "1us"));
  EXPECT_EQ(node.gap, 1e-6);
}

TEST(InChild, ReportsAChildThatDies) {
  EXPECT_EQ(in_child([] { return std::string("fine"); }), "fine");
  EXPECT_THROW(in_child([]() -> std::string { std::abort(); }), std::runtime_error);
}

TEST(InChild, AChildThatThrowsSaysWhat) {
  const std::string report = in_child([]() -> std::string { throw std::invalid_argument("no such node"); });
  EXPECT_EQ(report, "ERROR: no such node");
  EXPECT_EQ(child_error(report), "no such node");
  EXPECT_EQ(child_error("count 1"), std::nullopt);
}

}  // namespace
}  // namespace xover::sim
