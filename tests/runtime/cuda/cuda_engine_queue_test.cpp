// The IBGDA-like engine's send queues (runtime/cuda/cuda_engine_queue.hpp),
// run by CPU threads, as the kernel's posting threads and engine block run
// the same code on a GPU: a request round trips and every malformed field
// is refused; random and mutated words are never accepted unless they are
// a request the limits allow; posters on several queues against one engine
// have every request taken once, each queue's in position order, each
// poster's in its own order, held back by a full queue many laps over; and
// a malformed request in a queue is refused without stopping the engine.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

#include "runtime/cuda/cuda_engine_queue.hpp"

namespace xover::runtime {
namespace {

const EngineLimits kLimits{8, 64 * 1024, 8};

WorkRequest good() {
  WorkRequest r;
  r.pe = 5;
  r.offset = 3 * 4096;
  r.source = 7 * 4096;
  r.size = 4096;
  r.signal = 2;
  r.posted_ns = 123456789;
  return r;
}

/// Memory for one queue of `entries`, zeroed and 64-byte aligned.
struct QueueMemory {
  explicit QueueMemory(std::uint32_t entries) : words(engine_queue_bytes(entries) / 8 + 8, 0) {
    std::uint64_t* base = words.data();
    while (reinterpret_cast<std::uintptr_t>(base) % 64 != 0)
      ++base;
    queue = EngineQueue{base, entries};
  }
  std::vector<std::uint64_t> words;
  EngineQueue queue;
};

TEST(EngineQueue, ARequestRoundTrips) {
  std::uint64_t w[8];
  encode_work_request(good(), 1, w);
  WorkRequest back;
  ASSERT_EQ(decode_work_request(w, kLimits, back), WorkError::None);
  EXPECT_EQ(back.pe, 5u);
  EXPECT_EQ(back.offset, 3u * 4096);
  EXPECT_EQ(back.source, 7u * 4096);
  EXPECT_EQ(back.size, 4096u);
  EXPECT_EQ(back.signal, 2u);
  EXPECT_EQ(back.posted_ns, 123456789u);
  EXPECT_EQ(engine_queue_bytes(4), 192u + 4 * 64);
}

TEST(EngineQueue, EachMalformedFieldIsRefused) {
  struct Case {
    int word;
    std::uint64_t value;
    WorkError want;
  };
  const std::uint64_t slice = kLimits.slice;
  const Case cases[] = {
      {0, 2 | (std::uint64_t{5} << 32), WorkError::UnknownOp},
      {0, 1 | 0x100 | (std::uint64_t{5} << 32), WorkError::ReservedBits},
      {6, 1, WorkError::ReservedBits},
      {7, 2, WorkError::BadFlag},
      {0, 1 | (std::uint64_t{8} << 32), WorkError::NoSuchPe},
      {1, slice - 4095, WorkError::PastTargetSlice},
      {1, ~std::uint64_t{0} - 100, WorkError::PastTargetSlice},  // offset + size overflows
      {3, slice + 1, WorkError::PastTargetSlice},
      {2, slice - 4095, WorkError::PastSourceSlice},
      {2, ~std::uint64_t{0}, WorkError::PastSourceSlice},
      {4, 8, WorkError::NoSuchSignal},
  };
  for (const Case& c : cases) {
    std::uint64_t w[8];
    encode_work_request(good(), 0, w);
    w[c.word] = c.value;
    WorkRequest out;
    EXPECT_EQ(decode_work_request(w, kLimits, out), c.want) << "word " << c.word << " = " << c.value;
  }
  // At the edges: the last bytes of both slices, the last slot and PE.
  WorkRequest edge = good();
  edge.pe = 7;
  edge.offset = slice - 4096;
  edge.source = slice - 4096;
  edge.signal = 7;
  std::uint64_t w[8];
  encode_work_request(edge, 0, w);
  WorkRequest out;
  EXPECT_EQ(decode_work_request(w, kLimits, out), WorkError::None);
}

/// Whether `w` is a request `limits` allow, checked apart from the decoder.
bool allowed(const std::uint64_t (&w)[8], const EngineLimits& limits) {
  std::uint64_t target_end = 0, source_end = 0;
  return (w[0] & 0xffffffffULL) == 1 && w[6] == 0 && w[7] <= 1 && (w[0] >> 32) < limits.pes &&
         !__builtin_add_overflow(w[1], w[3], &target_end) && target_end <= limits.slice &&
         !__builtin_add_overflow(w[2], w[3], &source_end) && source_end <= limits.slice && w[4] < limits.signals;
}

TEST(EngineQueue, RandomAndMutatedWordsAreRefusedUnlessAllowed) {
  // Fuzz-style: words drawn at random (nearly all refused) and a good
  // request with one to three bits flipped (refused or not by the flipped
  // field); every verdict matches the independent check, and an accepted
  // request encodes back to the very same words.
  std::mt19937_64 rng(27);
  std::size_t accepted = 0, refused = 0;
  for (int round = 0; round < 200000; ++round) {
    std::uint64_t w[8];
    if (round % 4 == 0) {
      for (std::uint64_t& word : w)
        word = rng();
    } else {
      encode_work_request(good(), rng() & 1, w);
      for (int flips = 1 + static_cast<int>(rng() % 3); flips > 0; --flips)
        w[rng() % 8] ^= std::uint64_t{1} << (rng() % 64);
    }
    WorkRequest out;
    const WorkError error = decode_work_request(w, kLimits, out);
    ASSERT_EQ(error == WorkError::None, allowed(w, kLimits)) << "round " << round;
    if (error != WorkError::None) {
      ++refused;
      continue;
    }
    ++accepted;
    std::uint64_t again[8];
    encode_work_request(out, w[7], again);
    for (int i = 0; i < 8; ++i)
      ASSERT_EQ(again[i], w[i]) << "round " << round << " word " << i;
  }
  EXPECT_GT(accepted, 10000u);
  EXPECT_GT(refused, 10000u);
}

TEST(EngineQueue, NothingIsTakenBeforeTheDoorbellNorBeforeItsFlag) {
  QueueMemory mem(4);
  const EngineQueue q = mem.queue;
  EngineCursor cursor;
  WorkRequest out;
  WorkError error = WorkError::None;
  std::uint64_t cached = 0;
  const std::uint64_t first = engine_reserve(q);
  ASSERT_TRUE(engine_has_room(q, first, cached));
  engine_write(q, first, good());
  EXPECT_EQ(engine_poll(q, cursor, kLimits, out, error), EngineStep::Idle);  // written, not rung
  engine_ring(q, 2);  // rung past a request not yet written
  EXPECT_EQ(engine_poll(q, cursor, kLimits, out, error), EngineStep::Took);
  EXPECT_EQ(engine_poll(q, cursor, kLimits, out, error), EngineStep::Idle);  // position 1's flag is not set
  engine_ring(q, 1);  // a late ring never moves the doorbell back
  EXPECT_EQ(q.words[engine_layout::kDoorbellWord], 2u);
  const std::uint64_t second = engine_reserve(q);
  engine_write(q, second, good());
  EXPECT_EQ(engine_poll(q, cursor, kLimits, out, error), EngineStep::Took);
  EXPECT_EQ(q.words[engine_layout::kConsumedWord], 2u);
}

TEST(EngineQueue, AMalformedRequestIsRefusedAndTheEngineGoesOn) {
  WorkRequest bad = good();
  bad.pe = 99;
  // Written one at a time, each taken before the next: a wrap of two.
  QueueMemory mem(2);
  const EngineQueue f = mem.queue;
  EngineCursor cursor;
  std::vector<EngineStep> steps;
  std::vector<WorkError> errors;
  for (const WorkRequest& r : {bad, good(), good()}) {
    std::uint64_t cached = 0;
    const std::uint64_t pos = engine_reserve(f);
    ASSERT_TRUE(engine_has_room(f, pos, cached));
    engine_write(f, pos, r);
    engine_ring(f, pos + 1);
    WorkRequest out;
    WorkError error = WorkError::None;
    steps.push_back(engine_poll(f, cursor, kLimits, out, error));
    errors.push_back(error);
  }
  EXPECT_EQ(steps, (std::vector<EngineStep>{EngineStep::Refused, EngineStep::Took, EngineStep::Took}));
  EXPECT_EQ(errors, (std::vector<WorkError>{WorkError::NoSuchPe, WorkError::None, WorkError::None}));
  EXPECT_EQ(cursor.next, 3u);
}

TEST(EngineQueue, PostersAgainstOneEngineManyLapsOver) {
  // Three PEs' queues of 8 requests, two posting threads each, doorbells of
  // 3; one engine thread polls the queues in turn. Each request carries its
  // poster and number in posted_ns; the engine checks that each poster's
  // come in its order and counts every one. A request written over one not
  // yet taken (an overrun) would show as a number out of order.
  constexpr std::uint32_t kQueues = 3, kPostersPerQueue = 2, kEntries = 8, kBatch = 3;
  constexpr std::uint64_t kEach = 3000;
  std::vector<QueueMemory> mem;
  for (std::uint32_t i = 0; i < kQueues; ++i)
    mem.emplace_back(kEntries);
  std::atomic<std::uint64_t> full_waits{0};
  std::vector<std::thread> posters;
  for (std::uint32_t qi = 0; qi < kQueues; ++qi)
    for (std::uint32_t t = 0; t < kPostersPerQueue; ++t)
      posters.emplace_back([&, qi, t] {
        const EngineQueue q = mem[qi].queue;
        std::uint64_t cached = 0;
        for (std::uint64_t seq = 0; seq < kEach; ++seq) {
          WorkRequest r;
          r.pe = (qi + 1 + static_cast<std::uint32_t>(seq)) % kLimits.pes;
          r.offset = (seq % 16) * 8;
          r.source = r.offset;
          r.size = 8;
          r.signal = qi;
          r.posted_ns = (std::uint64_t{t} << 32) | seq;
          const std::uint64_t pos = engine_reserve(q);
          if (!engine_has_room(q, pos, cached)) {
            full_waits.fetch_add(1, std::memory_order_relaxed);
            while (!engine_has_room(q, pos, cached))
              std::this_thread::yield();
          }
          engine_write(q, pos, r);
          if (engine_rings_after(pos, kBatch, seq + 1 == kEach))
            engine_ring(q, pos + 1);
        }
      });
  std::vector<std::vector<std::uint64_t>> next_seq(kQueues, std::vector<std::uint64_t>(kPostersPerQueue, 0));
  std::vector<std::uint64_t> signals(kLimits.signals, 0);
  std::uint64_t taken = 0, out_of_order = 0, refused = 0;
  constexpr std::uint64_t kTotal = kQueues * kPostersPerQueue * kEach;
  std::thread engine([&] {
    // Start once a poster has found its queue full, so that flow control
    // is met whatever the threads' pace on this machine.
    while (full_waits.load(std::memory_order_relaxed) == 0)
      std::this_thread::yield();
    std::vector<EngineCursor> cursors(kQueues);
    while (taken + refused < kTotal) {
      bool idle = true;
      for (std::uint32_t qi = 0; qi < kQueues; ++qi) {
        WorkRequest r;
        WorkError error = WorkError::None;
        const EngineStep step = engine_poll(mem[qi].queue, cursors[qi], kLimits, r, error);
        if (step == EngineStep::Idle)
          continue;
        idle = false;
        if (step == EngineStep::Refused) {
          ++refused;
          continue;
        }
        ++taken;
        ++signals[r.signal];
        const std::uint64_t poster = r.posted_ns >> 32, seq = r.posted_ns & 0xffffffff;
        if (poster >= kPostersPerQueue || seq != next_seq[qi][poster]++)
          ++out_of_order;
      }
      if (idle)
        std::this_thread::yield();
    }
  });
  for (std::thread& p : posters)
    p.join();
  engine.join();
  EXPECT_EQ(taken, kTotal);
  EXPECT_EQ(refused, 0u);
  EXPECT_EQ(out_of_order, 0u);
  for (std::uint32_t qi = 0; qi < kQueues; ++qi) {
    EXPECT_EQ(signals[qi], kPostersPerQueue * kEach);
    for (std::uint32_t t = 0; t < kPostersPerQueue; ++t)
      EXPECT_EQ(next_seq[qi][t], kEach);
    const std::uint64_t* words = mem[qi].queue.words;
    EXPECT_EQ(words[engine_layout::kProducerWord], kPostersPerQueue * kEach);
    EXPECT_EQ(words[engine_layout::kDoorbellWord], kPostersPerQueue * kEach);
    EXPECT_EQ(words[engine_layout::kConsumedWord], kPostersPerQueue * kEach);
  }
  // 6000 requests through 8 slots: 750 laps of each queue.
  EXPECT_GT(full_waits.load(), 0u);
}

}  // namespace
}  // namespace xover::runtime
