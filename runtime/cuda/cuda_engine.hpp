// The IBGDA-like engine's posting and serving steps over a set of send
// queues (cuda_engine_queue.hpp), in one source for nvcc and the host
// compiler: the PE group's kernel (cuda_pe_engine.cu) runs them with a
// warp per engine worker and a thread per poster, the tests run the very
// same functions with CPU threads over a heap in host memory.
//
//   queue set  P queues of `entries` back to back, queue p filled by PE p's
//              posters (or by PE p's CPU proxy: the proxy flavour)
//   worker     serves queues w, w + W, … in turn (W workers; the kernel's
//              engine block has a worker per warp); a turn (engine_turn,
//              run by every lane) is:
//                lane 0   engine_take: polls its queues from where it last
//                         stopped, takes the first written and rung request
//                all      share lane 0's take (a warp shuffle on the GPU)
//                all      engine_move: its share of the copy by 16-byte
//                         stores (cuda_copy16.hpp), source in the queue's
//                         PE's slice, destination in the target's
//                all      meet (__syncwarp)
//                lane 0   engine_signal: one fence, then an atomic add of 1
//                         on the target's signal word of the source
//              a malformed request is counted and its first reason kept
//              (EngineTally), and the worker goes on
//   poster     engine_post: reserve, wait for room against its cached copy
//              of the engine's progress, write, ring at the end of each
//              doorbell batch and after its last request: the same few
//              stores at every size
//   proxy      proxy_post, the proxy flavour's poster: the same put as a
//   poster     command in its PE's ring in pinned host memory, for the PE's
//              CPU proxy (cuda_proxy_forward.hpp) to post into the queue
//
// Requests name bytes by offsets in the slices of one heap, P slices of
// `slice` bytes, the signal words at `signals` in each; the engine's limits
// keep every copy below `signals`, so that no request can write a signal
// word, nor outside the heap.
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>

#include "runtime/cuda/cuda_copy16.hpp"
#include "runtime/cuda/cuda_engine_queue.hpp"
#include "runtime/cuda/cuda_ring_writer.hpp"

