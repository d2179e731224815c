// The PE group's proxy flavour without a GPU: CPU threads play the
// kernel's posting threads (proxy_post into each PE's command ring, with
// the ring's cached flow control) and the engine block (an engine worker
// over the proxies' queues, at system scope), against the real CPU proxy,
// ProxyForwarder run by one persistent ProxyThread per PE made at set-up
// (runtime/cuda/cuda_proxy_forward.hpp). Rings and queues small enough
// that every exchange wraps both and fills them; every byte and every
// signal checked; a malformed command refused without stopping the proxy;
// a proxy that sees no command gives up at its deadline and says so.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "protocols/coll/cmd_ring.hpp"
#include "runtime/cuda/cuda_proxy_forward.hpp"
#include "runtime/cuda/cuda_proxy_thread.hpp"
#include "tests/runtime/cuda/engine_heap.hpp"

namespace xover::runtime {
namespace {

using namespace engine_test;

/// The group's P command rings and, per PE, the kernel's reservation
/// counter and cached copy of the proxy's progress; P proxies and their
/// threads, made once.
struct Proxies {
  Proxies(Group& g, std::uint32_t ring_entries)
      : memory(g.pes * CommandRing::bytes_for(ring_entries)), counters(2 * g.pes, 0) {
    const CommandLimits limits{g.pes, g.layout.signals, 0, g.layout.signals};
    for (std::uint32_t pe = 0; pe < g.pes; ++pe) {
      std::byte* at = memory.at + pe * CommandRing::bytes_for(ring_entries);
      rings.push_back(CommandRing::create({at, CommandRing::bytes_for(ring_entries)}, ring_entries));
      views.push_back(RingView{reinterpret_cast<std::uint64_t*>(at), ring_entries, &counters[2 * pe + 1]});
      sinks.push_back(std::make_unique<EngineQueueSink>(engine_queue_of(g.set, pe)));
      forwarders.push_back(std::make_unique<ProxyForwarder>(rings.back(), limits, pe));
      threads.push_back(std::make_unique<ProxyThread>());
    }
  }
  std::uint64_t* reserved(std::uint32_t pe) { return &counters[2 * pe]; }
  std::string serve(std::uint32_t pe, std::uint64_t count, Seconds timeout) {
    return forwarders[pe]->serve(*sinks[pe], count, timeout);
  }

