// Test support for the engine's tests (cuda_engine_test, cuda_proxy_test):
// a heap of P slices in host memory laid out as the PE group's
// (runtime/cuda/cuda_pe_plan.hpp), its send queues, the engine's cursors
// and tally, the payloads of an exchange and their check, and an engine
// worker (its lanes CPU threads) and PE posters played with the kernel's
// functions (runtime/cuda/cuda_engine.hpp).
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <barrier>
#include <cstdint>
#include <thread>
#include <vector>

#include "protocols/coll/alltoall_pe.hpp"
#include "protocols/core/payload_pattern.hpp"
#include "runtime/cuda/cuda_engine.hpp"
#include "runtime/cuda/cuda_pe_plan.hpp"

namespace xover::runtime::engine_test {

inline constexpr std::uint64_t kSeed = 27;

/// A poster that waits for room as long as it takes.
inline bool never() {
  return false;
}

/// Zeroed memory of `bytes`, 256-byte aligned as a cudaMalloc'd heap is.
struct Aligned {
  explicit Aligned(std::size_t bytes) : raw(bytes + 256) {
    std::byte* p = raw.data();
    while (reinterpret_cast<std::uintptr_t>(p) % 256 != 0)
      ++p;
    at = p;
  }
  std::vector<std::byte> raw;
  std::byte* at = nullptr;
};

/// A heap of P slices, their queues, the engine's cursors and tally.
struct Group {
  Group(std::uint32_t pes, std::uint64_t max_size, std::uint32_t entries)
      : pes(pes),
        layout(heap_layout(pes, max_size)),
        heap(pes * layout.slice),
        queues(engine_set_bytes(pes, entries)),
        cursors(pes),
        tally(engine_tally::kWords, 0) {
    set = EngineSet{reinterpret_cast<std::uint64_t*>(queues.at), pes, entries};
    targets = EngineTargets{heap.at, layout.slice, layout.signals};
  }

  std::byte* send_slot(std::uint32_t pe, std::uint32_t j, std::uint64_t n) {
    return heap.at + pe * layout.slice + layout.send + j * n;
  }
  std::byte* recv_slot(std::uint32_t pe, std::uint32_t from, std::uint64_t n) {
    return heap.at + pe * layout.slice + layout.recv + from * n;
  }
  std::uint64_t signal(std::uint32_t pe, std::uint32_t from) { return *engine_signal_word(targets, pe, from); }

  /// Put j of PE me for exchange `e` of n bytes, as the kernel's posters write
  /// it.
  WorkRequest put(std::uint32_t me, std::uint32_t j, std::uint64_t n) const {
    WorkRequest r;
    r.pe = put_target(me, pes, j);
    r.offset = layout.recv + me * n;
    r.source = layout.send + j * n;
    r.size = n;
    r.signal = me;
    return r;
  }

  void prepare(std::uint64_t exchange, std::uint64_t n) {
    for (std::uint32_t me = 0; me < pes; ++me)
      for (std::uint32_t j = 0; j + 1 < pes; ++j)
        fill_payload(send_slot(me, j, n), n, kSeed, me, alltoall_put_seq(exchange, put_target(me, pes, j)));
  }

  /// Every byte of every receive slot, every signal word after `exchanges`.
  void expect_delivered(std::uint64_t exchange, std::uint64_t n, std::uint64_t exchanges) {
    for (std::uint32_t pe = 0; pe < pes; ++pe)
      for (std::uint32_t from = 0; from < pes; ++from) {
        EXPECT_EQ(signal(pe, from), from == pe ? 0 : exchanges) << "PE " << pe << ", source " << from;
        if (from != pe) {
          EXPECT_EQ(first_wrong_byte(recv_slot(pe, from, n), n, kSeed, from, alltoall_put_seq(exchange, pe)), n)
              << n << " B, PE " << pe << " from " << from;
        }
      }
  }

  /// One engine worker's turns (engine_turn) until the tally shows
  /// `total` requests taken or refused, played by `lanes` CPU threads as a
  /// warp's lanes: lane 0's take shared through memory between barriers
  /// (the warp shuffle), meet() a barrier (__syncwarp), and lane 0's
  /// decision to stop shared likewise.
  template <class Atomic = EngineAtomic>
  void serve(std::uint32_t index, std::uint32_t workers, std::uint32_t lanes, std::uint64_t total) {
    EngineWorker w{cursors.data(), index, workers, 0};
    const EngineLimits limits = engine_limits(pes, targets);
    const EngineTally t{tally.data()};
    std::barrier<> warp(lanes);
    EngineTake shared;
    std::atomic<bool> stop{false};
    const auto lane_turns = [&](std::uint32_t lane) {
      const auto share = [&](const EngineTake& take) {
        if (lane == 0)
          shared = take;
        warp.arrive_and_wait();
        const EngineTake mine = shared;
        warp.arrive_and_wait();
        return mine;
      };
      const auto meet = [&] { warp.arrive_and_wait(); };
      for (;;) {
        if (engine_turn<Atomic>(set, w, limits, targets, t, lane, lanes, share, meet) != EngineStep::Idle)
          continue;
        if (lane == 0) {
          stop = EngineAtomic(tally[engine_tally::kTaken]).load() +
                     EngineAtomic(tally[engine_tally::kRefused]).load() >=
                 total;
          if (!stop)
            engine_pause();
        }
        warp.arrive_and_wait();
        const bool done = stop;
        warp.arrive_and_wait();
        if (done)
          return;
      }
    };
    std::vector<std::thread> threads;
    for (std::uint32_t lane = 1; lane < lanes; ++lane)
      threads.emplace_back(lane_turns, lane);
    lane_turns(0);
    for (std::thread& thread : threads)
      thread.join();
  }

  std::uint32_t pes;
  HeapLayout layout;
  Aligned heap;
  Aligned queues;
  EngineSet set;
  EngineTargets targets;
  std::vector<EngineCursor> cursors;
  std::vector<std::uint64_t> tally;
};

/// PE me's posters: poster t of `posters` posts puts j ≡ t mod posters.
inline void post_exchange(Group& g, std::uint32_t me, std::uint32_t t, std::uint32_t posters, std::uint64_t n,
                          std::uint32_t batch) {
  std::uint64_t cached = 0;
  const EngineQueue q = engine_queue_of(g.set, me);
  for (std::uint32_t j = t; j + 1 < g.pes; j += posters)
    EXPECT_TRUE(engine_post(q, g.put(me, j, n), batch, j + posters + 1 >= g.pes, cached, never));
}

}  // namespace xover::runtime::engine_test
