// The IBGDA-like engine's send queues, in one source for nvcc and the host
// compiler (as cuda_ring_writer.hpp is): a posting thread writes a 64-byte
// work request into its PE's send queue and rings the queue's doorbell;
// a persistent engine polls the queues, takes each request once, in order,
// and hands it back for the bytes to be moved and the signal written. Under
// nvcc the atomics are cuda::atomic_ref at device scope (the queues lie in
// device memory, the posters and the engine are thread blocks of one
// kernel), under the host compiler std::atomic_ref, so that CPU threads run
// the very same steps in the tests. The conventions are the proxy ring's
// (protocols/coll/cmd_ring.hpp): a reserved position per request, a lap
// flag in the last word, release on the flag and acquire on its load,
// published progress holding the posters back.
//
// The posters' and the engine's steps take the atomic as a template
// argument: EngineAtomic (device scope, the default) for queues in device
// memory that the kernel's posting threads fill, EngineSystemAtomic for
// queues in pinned host memory that a CPU proxy fills for the engine.
//
//   memory   [control: producer | doorbell | consumed, a 64-byte line each][request 0] … [request N − 1]
//   request  eight 64-bit words, one cache line:
//            0  op (bits 0–7) | zero (8–31) | target PE (32–63)
//            1  offset in the target's slice     2  offset in the poster's own slice
//            3  size                             4  signal slot at the target (the source PE)
//            5  when posted, ns                  6  zero
//            7  flag: the lap's parity (1 − ⌊pos/N⌋ mod 2)
//
// A poster: pos = reserve(q); wait until has_room(q, pos, cache), which
// reads the engine's published progress only when its cached copy (in the
// poster's own memory, as NVSHMEM keeps it) says the queue is full;
// write(q, pos, request); and, at the end of every doorbell batch of D
// requests or after its last one, ring(q, pos + 1): an atomic max, so that
// rings out of order never move the doorbell back (D ≤ N, or a poster may
// wait for room behind requests no doorbell covers). The doorbell says where
// work may be; the flag says a request is whole: the engine takes position
// `next` only once next < doorbell and its flag is this lap's.
//
// The engine: engine_poll() on each queue in turn; a request is read, its
// progress published (its slot is free once its words are copied), and
// decoded; a malformed one is refused with the reason and never handed
// back, so that a bad poster can neither stop the engine nor make it write
// outside the slices.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#include <cuda/atomic>
#define XOVER_ENGINE_FN __host__ __device__
#else
#include <atomic>
#define XOVER_ENGINE_FN
#endif

