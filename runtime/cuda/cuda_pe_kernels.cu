#include "runtime/cuda/cuda_copy16.hpp"
#include "runtime/cuda/cuda_pe_device.cuh"

namespace xover::runtime {
namespace {

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
      PeDeviceWord(*pe_signal_word(a, put_target(me, a.pes, j), me)).fetch_add(1, cuda::std::memory_order_relaxed);
      any = true;
    }
  a.post_cycles[blockIdx.x] = any ? clock64() - begin : 0;
}

__global__ void pe_group_direct(PeGroupArgs a) {
  const std::uint32_t me = blockIdx.x / a.blocks_per_pe;
  const std::uint32_t block = blockIdx.x % a.blocks_per_pe;
  if (block == 0 && threadIdx.x == 0)
    a.span_ns[2 * me] = global_timer_ns();
  post_puts(a, me, block);
  if (block == 0)
    pe_wait_signals(a, me);
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
  const cudaError_t e = cudaFuncGetAttributes(&attributes, pe_group_direct);
  return e != cudaSuccess ? e : preload_pe_engine();
}

}  // namespace xover::runtime