namespace xover::runtime {

/// P queues of `entries` requests, back to back.
struct EngineSet {
  std::uint64_t* words = nullptr;
  std::uint32_t queues = 0;
  std::uint32_t entries = 0;
};

/// Bytes a set of `queues` queues of `entries` takes.
XOVER_ENGINE_FN constexpr std::size_t engine_set_bytes(std::uint32_t queues, std::uint32_t entries) {
  return std::size_t{queues} * engine_queue_bytes(entries);
}

/// Queue `q` of the set.
XOVER_ENGINE_FN inline EngineQueue engine_queue_of(const EngineSet& set, std::uint32_t q) {
  return EngineQueue{set.words + q * (engine_queue_bytes(set.entries) / 8), set.entries};
}

/// Where the engine moves bytes and adds signals: P slices of `slice` bytes
/// from `heap`, PE p's signal word of source s at heap + p·slice + signals +
/// 8s.
struct EngineTargets {
  std::byte* heap = nullptr;
  std::uint64_t slice = 0;
  std::uint64_t signals = 0;
};

/// The limits a request is checked against: a target among the PEs, bytes
/// below the signal words at both ends, a signal word of a PE.
XOVER_ENGINE_FN inline EngineLimits engine_limits(std::uint32_t pes, const EngineTargets& t) {
  return EngineLimits{pes, t.signals, pes};
}

/// What the engine did, in three words (zeroed before a run): requests
/// taken, requests refused, and the first refusal's WorkError.
struct EngineTally {
  std::uint64_t* words = nullptr;
};

namespace engine_tally {
inline constexpr std::uint32_t kTaken = 0;
inline constexpr std::uint32_t kRefused = 1;
inline constexpr std::uint32_t kFirstError = 2;
inline constexpr std::uint32_t kWords = 3;
}  // namespace engine_tally

/// What a refusal's reason says, for the host's messages.
XOVER_ENGINE_FN inline const char* work_error_name(WorkError e) {
  switch (e) {
    case WorkError::None:
      return "none";
    case WorkError::UnknownOp:
      return "unknown op";
    case WorkError::ReservedBits:
      return "reserved bits set";
    case WorkError::BadFlag:
      return "flag is neither 0 nor 1";
    case WorkError::NoSuchPe:
      return "no such PE";
    case WorkError::PastTargetSlice:
      return "bytes past the target's data";
    case WorkError::PastSourceSlice:
      return "bytes past the source's data";
    case WorkError::NoSuchSignal:
      break;
  }
  return "no such signal word";
}

/// One request taken by a worker, or none.
struct EngineTake {
  EngineStep step = EngineStep::Idle;
  std::uint32_t from = 0;  ///< the queue, the poster's PE
  WorkRequest request;
  WorkError error = WorkError::None;
};

/// A worker's place among its queues: cursors[q] for each queue q it
/// serves (kept between runs: the queues' positions go on), and the index
/// of the queue it polls first next time.
struct EngineWorker {
  EngineCursor* cursors = nullptr;
  std::uint32_t index = 0;
  std::uint32_t count = 1;
  std::uint32_t turn = 0;
};

/// Waits a little between polls: a few hundred cycles on the GPU, the rest
/// of its time slice for a CPU thread.
XOVER_ENGINE_FN inline void engine_pause() {
#if defined(__CUDA_ARCH__)
  __nanosleep(64);
#else
  std::this_thread::yield();
#endif
}

/// Lane 0's step: polls the worker's queues once each from where it last
/// stopped; the first that gives a request (good or refused) is taken.
template <class Atomic = EngineAtomic>
XOVER_ENGINE_FN inline EngineTake engine_take(const EngineSet& set, EngineWorker& w, const EngineLimits& limits) {
  EngineTake take;
  const std::uint32_t mine = w.index < set.queues ? (set.queues - w.index + w.count - 1) / w.count : 0;
  for (std::uint32_t k = 0; k < mine; ++k) {
    const std::uint32_t q = w.index + ((w.turn + k) % mine) * w.count;
    take.step = engine_poll<Atomic>(engine_queue_of(set, q), w.cursors[q], limits, take.request, take.error);
    if (take.step != EngineStep::Idle) {
      take.from = q;
      w.turn = (w.turn + k + 1) % mine;
      return take;
    }
  }
  return take;
}

/// Lane `lane` of `lanes`' share of a taken request's bytes.
XOVER_ENGINE_FN inline void engine_move(const EngineTargets& t, const EngineTake& take, std::uint32_t lane,
                                        std::uint32_t lanes) {
  copy_lanes(t.heap + take.request.pe * t.slice + take.request.offset,
             t.heap + take.from * t.slice + take.request.source, take.request.size, lane, lanes);
}

/// The target's signal word the request adds to.
XOVER_ENGINE_FN inline std::uint64_t* engine_signal_word(const EngineTargets& t, std::uint32_t pe, std::uint64_t slot) {
  return reinterpret_cast<std::uint64_t*>(t.heap + pe * t.slice + t.signals) + slot;
}

/// Lane 0, once every lane's share of the bytes is stored and the lanes
/// have met: one fence orders them before the signal's add.
XOVER_ENGINE_FN inline void engine_signal(const EngineTargets& t, const EngineTake& take) {
#if defined(__CUDA_ARCH__)
  __threadfence();
#else
  std::atomic_thread_fence(std::memory_order_release);
#endif
  EngineAtomic(*engine_signal_word(t, take.request.pe, take.request.signal)).fetch_add(1, kEngineRelaxed);
}

/// Lane 0: counts what was taken; a refusal's reason is kept if it is the
/// first.
XOVER_ENGINE_FN inline void engine_count(EngineTally tally, const EngineTake& take) {
  using namespace engine_tally;
  if (take.step == EngineStep::Took) {
    EngineAtomic(tally.words[kTaken]).fetch_add(1, kEngineRelaxed);
    return;
  }
  EngineAtomic(tally.words[kRefused]).fetch_add(1, kEngineRelaxed);
  std::uint64_t none = 0;
  EngineAtomic(tally.words[kFirstError])
      .compare_exchange_strong(none, static_cast<std::uint64_t>(take.error), kEngineRelaxed, kEngineRelaxed);
}

/// One turn of an engine worker, run by each of its `lanes` lanes (lane
/// `lane`): lane 0 takes a request (engine_take), `share(take)` gives every
/// lane lane 0's take (a warp shuffle on the GPU), the lanes move its bytes
/// (engine_move), `meet()` waits until every lane's stores are done
/// (__syncwarp), and lane 0 adds the signal (engine_signal) and counts it
/// (engine_count). Returns the step, the same in every lane: Idle when no
/// queue of the worker had a request.
template <class Atomic = EngineAtomic, class Share, class Meet>
XOVER_ENGINE_FN inline EngineStep engine_turn(const EngineSet& set, EngineWorker& w, const EngineLimits& limits,
                                              const EngineTargets& targets, EngineTally tally, std::uint32_t lane,
                                              std::uint32_t lanes, Share share, Meet meet) {
  EngineTake take;
  if (lane == 0)
    take = engine_take<Atomic>(set, w, limits);
  take = share(take);
  if (take.step == EngineStep::Idle)
    return take.step;
  if (take.step == EngineStep::Took)
    engine_move(targets, take, lane, lanes);
  meet();
  if (lane == 0) {
    if (take.step == EngineStep::Took)
      engine_signal(targets, take);
    engine_count(tally, take);
  }
  return take.step;
}

/// A poster's request: reserves its position, waits for room, writes it,
/// and rings the doorbell at the end of a batch of `batch` or when `last`.
/// `cached` is the poster's copy of the engine's progress. While it waits,
/// `expired()` is asked between polls; once it says true the poster gives
/// up and returns false (its position stays reserved and unwritten: the
/// queue is dead until it is zeroed again).
template <class Atomic = EngineAtomic, class Expired>
XOVER_ENGINE_FN inline bool engine_post(EngineQueue q, const WorkRequest& r, std::uint32_t batch, bool last,
                                        std::uint64_t& cached, Expired expired) {
  const std::uint64_t pos = engine_reserve<Atomic>(q);
  while (!engine_has_room<Atomic>(q, pos, cached)) {
    if (expired())
      return false;
    engine_pause();
  }
  engine_write<Atomic>(q, pos, r);
  if (engine_rings_after(pos, batch, last))
    engine_ring<Atomic>(q, pos + 1);
  return true;
}

/// The proxy flavour's poster: reserves a position of PE's ring with
/// `reserved` (a counter in the poster's memory), waits for room (the
/// ring's cached copy first), and writes the put_signal command. `expired`
/// as for engine_post.
template <class Expired>
XOVER_ENGINE_FN inline bool proxy_post(RingView ring, std::uint64_t* reserved, const WorkRequest& r, Expired expired) {
  const std::uint64_t pos = RingCacheAtomic(*reserved).fetch_add(1, kRingRelaxed);
  while (!ring_has_room(ring, pos)) {
    if (expired())
      return false;
    engine_pause();
  }
  ring_write_put_signal(ring, pos, r.pe, r.offset, r.source, r.size, r.posted_ns);
  return true;
}

}  // namespace xover::runtime
