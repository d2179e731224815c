// Device code the PE group's kernels share (cuda_pe_kernels.cu, the direct
// flavour; cuda_pe_engine.cu, the engine and proxy flavours): a PE's signal
// words and its wait for them.
#pragma once

#include <cuda/atomic>

#include "runtime/cuda/cuda_global_timer.cuh"
#include "runtime/cuda/cuda_kernels.hpp"
#include "runtime/cuda/cuda_pe_kernels.hpp"

namespace xover::runtime {

using PeDeviceWord = cuda::atomic_ref<std::uint64_t, cuda::thread_scope_device>;

/// PE pe's signal word of source `source`.
__device__ inline std::uint64_t* pe_signal_word(const PeGroupArgs& a, std::uint32_t pe, std::uint32_t source) {
  return reinterpret_cast<std::uint64_t*>(a.heap + pe * a.layout.slice + a.layout.signals) + source;
}

/// A block of PE me: thread s waits for the signal word of source s to show
/// a.expected (or sets the status TimedOut at the deadline); then thread 0
/// stamps span_ns[2·me + 1].
__device__ inline void pe_wait_signals(const PeGroupArgs& a, std::uint32_t me) {
  const std::uint32_t s = threadIdx.x;
  if (s < a.pes && s != me) {
    PeDeviceWord word(*pe_signal_word(a, me, s));
    const std::uint64_t give_up = global_timer_ns() + a.timeout_ns;
    while (word.load(cuda::std::memory_order_acquire) < a.expected)
      if (global_timer_ns() > give_up) {
        *a.status = static_cast<std::uint32_t>(KernelStatus::TimedOut);
        break;
      }
  }
  __syncthreads();
  if (threadIdx.x == 0)
    a.span_ns[2 * me + 1] = global_timer_ns();
}

}  // namespace xover::runtime
