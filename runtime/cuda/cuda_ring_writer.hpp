// The writer's half of the proxy's command ring (protocols/coll/cmd_ring.hpp)
// as the alltoall kernel's threads run it, in one source for nvcc and the
// host compiler: under nvcc the atomics are cuda::atomic_ref at system
// scope (the ring lies in pinned host memory the CPU proxy polls), under
// the host compiler std::atomic_ref, so that CPU threads run the very same
// steps against CommandRing's proxy side in the tests. The layout is
// CommandRing's (cuda_ring_test checks the words and the offsets against
// it); the reservation counter is the caller's, in device memory for the
// kernel, since GPU atomics on host memory are not atomic for the CPU
// (NVSHMEM keeps its channel's counter on the device too). So does the
// writers' cached copy of the proxy's published position: a writer reads
// the ring's own word, across PCIe, only when the copy says the ring is
// full, and raises the copy to what it read (NVSHMEM's flow control).
//
//   pos = atomicAdd(reserved, 1);                  // the caller's counter
//   while (!ring_has_room(ring, pos)) ...;         // the cache, else the proxy's word
//   ring_write_put_signal(ring, pos, pe, offset, local, size, now_ns);
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#include <cuda/atomic>
#define XOVER_HOST_DEVICE __host__ __device__
#else
#include <atomic>
#define XOVER_HOST_DEVICE
#endif

namespace xover::runtime {

/// A command ring's memory as the writers see it.
struct RingView {
  std::uint64_t* words = nullptr;  ///< the ring's first byte (CommandRing::create's memory)
  std::uint32_t entries = 0;
  /// The writers' copy of the proxy's published position (device memory
  /// for the kernel; zero with the ring), never ahead of the ring's word.
  std::uint64_t* cached_consumed = nullptr;
};

namespace ring_layout {
inline constexpr std::uint64_t kConsumedWord = 64 / 8;   ///< control line 1: how far the proxy has published
inline constexpr std::uint64_t kFirstEntryWord = 128 / 8;  ///< CommandRing::kControlBytes
inline constexpr std::uint64_t kEntryWords = 8;
inline constexpr std::uint64_t kFlagWord = 7;
inline constexpr std::uint64_t kPutSignalOp = 1;  ///< CommandOp::PutSignal
}  // namespace ring_layout

/// Bytes a ring of `entries` takes (CommandRing::bytes_for).
XOVER_HOST_DEVICE constexpr std::size_t ring_bytes(std::uint32_t entries) {
  return (ring_layout::kFirstEntryWord + std::size_t{entries} * ring_layout::kEntryWords) * 8;
}

#if defined(__CUDACC__)
using RingAtomic = cuda::atomic_ref<std::uint64_t, cuda::thread_scope_system>;
using RingCacheAtomic = cuda::atomic_ref<std::uint64_t, cuda::thread_scope_device>;
inline constexpr auto kRingAcquire = cuda::std::memory_order_acquire;
inline constexpr auto kRingRelease = cuda::std::memory_order_release;
inline constexpr auto kRingRelaxed = cuda::std::memory_order_relaxed;
#else
using RingAtomic = std::atomic_ref<std::uint64_t>;
using RingCacheAtomic = std::atomic_ref<std::uint64_t>;
inline constexpr auto kRingAcquire = std::memory_order_acquire;
inline constexpr auto kRingRelease = std::memory_order_release;
inline constexpr auto kRingRelaxed = std::memory_order_relaxed;
#endif

/// Whether the proxy has taken the command a lap before `pos`: the
/// writers' cached copy first; the ring's word only when that says no,
/// and the copy raised to it.
XOVER_HOST_DEVICE inline bool ring_has_room(RingView ring, std::uint64_t pos) {
  RingCacheAtomic cache(*ring.cached_consumed);
  std::uint64_t cached = cache.load(kRingAcquire);
  if (pos - cached < ring.entries)
    return true;
  const std::uint64_t consumed = RingAtomic(ring.words[ring_layout::kConsumedWord]).load(kRingAcquire);
  while (cached < consumed && !cache.compare_exchange_weak(cached, consumed, kRingRelease, kRingAcquire)) {
  }
  return pos - consumed < ring.entries;
}

/// Writes a put_signal command at `pos` (reserved, with room): words 0–6,
/// then the lap's flag with release ordering at system scope, which orders
/// them before it for the CPU as __threadfence_system() would.
XOVER_HOST_DEVICE inline void ring_write_put_signal(RingView ring, std::uint64_t pos, std::uint32_t pe,
                                                    std::uint64_t offset, std::uint64_t local, std::uint64_t size,
                                                    std::uint64_t posted_ns) {
  using namespace ring_layout;
  std::uint64_t* entry = ring.words + kFirstEntryWord + (pos % ring.entries) * kEntryWords;
  const std::uint64_t words[kFlagWord] = {kPutSignalOp | (std::uint64_t{pe} << 32), offset, local, size, posted_ns, 0,
                                          0};
  for (std::uint64_t i = 0; i < kFlagWord; ++i)
    RingAtomic(entry[i]).store(words[i], kRingRelaxed);
  const std::uint64_t flag = ((pos / ring.entries) & 1) ^ 1;
  RingAtomic(entry[kFlagWord]).store(flag, kRingRelease);
}

}  // namespace xover::runtime
