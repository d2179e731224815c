#include <cuda/atomic>

#include "runtime/cuda/cuda_copy16.hpp"
#include "runtime/cuda/cuda_global_timer.cuh"
#include "runtime/cuda/cuda_kernels.hpp"

namespace xover::runtime {
namespace {

using SystemWord = cuda::atomic_ref<std::uint64_t, cuda::thread_scope_system>;

/// Thread 0's wait for this PE's signal; the status says whether it came.
__device__ void wait_signal(const AlltoallKernelArgs& a) {
  SystemWord signal(*a.my_signal);
  while (signal.load(cuda::std::memory_order_acquire) < a.expected)
    if (global_timer_ns() > a.deadline_ns) {
      *a.status = static_cast<std::uint32_t>(KernelStatus::TimedOut);
      return;
    }
}

__global__ void alltoall_direct(AlltoallKernelArgs a) {
  const std::uint32_t i = threadIdx.x;
  if (i + 1 < a.pes) {
    a.stamps[2 * i] = clock64();
    const std::uint32_t to = (a.me + i + 1) % a.pes;
    copy_lanes(a.peer_recv[to] + std::uint64_t{a.me} * a.n, a.send + i * a.n, a.n, 0, 1);
  }
  __syncthreads();
  if (i != 0)
    return;
  // One fence for the block's puts, at system scope (the peers are other
  // processes' PEs, perhaps on other GPUs); the barrier made the other
  // threads' stores this thread's to order, so this thread adds every signal.
  __threadfence_system();
  for (std::uint32_t k = 0; k + 1 < a.pes; ++k) {
    SystemWord(*a.peer_signal[(a.me + k + 1) % a.pes]).fetch_add(1, cuda::std::memory_order_relaxed);
    a.stamps[2 * k + 1] = clock64();
  }
  wait_signal(a);
}

__global__ void alltoall_proxy(AlltoallKernelArgs a, RingView ring, std::uint64_t* reserved) {
  const std::uint32_t i = threadIdx.x;
  if (i + 1 >= a.pes)
    return;
  const std::uint64_t begin = clock64();
  const std::uint32_t to = (a.me + i + 1) % a.pes;
  const std::uint64_t pos = atomicAdd(reinterpret_cast<unsigned long long*>(reserved), 1ULL);
  while (!ring_has_room(ring, pos))
    if (global_timer_ns() > a.deadline_ns) {
      *a.status = static_cast<std::uint32_t>(KernelStatus::TimedOut);
      return;
    }
  ring_write_put_signal(ring, pos, to, std::uint64_t{a.me} * a.n, reinterpret_cast<std::uint64_t>(a.send + i * a.n),
                        a.n, global_timer_ns());
  a.stamps[2 * i] = begin;
  a.stamps[2 * i + 1] = clock64();
}

__global__ void signal_add(std::uint64_t* signal, std::uint64_t value) {
  SystemWord(*signal).fetch_add(value, cuda::std::memory_order_release);
}

__global__ void wait_signal_kernel(AlltoallKernelArgs a) {
  wait_signal(a);
}

__global__ void publish_timer(std::uint64_t* word, std::uint64_t duration_ns) {
  SystemWord published(*word);
  const std::uint64_t until = global_timer_ns() + duration_ns;
  for (std::uint64_t now = global_timer_ns(); now <= until; now = global_timer_ns())
    published.store(now, cuda::std::memory_order_relaxed);
}

}  // namespace

cudaError_t preload_kernels() {
  cudaFuncAttributes attributes;
  cudaError_t e = cudaFuncGetAttributes(&attributes, alltoall_direct);
  if (e == cudaSuccess)
    e = cudaFuncGetAttributes(&attributes, alltoall_proxy);
  if (e == cudaSuccess)
    e = cudaFuncGetAttributes(&attributes, signal_add);
  if (e == cudaSuccess)
    e = cudaFuncGetAttributes(&attributes, wait_signal_kernel);
  if (e == cudaSuccess)
    e = cudaFuncGetAttributes(&attributes, publish_timer);
  return e;
}

cudaError_t launch_alltoall_direct(const AlltoallKernelArgs& args, cudaStream_t stream) {
  alltoall_direct<<<1, args.pes - 1, 0, stream>>>(args);
  return cudaGetLastError();
}

cudaError_t launch_alltoall_proxy(const AlltoallKernelArgs& args, RingView ring, std::uint64_t* reserved,
                                  cudaStream_t stream) {
  alltoall_proxy<<<1, args.pes - 1, 0, stream>>>(args, ring, reserved);
  return cudaGetLastError();
}

cudaError_t launch_signal_add(std::uint64_t* signal, std::uint64_t value, cudaStream_t stream) {
  signal_add<<<1, 1, 0, stream>>>(signal, value);
  return cudaGetLastError();
}

cudaError_t launch_wait_signal(const AlltoallKernelArgs& args, cudaStream_t stream) {
  wait_signal_kernel<<<1, 1, 0, stream>>>(args);
  return cudaGetLastError();
}

cudaError_t launch_publish_timer(std::uint64_t* word, std::uint64_t duration_ns, cudaStream_t stream) {
  publish_timer<<<1, 1, 0, stream>>>(word, duration_ns);
  return cudaGetLastError();
}

}  // namespace xover::runtime
