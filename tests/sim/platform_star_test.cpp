// A star zone's routes read off its hosts' ends (sim/platform_star.hpp): the
// same links and latency as SimGrid's own route for every pair of hosts,
// none where the ends cannot be told apart, and route keys made from them
// equal where keys made from SimGrid's routes are. Each load runs in_child().
#include "sim/platform_star.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "base/child.hpp"
#include "sim/platform_loader.hpp"
#include "sim/platform_xml.hpp"

namespace s4u = simgrid::s4u;

namespace xover::sim {
namespace {

std::string fixture(const std::string& name) {
  return std::string(XOVER_SOURCE_DIR) + "/tests/data/platforms/" + name;
}

/// Loads `file` in a child process: how many hosts have known ends, and for
/// how many ordered pairs of those a's up then b's down is not SimGrid's
/// route from a to b (its links, or its latency added in its order).
std::string ends_against_simgrid(const std::string& file) {
  return in_child([&] {
    LogGPPlatform::load(file);
    std::vector<s4u::Host*> hosts = s4u::Engine::get_instance()->get_all_hosts();
    std::sort(hosts.begin(), hosts.end(), [](const s4u::Host* a, const s4u::Host* b) { return a->get_name() < b->get_name(); });
    const std::vector<detail::StarEnds> ends = detail::star_ends(hosts);
    std::size_t known = 0;
    std::size_t wrong = 0;
    for (std::size_t a = 0; a < hosts.size(); ++a) {
      known += ends[a].zone ? 1 : 0;
      for (std::size_t b = 0; b < hosts.size(); ++b) {
        if (a == b || !ends[a].zone || ends[a].zone != ends[b].zone)
          continue;
        std::vector<s4u::Link*> links;
        double latency = 0;
        hosts[a]->route_to(hosts[b], links, &latency);
        std::vector<const s4u::Link*> mine(ends[a].up);
        mine.insert(mine.end(), ends[b].down.begin(), ends[b].down.end());
        double my_latency = 0;
        for (const s4u::Link* link : mine)
          my_latency += link->get_latency();
        wrong += std::vector<const s4u::Link*>(links.begin(), links.end()) != mine || my_latency != latency ? 1 : 0;
      }
    }
    return std::to_string(known) + " known, " + std::to_string(wrong) + " wrong";
  });
}

TEST(PlatformStar, EndsGiveSimGridsRoutes) {
  // A cluster's shared private links, each both up and down of its host.
  EXPECT_EQ(ends_against_simgrid(fixture("cluster16.xml")), "16 known, 0 wrong");
  // Links of their own per host, one slower.
  EXPECT_EQ(ends_against_simgrid(fixture("star_links.xml")), "4 known, 0 wrong");
}

TEST(PlatformStar, NoEndsWhereRoutesShareALinkBothWays) {
  // A backbone on every route: up or down, the routes cannot tell.
  EXPECT_EQ(ends_against_simgrid(fixture("cluster.xml")), "0 known, 0 wrong");
  // Two hosts: no third route to tell a host's links up from its peer's down.
  EXPECT_EQ(ends_against_simgrid(fixture("plain.xml")), "0 known, 0 wrong");
}

/// For every node and every two of its destinations, whether their route
/// keys are equal: "=" or "/", in node order.
std::string key_partition(const std::string& file) {
  return in_child([&] {
    const LogGPPlatform platform = LogGPPlatform::load(file);
    const std::size_t n = platform.nodes().size();
    std::string out;
    for (std::size_t a = 0; a < n; ++a)
      for (std::size_t b = 0; b < n; ++b)
        for (std::size_t c = b + 1; c < n; ++c)
          if (a != b && a != c)
            out += platform.route_key(a, b) == platform.route_key(a, c) ? "=" : "/";
    return out;
  });
}

TEST(PlatformStar, KeysFromEndsTellRoutesApartAsKeysFromSimGridsRoutes) {
  // The bypass route (over the links n0's route to n1 takes anyway) makes the
  // loader ask SimGrid for every route: the same routes must share keys.
  EXPECT_TRUE(detail::read_platform_xml("bypass", R"(<?xml version="1.0"?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1"><zone id="z" routing="Full"><bypassRoute src="a" dst="b"/></zone></platform>)")
                  .bypass_routes);
  const std::string from_ends = key_partition(fixture("star_links.xml"));
  // From n0: n1 and n2 alike, n3 apart; likewise from n1 and n2; from n3 all alike.
  EXPECT_EQ(from_ends, "=//=//=//===");
  EXPECT_EQ(from_ends, key_partition(fixture("star_links_bypass.xml")));
}

TEST(PlatformStar, RoutesMadeAlikeShareAKeyAndAnotherLinkKindDoesNot) {
  const std::string out = in_child([] {
    const LogGPPlatform p = LogGPPlatform::load(fixture("star_links.xml"));
    const auto key = [&](const char* a, const char* b) { return p.route_key(p.node_index(a), p.node_index(b)); };
    return std::string(key("n0", "n1") == key("n0", "n2") ? "same" : "apart") + " " +
           (key("n0", "n1") == key("n0", "n3") ? "same" : "apart") + " " +
           (key("n3", "n0") == key("n3", "n1") ? "same" : "apart");
  });
  EXPECT_EQ(out, "same apart same");
}

}  // namespace
}  // namespace xover::sim
