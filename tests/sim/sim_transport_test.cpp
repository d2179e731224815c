// The SimGrid transport on its own: LogGP timing of single active messages
// and the order in which a busy rank takes what arrived meanwhile.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <vector>

#include "base/child.hpp"
#include "protocols/core/worker.hpp"
#include "sim/sim_transport.hpp"

namespace xover {
namespace {

const std::string kSkewed = XOVER_SOURCE_DIR "/tests/data/platforms/two_rails_skewed.xml";

// Rank 0 sends A on the slow rail r0 (5 us) and then B on the fast r1
// (0.5 us); rank 1 stays busy for `busy_bytes` of copying first. Returns
// the handler calls in order, with their times.
std::string arrivals(Bytes busy_bytes) {
  return in_child([busy_bytes] {
    const sim::LogGPPlatform platform = sim::LogGPPlatform::load(kSkewed);
    sim::SimNetwork network(platform, {"node0", "node1"});
    std::string log;
    sim::run_ranks(network, [&](Rank rank, Transport& t) {
      std::byte header[8]{};
      if (rank == 0) {
        t.am_send(0, 1, 9, header, {}, AmMode::Short, [](Status) {});
        t.am_send(1, 1, 10, header, {}, AmMode::Short, [](Status) {});
        return;
      }
      int got = 0;
      auto note = [&](const char* name) {
        char line[64];
        std::snprintf(line, sizeof line, "%s@%.3f ", name, t.now() * 1e6);
        log += line;
        ++got;
      };
      t.set_am_handler(9, [&](const AmMessage&) { note("A"); });
      t.set_am_handler(10, [&](const AmMessage&) { note("B"); });
      t.copy(nullptr, nullptr, busy_bytes);
      while (got < 2)
        t.progress();
    });
    return log;
  });
}

/// One rank's pairwise exchange: an 8-byte message to each other rank in
/// turn (shift k), the one from rank - k received alongside.
void pairwise_exchange(Rank rank, Transport& t, Rank ranks) {
  Worker worker(t, SelectConfig{});
  std::byte out_buf[8]{};
  std::byte in_buf[8]{};
  for (Rank k = 1; k < ranks; ++k) {
    Request* s = worker.tag_send((rank + k) % ranks, {out_buf, 8}, k);
    Request* r = worker.tag_recv({in_buf, 8}, k);
    worker.wait(s);
    worker.wait(r);
    worker.release(s);
    worker.release(r);
  }
}

TEST(SimTransport, IdleReceiverTakesMessagesAsTheyArrive) {
  // B overtakes A on the faster rail: 0.8 us against 5.2 us.
  EXPECT_EQ(arrivals(0), "B@0.801 A@5.201 ");
}

// A rank busy while both landed takes them in arrival order (B first), not
// in the order they were sent: the copy of 240,000 B at 12 GB/s keeps it
// busy until 20 us, then each costs its o_recv (0.1 us).
TEST(SimTransport, BusyReceiverTakesWhatLandedInArrivalOrder) {
  EXPECT_EQ(arrivals(240000), "B@20.100 A@20.200 ");
}

// Sixteen ranks exchange 8 bytes pairwise: at step k each sends to r + k
// and receives from r − k, in lockstep. A rank must wake for every message
// sent to it, also one sent while it was getting ready to wait; each step
// then takes exactly o_send + L + (16 + 8)/B + o_recv + 8/memcpy
// = 0.2 + 2 + 0.0024 + 0.2 + 0.0008 = 2.4032 us.
TEST(SimTransport, PairwiseExchangeWakesEveryRankInTime) {
  const std::string out = in_child([] {
    const sim::LogGPPlatform platform = sim::LogGPPlatform::load(XOVER_SOURCE_DIR "/tests/data/platforms/cluster16.xml");
    constexpr Rank kRanks = 16;
    std::vector<std::string> nodes;
    for (Rank r = 0; r < kRanks; ++r)
      nodes.push_back("n" + std::to_string(r));
    sim::SimNetwork network(platform, nodes);
    std::vector<Seconds> end(kRanks);
    sim::run_ranks(network, [&](Rank rank, Transport& t) {
      pairwise_exchange(rank, t, kRanks);
      end[rank] = t.now();
    });
    char line[64];
    std::snprintf(line, sizeof line, "%.6f %.6f", *std::min_element(end.begin(), end.end()) * 1e6,
                  *std::max_element(end.begin(), end.end()) * 1e6);
    return std::string(line);
  });
  EXPECT_EQ(out, "36.048000 36.048000");
}

// Routes from node0 to node1 and to node2 are alike but for their ends'
// device copies: each keeps its own (they once shared the first's).
TEST(SimTransport, AlikeRoutesKeepTheirEndsDeviceFigures) {
  const std::string out = in_child([] {
    const sim::LogGPPlatform platform =
        sim::LogGPPlatform::load(XOVER_SOURCE_DIR "/tests/data/platforms/three_devices.xml");
    sim::SimNetwork network(platform, {"node0", "node1", "node2"});
    char line[64];
    std::snprintf(line, sizeof line, "%.0f %.0f", network.transport(0).path(1).device_remote.stage_o * 1e6,
                  network.transport(0).path(2).device_remote.stage_o * 1e6);
    return std::string(line);
  });
  EXPECT_EQ(out, "10 20");
}

// The Workers of ranks on alike routes share one thresholds table, the
// network's, though each route's lanes keep their own links' names; a route
// that costs otherwise (node0's to node2, whose end's device copies differ)
// gets a table of its own.
TEST(SimTransport, RanksOnAlikeRoutesShareOneTable) {
  const std::string out = in_child([] {
    const sim::LogGPPlatform cluster = sim::LogGPPlatform::load(XOVER_SOURCE_DIR "/tests/data/platforms/cluster16.xml");
    sim::SimNetwork network(cluster, {"n0", "n1", "n2", "n3"});
    Worker w0(network.transport(0), SelectConfig{});
    Worker w2(network.transport(2), SelectConfig{});
    const bool names_differ = network.transport(0).path(1).lanes.at(0).name !=
                              network.transport(2).path(3).lanes.at(0).name;
    const bool shared = &w0.table(1) == &w2.table(3) && &w0.table(3) == &w2.table(1);
    return std::string(names_differ ? "names differ, " : "names alike, ") + (shared ? "shared, " : "apart, ") +
           std::to_string(network.tables().size()) + " table";
  });
  EXPECT_EQ(out, "names differ, shared, 1 table");
  const std::string devices = in_child([] {
    const sim::LogGPPlatform platform =
        sim::LogGPPlatform::load(XOVER_SOURCE_DIR "/tests/data/platforms/three_devices.xml");
    sim::SimNetwork network(platform, {"node0", "node1", "node2"});
    Worker w0(network.transport(0), SelectConfig{});
    const bool apart = &w0.table(1) != &w0.table(2);
    return std::string(apart ? "apart, " : "shared, ") + std::to_string(network.tables().size()) + " tables";
  });
  EXPECT_EQ(devices, "apart, 2 tables");
}

// Alike routes from two sources read one copy of their costs (lanes and
// NICs, no names) on the data path, while each source's path keeps its own
// links' names; a route that costs otherwise reads its own.
TEST(SimTransport, AlikeRoutesFromEverySourceShareTheirCosts) {
  const std::string out = in_child([] {
    const sim::LogGPPlatform cluster = sim::LogGPPlatform::load(XOVER_SOURCE_DIR "/tests/data/platforms/cluster16.xml");
    sim::SimNetwork network(cluster, {"n0", "n1", "n2", "n3"});
    const sim::SimNetwork::Route a = network.route(0, 1);
    const sim::SimNetwork::Route b = network.route(2, 3);
    std::string line = a.costs == b.costs ? "one costs, " : "two costs, ";
    line += a.path->lanes.at(0).name + " " + b.path->lanes.at(0).name + " '" + a.costs->lanes.at(0).name + "', ";
    line += a.nics(0).first == b.nics(0).first ? "same NIC" : "own NICs";
    return line;
  });
  EXPECT_EQ(out, "one costs, c_link_0 c_link_2 '', own NICs");
  const std::string devices = in_child([] {
    const sim::LogGPPlatform platform =
        sim::LogGPPlatform::load(XOVER_SOURCE_DIR "/tests/data/platforms/three_devices.xml");
    sim::SimNetwork network(platform, {"node0", "node1", "node2"});
    return std::string(network.route(0, 1).costs == network.route(0, 2).costs ? "one costs" : "two costs");
  });
  EXPECT_EQ(devices, "two costs");
}

// A node with routes of 300 shapes, past the 254 a byte of the network's
// route table holds: node0 reaches node i over a link of i ns, and each
// route keeps its own.
TEST(SimTransport, ANodeWithMoreShapesThanAByteHoldsKeepsEachRoute) {
  constexpr int kPeers = 300;
  std::string xml =
      "<?xml version=\"1.0\"?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
      "<platform version=\"4.1\">\n<zone id=\"world\" routing=\"Full\">\n";
  for (int i = 0; i <= kPeers; ++i)
    xml += "<host id=\"n" + std::to_string(i) + "\" speed=\"1Gf\"/>\n";
  for (int i = 1; i <= kPeers; ++i)
    xml += "<link id=\"l" + std::to_string(i) + "\" bandwidth=\"10GBps\" latency=\"" + std::to_string(i) + "ns\"/>\n";
  for (int i = 1; i <= kPeers; ++i)
    xml += "<route src=\"n0\" dst=\"n" + std::to_string(i) + "\"><link_ctn id=\"l" + std::to_string(i) +
           "\"/></route>\n";
  xml += "</zone>\n</platform>\n";
  char file[] = "/tmp/xover-many-shapes-XXXXXX";
  close(mkstemp(file));
  std::ofstream(file) << xml;
  const std::string out = in_child([&] {
    const sim::LogGPPlatform platform = sim::LogGPPlatform::load(file);
    std::vector<std::string> nodes;
    for (int i = 0; i <= kPeers; ++i)
      nodes.push_back("n" + std::to_string(i));
    sim::SimNetwork network(platform, nodes);
    std::string latencies;
    for (int round = 0; round < 2; ++round)  // set up, then looked up
      for (Rank peer : {1u, 254u, 255u, 256u, 300u})
        latencies += std::to_string(std::lround(network.transport(0).path(peer).lanes.at(0).latency * 1e9)) + " ";
    return latencies;
  });
  std::remove(file);
  EXPECT_EQ(out, "1 254 255 256 300 1 254 255 256 300 ");
}

// The same in a pairwise exchange, where every sender starts its transfer
// in the same instant as its receiver gets ready to wait: 240 messages, and
// the 16 bells dropped at the end.
TEST(SimTransport, PairwiseExchangeWakesEachRankOncePerMessage) {
  const std::string out = in_child([] {
    const sim::LogGPPlatform platform = sim::LogGPPlatform::load(XOVER_SOURCE_DIR "/tests/data/platforms/cluster16.xml");
    constexpr Rank kRanks = 16;
    std::vector<std::string> nodes;
    for (Rank r = 0; r < kRanks; ++r)
      nodes.push_back("n" + std::to_string(r));
    sim::SimNetwork network(platform, nodes);
    int completions = 0;
    simgrid::s4u::Activity::on_completion_cb([&](const simgrid::s4u::Activity&) { ++completions; });
    sim::run_ranks(network, [&](Rank rank, Transport& t) {
      pairwise_exchange(rank, t, kRanks);
    });
    return std::to_string(completions) + " completions";
  });
  EXPECT_EQ(out, "256 completions");
}

// A receiver that waits for a message wakes once for it, when it lands: it
// waits on the transfer itself, not first on a bell that the sender rings
// and then on the transfer. Every activity a rank's wait ends with
// completes through SimGrid's on_completion signal, so a ping-pong of 100
// round trips sees about 200 (the transfers, and the two bells dropped at
// the end), where a bell rung per message made it about 400. Each round
// message takes 0.2 + 2 + 16 B / 10 GB/s + 0.2 = 2.4016 us.
TEST(SimTransport, WaitingReceiverWakesOncePerMessage) {
  const std::string out = in_child([] {
    const sim::LogGPPlatform platform = sim::LogGPPlatform::load(XOVER_SOURCE_DIR "/tests/data/platforms/cluster16.xml");
    sim::SimNetwork network(platform, {"n0", "n1"});
    constexpr int kRoundTrips = 100;
    int completions = 0;
    simgrid::s4u::Activity::on_completion_cb([&](const simgrid::s4u::Activity&) { ++completions; });
    sim::run_ranks(network, [&](Rank rank, Transport& t) {
      int got = 0;
      t.set_am_handler(9, [&](const AmMessage&) { ++got; });
      std::byte header[16]{};
      for (int i = 0; i < kRoundTrips; ++i) {
        if (rank == 0)
          t.am_send(0, 1, 9, header, {}, AmMode::Short, [](Status) {});
        while (got <= i)
          t.progress();
        if (rank == 1)
          t.am_send(0, 0, 9, header, {}, AmMode::Short, [](Status) {});
      }
    });
    char line[64];
    std::snprintf(line, sizeof line, "%d completions, %.4f us", completions,
                  simgrid::s4u::Engine::get_clock() * 1e6);
    return std::string(line);
  });
  EXPECT_EQ(out, "202 completions, 480.3200 us");
}

}  // namespace
}  // namespace xover