  Aligned memory;
  std::vector<std::uint64_t> counters;  ///< per PE: the posters' reservation counter, their cached progress
  std::vector<CommandRing> rings;
  std::vector<RingView> views;
  std::vector<std::unique_ptr<EngineQueueSink>> sinks;
  std::vector<std::unique_ptr<ProxyForwarder>> forwarders;
  std::vector<std::unique_ptr<ProxyThread>> threads;
};

TEST(ProxyFlavour, PostersProxiesAndTheEngineMoveEveryByteAndSignal) {
  // Four PEs, two posting threads each; rings of 2 and engine queues of 2
  // (each exchange puts 3 commands a PE: both wrap and fill every time).
  constexpr std::uint32_t kPes = 4, kPosters = 2;
  Group g(kPes, 5000, 2);
  Proxies p(g, 2);
  std::vector<std::thread::id> ids;
  for (const auto& t : p.threads)
    ids.push_back(t->id());
  std::uint64_t exchange = 0;
  for (std::uint64_t n : {8u, 13u, 4097u, 1u}) {
    g.prepare(++exchange, n);
    for (std::uint32_t pe = 0; pe < kPes; ++pe)
      p.threads[pe]->start([&, pe] { return p.serve(pe, kPes - 1, 10.0); });
    const std::uint64_t total = exchange * kPes * (kPes - 1);
    std::vector<std::thread> threads;
    threads.emplace_back([&] { g.serve<EngineSystemAtomic>(0, 1, 4, total); });
    for (std::uint32_t me = 0; me < kPes; ++me)
      for (std::uint32_t t = 0; t < kPosters; ++t)
        threads.emplace_back([&, me, t, n] {
          for (std::uint32_t j = t; j + 1 < kPes; j += kPosters)
            EXPECT_TRUE(proxy_post(p.views[me], p.reserved(me), g.put(me, j, n), never));
        });
    for (std::thread& t : threads)
      t.join();
    for (std::uint32_t pe = 0; pe < kPes; ++pe)
      EXPECT_EQ(p.threads[pe]->wait(), "") << "PE " << pe;
    g.expect_delivered(exchange, n, exchange);
    EXPECT_EQ(g.tally[engine_tally::kTaken], total);
  }
  for (std::uint32_t pe = 0; pe < kPes; ++pe) {
    EXPECT_EQ(p.threads[pe]->id(), ids[pe]) << "the proxy thread is made once";
    EXPECT_EQ(p.forwarders[pe]->forwarded(), exchange * (kPes - 1));
    EXPECT_EQ(p.forwarders[pe]->refused(), 0u);
    EXPECT_EQ(p.rings[pe].consumed(), exchange * (kPes - 1));
  }
}

TEST(ProxyFlavour, AMalformedCommandIsRefusedAndTheProxyGoesOn) {
  Group g(3, 64, 4);
  Proxies p(g, 4);
  g.prepare(1, 64);
  // Written as a bad poster would: a target past the PEs, then one whose
  // bytes reach the signal words; then PE 2's two good puts.
  Command bad;
  bad.pe = 7;
  bad.size = 8;
  p.rings[2].write(p.rings[2].reserve(), bad);
  bad.pe = 0;
  bad.offset = g.layout.signals - 4;
  p.rings[2].write(p.rings[2].reserve(), bad);
  *p.reserved(2) = 2;
  for (std::uint32_t j = 0; j < 2; ++j)
    ASSERT_TRUE(proxy_post(p.views[2], p.reserved(2), g.put(2, j, 64), never));
  EXPECT_EQ(p.serve(2, 4, 10.0), "");
  EXPECT_EQ(p.forwarders[2]->refused(), 2u);
  EXPECT_EQ(p.forwarders[2]->forwarded(), 2u);
  EXPECT_EQ(p.forwarders[2]->first_error(), "position 0: no such PE");
  g.serve<EngineSystemAtomic>(0, 1, 32, 2);
  EXPECT_EQ(g.tally[engine_tally::kRefused], 0u);
  for (std::uint32_t pe = 0; pe < 2; ++pe) {
    EXPECT_EQ(g.signal(pe, 2), 1u);
    EXPECT_EQ(first_wrong_byte(g.recv_slot(pe, 2, 64), 64, kSeed, 2, alltoall_put_seq(1, pe)), 64u);
  }
}

/// A sink that keeps what it is handed and counts its flushes.
struct RecordingSink final : ProxySink {
  bool post(const WorkRequest& r, std::uint64_t) override {
    posted.push_back(r);
    return posted.size() <= room;
  }
  void flush() override { flushes.push_back(posted.size()); }
  std::string problem() const override { return "no room"; }
  std::vector<WorkRequest> posted;
  std::vector<std::size_t> flushes;  ///< requests posted at each flush
  std::size_t room = 100;
};

TEST(ProxyFlavour, EachBurstIsFlushedOnceAndEachRequestNamesItsSource) {
  // Two commands, one burst; a third, another: the sink sees each request
  // with the ring's PE as its signal slot and the command's local offset as
  // its source, and a flush after each burst. A sink that refuses stops the
  // proxy with its reason.
  Group g(4, 16, 4);
  Proxies p(g, 4);
  RecordingSink sink;
  ProxyForwarder fwd(p.rings[3], CommandLimits{4, g.layout.signals, 0, g.layout.signals}, 3);
  for (std::uint32_t j = 0; j < 2; ++j)
    ASSERT_TRUE(proxy_post(p.views[3], p.reserved(3), g.put(3, j, 16), never));
  EXPECT_EQ(fwd.forward_ready(sink, proxy_clock_ns() + 1'000'000'000), 2u);
  ASSERT_TRUE(proxy_post(p.views[3], p.reserved(3), g.put(3, 2, 16), never));
  EXPECT_EQ(fwd.forward_ready(sink, proxy_clock_ns() + 1'000'000'000), 1u);
  EXPECT_EQ(sink.flushes, (std::vector<std::size_t>{2, 3}));
  ASSERT_EQ(sink.posted.size(), 3u);
  for (std::uint32_t j = 0; j < 3; ++j) {
    const WorkRequest want = g.put(3, j, 16);
    EXPECT_EQ(sink.posted[j].pe, want.pe);
    EXPECT_EQ(sink.posted[j].offset, want.offset);
    EXPECT_EQ(sink.posted[j].source, want.source);
    EXPECT_EQ(sink.posted[j].size, 16u);
    EXPECT_EQ(sink.posted[j].signal, 3u);
  }
  sink.room = 3;
  ASSERT_TRUE(proxy_post(p.views[3], p.reserved(3), g.put(3, 0, 16), never));
  EXPECT_EQ(fwd.serve(sink, 1, 1.0), "proxy of PE 3: no room");
}

TEST(ProxyFlavour, TheKernelLaysOutRingsAsCommandRingDoes) {
  for (std::uint32_t entries : {1u, 2u, 64u})
    EXPECT_EQ(ring_bytes(entries), CommandRing::bytes_for(entries));
}

TEST(ProxyFlavour, AProxyThatSeesNoCommandGivesUpAtItsDeadline) {
  Group g(2, 8, 2);
  Proxies p(g, 2);
  p.threads[1]->start([&] { return p.serve(1, 1, 0.02); });
  EXPECT_EQ(p.threads[1]->wait(), "proxy of PE 1: 0 of 1 commands came within 0.020000 s");
}

TEST(ProxyFlavour, AProxyHeldByAFullEngineQueueGivesUpAtItsDeadline) {
  // No engine runs: the queue of 2 fills, the third command waits for room
  // until the deadline, and the requests before it are rung.
  Group g(4, 8, 2);
  Proxies p(g, 4);
  for (std::uint32_t j = 0; j < 3; ++j)
    ASSERT_TRUE(proxy_post(p.views[0], p.reserved(0), g.put(0, j, 8), never));
  EXPECT_EQ(p.serve(0, 3, 0.02), "proxy of PE 0: the engine's queue stayed full past the deadline");
  EXPECT_EQ(p.forwarders[0]->forwarded(), 2u);
  EXPECT_EQ(engine_queue_of(g.set, 0).words[engine_layout::kDoorbellWord], 2u);
}

}  // namespace
}  // namespace xover::runtime
