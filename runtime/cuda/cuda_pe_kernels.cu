#include <cuda/atomic>

#include "runtime/cuda/cuda_copy16.hpp"
#include "runtime/cuda/cuda_global_timer.cuh"
#include "runtime/cuda/cuda_kernels.hpp"
#include "runtime/cuda/cuda_pe_kernels.hpp"

namespace xover::runtime {
namespace {

using DeviceWord = cuda::atomic_ref<std::uint64_t, cuda::thread_scope_device>;

__device__ std::uint64_t* signal_word(const PeGroupArgs& a, std::uint32_t pe, std::uint32_t source) {
  return reinterpret_cast<std::uint64_t*>(a.heap + pe * a.layout.slice + a.layout.signals) + source;
}

/// This block's share of PE me's puts, then one fence and its puts' signals.
__device__ void post_puts(const PeGroupArgs& a, std::uint32_t me, std::uint32_t block) {
  const std::uint64_t begin = clock64();
  const CopyWorker w = copy_worker(a.width, block, threadIdx.x, a.blocks_per_pe, blockDim.x);
  const std::byte* send = a.heap + me * a.layout.slice + a.layout.send;
  bool any = false;
  for (std::uint32_t j = w.index; j + 1 < a.pes; j += w.count) {
    const std::uint32_t to = put_target(me, a.pes, j);
    copy_lanes(a.heap + to * a.layout.slice + a.layout.recv + me * a.n, send + j * a.n, a.n, w.lane, w.lanes);
    any = true;
  }
  __syncthreads();
  if (threadIdx.x != 0)
    return;
  // One fence for the block: the barrier makes its threads' stores this
  // thread's to order, the fence orders them before the adds below.
  __threadfence();
  for (std::uint32_t j = 0; j + 1 < a.pes; ++j)
    if (block_of_put(a.width, j, a.blocks_per_pe, blockDim.x) == block) {
      DeviceWord(*signal_word(a, put_target(me, a.pes, j), me)).fetch_add(1, cuda::std::memory_order_relaxed);
      any = true;
    }
  a.post_cycles[blockIdx.x] = any ? clock64() - begin : 0;
}

/// Block 0 of PE me: thread s waits for the signal word of source s.
__device__ void wait_signals(const PeGroupArgs& a, std::uint32_t me) {
  const std::uint32_t s = threadIdx.x;
  if (s < a.pes && s != me) {
    DeviceWord word(*signal_word(a, me, s));
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

__global__ void pe_group_direct(PeGroupArgs a) {
  const std::uint32_t me = blockIdx.x / a.blocks_per_pe;
  const std::uint32_t block = blockIdx.x % a.blocks_per_pe;
  if (block == 0 && threadIdx.x == 0)
    a.span_ns[2 * me] = global_timer_ns();
  post_puts(a, me, block);
  if (block == 0)
    wait_signals(a, me);
}

}  // namespace

cudaError_t pe_group_blocks_per_sm(std::uint32_t threads, int& blocks) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, pe_group_direct, static_cast<int>(threads), 0);
}

cudaError_t launch_pe_group(const PeGroupArgs& args, std::uint32_t threads, cudaStream_t stream) {
  PeGroupArgs copy = args;
  void* params[] = {&copy};
  return cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(pe_group_direct),
                                     dim3(args.pes * args.blocks_per_pe), dim3(threads), params, 0, stream);
}

cudaError_t preload_pe_group() {
  cudaFuncAttributes attributes;
  return cudaFuncGetAttributes(&attributes, pe_group_direct);
}

}  // namespace xover::runtime