namespace xover::runtime {

namespace engine_layout {
inline constexpr std::uint64_t kLineWords = 64 / 8;
inline constexpr std::uint64_t kProducerWord = 0;
inline constexpr std::uint64_t kDoorbellWord = kLineWords;
inline constexpr std::uint64_t kConsumedWord = 2 * kLineWords;
inline constexpr std::uint64_t kFirstEntryWord = 3 * kLineWords;
inline constexpr std::uint64_t kEntryWords = 8;
inline constexpr std::uint64_t kFlagWord = 7;
inline constexpr std::uint64_t kPutSignalOp = 1;
inline constexpr std::uint64_t kReservedBits = 0xffffff00ULL;
}  // namespace engine_layout

/// Bytes a send queue of `entries` requests takes (64-byte aligned).
XOVER_ENGINE_FN constexpr std::size_t engine_queue_bytes(std::uint32_t entries) {
  return (engine_layout::kFirstEntryWord + std::size_t{entries} * engine_layout::kEntryWords) * 8;
}

/// One send queue's memory (zeroed before first use: every flag 0, every
/// counter 0) as the posters and the engine see it.
struct EngineQueue {
  std::uint64_t* words = nullptr;
  std::uint32_t entries = 0;
};

/// One work request, decoded.
struct WorkRequest {
  std::uint32_t pe = 0;        ///< the target PE
  std::uint64_t offset = 0;    ///< where the bytes go, in the target's slice
  std::uint64_t source = 0;    ///< where they are, in the poster's slice
  std::uint64_t size = 0;
  std::uint64_t signal = 0;    ///< the target's signal slot to add 1 to
  std::uint64_t posted_ns = 0;
};

/// What the engine accepts: a target among `pes`, bytes inside a slice of
/// `slice` bytes at both ends, a signal slot below `signals`.
struct EngineLimits {
  std::uint32_t pes = 0;
  std::uint64_t slice = 0;
  std::uint64_t signals = 0;
};

/// Why a request was refused; None for a good one.
enum class WorkError : std::uint8_t {
  None,
  UnknownOp,
  ReservedBits,
  BadFlag,
  NoSuchPe,
  PastTargetSlice,
  PastSourceSlice,
  NoSuchSignal,
};

#if defined(__CUDACC__)
using EngineAtomic = cuda::atomic_ref<std::uint64_t, cuda::thread_scope_device>;
using EngineSystemAtomic = cuda::atomic_ref<std::uint64_t, cuda::thread_scope_system>;
inline constexpr auto kEngineAcquire = cuda::std::memory_order_acquire;
inline constexpr auto kEngineRelease = cuda::std::memory_order_release;
inline constexpr auto kEngineRelaxed = cuda::std::memory_order_relaxed;
#else
using EngineAtomic = std::atomic_ref<std::uint64_t>;
using EngineSystemAtomic = std::atomic_ref<std::uint64_t>;
inline constexpr auto kEngineAcquire = std::memory_order_acquire;
inline constexpr auto kEngineRelease = std::memory_order_release;
inline constexpr auto kEngineRelaxed = std::memory_order_relaxed;
#endif

/// The flag a request at `pos` carries in a queue of `entries`.
XOVER_ENGINE_FN inline std::uint64_t engine_lap_flag(std::uint64_t pos, std::uint32_t entries) {
  return ((pos / entries) & 1) ^ 1;
}

/// The words of `r` with the flag `flag`.
XOVER_ENGINE_FN inline void encode_work_request(const WorkRequest& r, std::uint64_t flag, std::uint64_t (&w)[8]) {
  w[0] = engine_layout::kPutSignalOp | (std::uint64_t{r.pe} << 32);
  w[1] = r.offset;
  w[2] = r.source;
  w[3] = r.size;
  w[4] = r.signal;
  w[5] = r.posted_ns;
  w[6] = 0;
  w[7] = flag;
}

/// Checks and decodes one request's words against `limits`; pure, so that
/// any words give a result and never undefined behaviour.
XOVER_ENGINE_FN inline WorkError decode_work_request(const std::uint64_t (&w)[8], const EngineLimits& limits,
                                                     WorkRequest& out) {
  out.pe = static_cast<std::uint32_t>(w[0] >> 32);
  out.offset = w[1];
  out.source = w[2];
  out.size = w[3];
  out.signal = w[4];
  out.posted_ns = w[5];
  if ((w[0] & 0xff) != engine_layout::kPutSignalOp)
    return WorkError::UnknownOp;
  if ((w[0] & engine_layout::kReservedBits) != 0 || w[6] != 0)
    return WorkError::ReservedBits;
  if (w[engine_layout::kFlagWord] > 1)
    return WorkError::BadFlag;
  if (out.pe >= limits.pes)
    return WorkError::NoSuchPe;
  if (out.size > limits.slice || out.offset > limits.slice - out.size)
    return WorkError::PastTargetSlice;
  if (out.source > limits.slice - out.size)
    return WorkError::PastSourceSlice;
  if (out.signal >= limits.signals)
    return WorkError::NoSuchSignal;
  return WorkError::None;
}

// The posters.

/// The position of the poster's next request (one atomic add).
template <class Atomic = EngineAtomic>
XOVER_ENGINE_FN inline std::uint64_t engine_reserve(EngineQueue q) {
  return Atomic(q.words[engine_layout::kProducerWord]).fetch_add(1, kEngineRelaxed);
}

/// Whether the engine has taken the request a lap before `pos`: against
/// `cached` (the poster's copy of the engine's progress) first, refreshed
/// from the queue only when that says no.
template <class Atomic = EngineAtomic>
XOVER_ENGINE_FN inline bool engine_has_room(EngineQueue q, std::uint64_t pos, std::uint64_t& cached) {
  if (pos - cached < q.entries)
    return true;
  cached = Atomic(q.words[engine_layout::kConsumedWord]).load(kEngineAcquire);
  return pos - cached < q.entries;
}

/// Writes `r` at `pos` (reserved, with room): words 0–6, then the lap's
/// flag with release ordering.
template <class Atomic = EngineAtomic>
XOVER_ENGINE_FN inline void engine_write(EngineQueue q, std::uint64_t pos, const WorkRequest& r) {
  using namespace engine_layout;
  std::uint64_t* entry = q.words + kFirstEntryWord + (pos % q.entries) * kEntryWords;
  std::uint64_t w[8];
  encode_work_request(r, engine_lap_flag(pos, q.entries), w);
  for (std::uint64_t i = 0; i < kFlagWord; ++i)
    Atomic(entry[i]).store(w[i], kEngineRelaxed);
  Atomic(entry[kFlagWord]).store(w[kFlagWord], kEngineRelease);
}

/// Rings the doorbell up to `upto` (one past the last request the poster
/// wrote); never moves it back.
template <class Atomic = EngineAtomic>
XOVER_ENGINE_FN inline void engine_ring(EngineQueue q, std::uint64_t upto) {
  Atomic bell(q.words[engine_layout::kDoorbellWord]);
  std::uint64_t seen = bell.load(kEngineRelaxed);
  while (seen < upto && !bell.compare_exchange_weak(seen, upto, kEngineRelease, kEngineRelaxed)) {
  }
}

/// Whether the poster of `pos` rings: at the end of a batch of `batch`
/// requests, or after its last one.
XOVER_ENGINE_FN inline bool engine_rings_after(std::uint64_t pos, std::uint32_t batch, bool last) {
  return last || (pos + 1) % batch == 0;
}

// The engine.

/// The engine's place in one queue.
struct EngineCursor {
  std::uint64_t next = 0;  ///< the next position to take
  std::uint64_t rung = 0;  ///< the doorbell as last read
};

/// What one poll of a queue gave.
enum class EngineStep : std::uint8_t {
  Idle,     ///< nothing rung and written at `next`
  Took,     ///< a good request, in `out`
  Refused,  ///< a malformed request, consumed, its reason in `error`
};

/// Takes the request at the cursor when the doorbell covers it and its flag
/// is this lap's: reads its words, publishes the engine's progress past
/// it, and decodes it. The doorbell is read again only when the cursor
/// has caught up with the last reading.
template <class Atomic = EngineAtomic>
XOVER_ENGINE_FN inline EngineStep engine_poll(EngineQueue q, EngineCursor& cursor, const EngineLimits& limits,
                                              WorkRequest& out, WorkError& error) {
  using namespace engine_layout;
  if (cursor.next >= cursor.rung) {
    cursor.rung = Atomic(q.words[kDoorbellWord]).load(kEngineAcquire);
    if (cursor.next >= cursor.rung)
      return EngineStep::Idle;
  }
  std::uint64_t* entry = q.words + kFirstEntryWord + (cursor.next % q.entries) * kEntryWords;
  const std::uint64_t flag = engine_lap_flag(cursor.next, q.entries);
  if (Atomic(entry[kFlagWord]).load(kEngineAcquire) != flag)
    return EngineStep::Idle;
  std::uint64_t w[8];
  for (std::uint64_t i = 0; i < kEntryWords; ++i)
    w[i] = Atomic(entry[i]).load(kEngineRelaxed);
  ++cursor.next;
  Atomic(q.words[kConsumedWord]).store(cursor.next, kEngineRelease);
  error = decode_work_request(w, limits, out);
  return error == WorkError::None ? EngineStep::Took : EngineStep::Refused;
}

}  // namespace xover::runtime
