// The IBGDA-like engine's posting and serving steps
// (runtime/cuda/cuda_engine.hpp) over a heap of P slices laid out as the PE
// group's (cuda_pe_plan.hpp), run by CPU threads as the kernel's posting
// threads and engine warps run the same functions on a GPU: posters on
// every PE against two engine workers move every byte and add every signal
// over exchanges that wrap the queues; a doorbell batch holds its requests
// until it is rung; a full queue holds its posters back until the engine
// runs; a malformed request is counted and refused, its bytes and signal
// never written, and the engine goes on.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include "protocols/coll/alltoall_pe.hpp"
#include "protocols/core/payload_pattern.hpp"
#include "tests/runtime/cuda/engine_heap.hpp"

namespace xover::runtime {
namespace {

using namespace engine_test;

TEST(EngineServe, PostersOnEveryPeAgainstTwoWorkersMoveEveryByteAndSignal) {
  // Five PEs, two posters each, queues of 4 (each exchange puts 4 requests
  // a queue, so every exchange is a lap), doorbells of 3; two engine
  // workers of 4 lanes each. Sizes whose slots lie at strides that are not
  // multiples of 16.
  constexpr std::uint32_t kPes = 5, kPosters = 2, kWorkers = 2;
  Group g(kPes, 70000, 4);
  std::uint64_t exchange = 0;
  for (std::uint64_t n : {1u, 13u, 16u, 4097u, 65537u, 8u}) {
    g.prepare(++exchange, n);
    std::vector<std::thread> threads;
    const std::uint64_t total = exchange * kPes * (kPes - 1);
    for (std::uint32_t w = 0; w < kWorkers; ++w)
      threads.emplace_back([&, w] { g.serve(w, kWorkers, 4, total); });
    for (std::uint32_t me = 0; me < kPes; ++me)
      for (std::uint32_t t = 0; t < kPosters; ++t)
        threads.emplace_back([&, me, t, n] { post_exchange(g, me, t, kPosters, n, 3); });
    for (std::thread& t : threads)
      t.join();
    g.expect_delivered(exchange, n, exchange);
    EXPECT_EQ(g.tally[engine_tally::kTaken], total);
    EXPECT_EQ(g.tally[engine_tally::kRefused], 0u);
  }
  for (std::uint32_t q = 0; q < kPes; ++q) {
    const std::uint64_t* words = engine_queue_of(g.set, q).words;
    EXPECT_EQ(words[engine_layout::kConsumedWord], exchange * (kPes - 1)) << "queue " << q;
    EXPECT_EQ(words[engine_layout::kDoorbellWord], exchange * (kPes - 1)) << "queue " << q;
  }
}

TEST(EngineServe, ABatchWaitsForItsDoorbell) {
  // One poster of PE 0 posts puts 0–2 of a batch of 4, not its last: the
  // engine sees nothing; its last put rings, and all four move.
  Group g(5, 64, 8);
  g.prepare(1, 64);
  std::uint64_t cached = 0;
  const EngineQueue q = engine_queue_of(g.set, 0);
  EngineWorker w{g.cursors.data(), 0, 1, 0};
  const EngineLimits limits = engine_limits(g.pes, g.targets);
  for (std::uint32_t j = 0; j < 3; ++j)
    engine_post(q, g.put(0, j, 64), 4, false, cached, never);
  EXPECT_EQ(engine_take(g.set, w, limits).step, EngineStep::Idle);
  engine_post(q, g.put(0, 3, 64), 4, true, cached, never);
  for (std::uint32_t j = 0; j < 4; ++j) {
    const EngineTake take = engine_take(g.set, w, limits);
    ASSERT_EQ(take.step, EngineStep::Took) << "put " << j;
    EXPECT_EQ(take.from, 0u);
    EXPECT_EQ(take.request.pe, put_target(0, 5, j));
    engine_move(g.targets, take, 0, 1);
    engine_signal(g.targets, take);
  }
  EXPECT_EQ(engine_take(g.set, w, limits).step, EngineStep::Idle);
  for (std::uint32_t pe = 1; pe < 5; ++pe) {
    EXPECT_EQ(g.signal(pe, 0), 1u);
    EXPECT_EQ(first_wrong_byte(g.recv_slot(pe, 0, 64), 64, kSeed, 0, alltoall_put_seq(1, pe)), 64u);
  }
}

TEST(EngineServe, AFullQueueHoldsItsPostersBackUntilTheEngineRuns) {
  // Queues of 2, each PE's one poster posting its 3 puts: each poster
  // writes 2 and waits for room for its third. Nothing moves; once the
  // engine runs, everything does.
  constexpr std::uint32_t kPes = 4;
  Group g(kPes, 100, 2);
  g.prepare(1, 100);
  std::atomic<std::uint32_t> done{0};
  std::vector<std::thread> posters;
  for (std::uint32_t me = 0; me < kPes; ++me)
    posters.emplace_back([&, me] {
      post_exchange(g, me, 0, 1, 100, 1);
      done.fetch_add(1);
    });
  for (std::uint32_t q = 0; q < kPes; ++q)
    while (EngineAtomic(engine_queue_of(g.set, q).words[engine_layout::kDoorbellWord]).load() < 2)
      std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(done.load(), 0u);
  for (std::uint32_t q = 0; q < kPes; ++q)
    EXPECT_EQ(engine_queue_of(g.set, q).words[engine_layout::kProducerWord], 3u) << "queue " << q;
  for (std::uint32_t pe = 0; pe < kPes; ++pe)
    for (std::uint32_t from = 0; from < kPes; ++from)
      EXPECT_EQ(g.signal(pe, from), 0u);
  std::thread engine([&] { g.serve(0, 1, 8, kPes * (kPes - 1)); });
  for (std::thread& p : posters)
    p.join();
  engine.join();
  EXPECT_EQ(done.load(), kPes);
  g.expect_delivered(1, 100, 1);
}

TEST(EngineServe, APosterGivesUpOnAFullQueueOnceItsDeadlinePasses) {
  Group g(3, 8, 2);
  const EngineQueue q = engine_queue_of(g.set, 0);
  std::uint64_t cached = 0;
  int asked = 0;
  const auto after_three = [&] { return ++asked > 3; };
  EXPECT_TRUE(engine_post(q, g.put(0, 0, 8), 1, false, cached, after_three));
  EXPECT_TRUE(engine_post(q, g.put(0, 1, 8), 1, false, cached, after_three));
  EXPECT_EQ(asked, 0);
  EXPECT_FALSE(engine_post(q, g.put(0, 0, 8), 1, true, cached, after_three));
  EXPECT_EQ(asked, 4);
  EXPECT_EQ(q.words[engine_layout::kDoorbellWord], 2u);
}

TEST(EngineServe, AMalformedRequestIsRefusedAndTheEngineGoesOn) {
  // PE 1's queue: a good put, one aimed at the target's signal words, one
  // to a PE that does not exist, one reading past the heap, another good
  // put. The good ones move and signal; the bad ones write nothing.
  Group g(3, 32, 8);
  g.prepare(1, 32);
  const EngineQueue q = engine_queue_of(g.set, 1);
  std::uint64_t cached = 0;
  WorkRequest at_signals = g.put(1, 0, 32);
  at_signals.offset = g.layout.signals;
  at_signals.size = 8;
  WorkRequest no_pe = g.put(1, 0, 32);
  no_pe.pe = 3;
  WorkRequest past_heap = g.put(1, 0, 32);
  past_heap.source = g.layout.slice;
  for (const WorkRequest& r : {g.put(1, 0, 32), at_signals, no_pe, past_heap, g.put(1, 1, 32)})
    engine_post(q, r, 1, false, cached, never);
  g.serve(0, 1, 32, 5);
  EXPECT_EQ(g.tally[engine_tally::kTaken], 2u);
  EXPECT_EQ(g.tally[engine_tally::kRefused], 3u);
  EXPECT_EQ(g.tally[engine_tally::kFirstError], static_cast<std::uint64_t>(WorkError::PastTargetSlice));
  for (std::uint32_t pe = 0; pe < 3; ++pe)
    for (std::uint32_t from = 0; from < 3; ++from)
      EXPECT_EQ(g.signal(pe, from), from == 1 && pe != 1 ? 1u : 0u) << "PE " << pe << ", source " << from;
  for (std::uint32_t pe : {2u, 0u})
    EXPECT_EQ(first_wrong_byte(g.recv_slot(pe, 1, 32), 32, kSeed, 1, alltoall_put_seq(1, pe)), 32u);
  // The engine goes on: PE 0's put after the refusals moves too.
  engine_post(engine_queue_of(g.set, 0), g.put(0, 0, 32), 1, true, cached = 0, never);
  g.serve(0, 1, 32, 6);
  EXPECT_EQ(g.signal(1, 0), 1u);
  EXPECT_EQ(first_wrong_byte(g.recv_slot(1, 0, 32), 32, kSeed, 0, alltoall_put_seq(1, 1)), 32u);
}

}  // namespace
}  // namespace xover::runtime
