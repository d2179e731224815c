// The PE group's engine, proxy and copy flavours (cuda_pe_kernels.hpp):
// block me < P is PE me, its posting threads writing a work request a put
// into its send queue (engine) or a put_signal command into its ring for
// its CPU proxy (proxy, copy), then waiting for its signal words; block P
// (none for copy, whose proxies move the bytes) is the engine, each warp a
// worker over queues w, w + W, …, moving a request's bytes with the warp's
// 32 lanes and adding its signal (cuda_engine.hpp's engine_turn).
#include "runtime/cuda/cuda_engine.hpp"
#include "runtime/cuda/cuda_pe_device.cuh"

namespace xover::runtime {
namespace {

constexpr unsigned kFullWarp = 0xffffffffu;

/// Whether the PE's deadline passed; sets the status when it did.
__device__ bool past(const PeGroupArgs& a, std::uint64_t give_up) {
  if (global_timer_ns() <= give_up)
    return false;
  *a.status = static_cast<std::uint32_t>(KernelStatus::TimedOut);
  return true;
}

/// Put j of PE me as a work request.
__device__ WorkRequest put_request(const PeGroupArgs& a, std::uint32_t me, std::uint32_t j) {
  WorkRequest r;
  r.pe = put_target(me, a.pes, j);
  r.offset = a.layout.recv + me * a.n;
  r.source = a.layout.send + j * a.n;
  r.size = a.n;
  r.signal = me;
  r.posted_ns = global_timer_ns();
  return r;
}

/// PE me's posting threads: thread t < posters posts puts t, t + posters, …
__device__ void post(const PeEngineArgs& e, std::uint32_t me) {
  const PeGroupArgs& a = e.group;
  const std::uint32_t t = threadIdx.x;
  if (t >= e.posters)
    return;
  const std::uint64_t begin = clock64();
  const std::uint64_t give_up = global_timer_ns() + a.timeout_ns;
  const auto expired = [&] { return past(a, give_up); };
  std::uint64_t cached = 0;
  const EngineQueue q = engine_queue_of(e.queues, me);
  const RingView ring{reinterpret_cast<std::uint64_t*>(e.rings + me * ring_bytes(e.ring_entries)), e.ring_entries,
                      e.ring_counters + 2 * me + 1};
  for (std::uint32_t j = t; j + 1 < a.pes; j += e.posters) {
    const WorkRequest r = put_request(a, me, j);
    const bool posted = e.proxy ? proxy_post(ring, e.ring_counters + 2 * me, r, expired)
                                : engine_post(q, r, e.batch, j + e.posters + 1 >= a.pes, cached, expired);
    if (!posted)
      return;
  }
  if (t == 0)
    a.post_cycles[me] = clock64() - begin;
}

/// Lane 0's take, in every lane of the warp.
__device__ EngineTake share(EngineTake t) {
  t.step = static_cast<EngineStep>(__shfl_sync(kFullWarp, static_cast<unsigned>(t.step), 0));
  t.from = __shfl_sync(kFullWarp, t.from, 0);
  t.request.pe = __shfl_sync(kFullWarp, t.request.pe, 0);
  t.request.offset = __shfl_sync(kFullWarp, static_cast<unsigned long long>(t.request.offset), 0);
  t.request.source = __shfl_sync(kFullWarp, static_cast<unsigned long long>(t.request.source), 0);
  t.request.size = __shfl_sync(kFullWarp, static_cast<unsigned long long>(t.request.size), 0);
  t.request.signal = __shfl_sync(kFullWarp, static_cast<unsigned long long>(t.request.signal), 0);
  return t;
}

/// The engine block: warp w serves queues w, w + W, … until every PE's
/// signals are in (or the deadline).
__device__ void engine(const PeEngineArgs& e) {
  const PeGroupArgs& a = e.group;
  const std::uint32_t lane = threadIdx.x % kWarpLanes;
  EngineWorker w{e.cursors, threadIdx.x / kWarpLanes, blockDim.x / kWarpLanes, 0};
  const EngineTargets targets{a.heap, a.layout.slice, a.layout.signals};
  const EngineLimits limits = engine_limits(a.pes, targets);
  const EngineTally tally{e.tally};
  const std::uint64_t give_up = global_timer_ns() + a.timeout_ns;
  cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device> finished(*e.finished);
  const auto meet = [] { __syncwarp(); };
  for (;;) {
    const EngineStep step =
        e.proxy ? engine_turn<EngineSystemAtomic>(e.queues, w, limits, targets, tally, lane, kWarpLanes, share, meet)
                : engine_turn(e.queues, w, limits, targets, tally, lane, kWarpLanes, share, meet);
    if (step != EngineStep::Idle)
      continue;
    int stop = 0;
    if (lane == 0) {
      stop = finished.load(cuda::std::memory_order_acquire) >= a.pes || past(a, give_up);
      if (!stop)
        engine_pause();
    }
    if (__shfl_sync(kFullWarp, stop, 0))
      return;
  }
}

__global__ void pe_group_engine(PeEngineArgs e) {
  const PeGroupArgs& a = e.group;
  if (blockIdx.x == a.pes) {
    engine(e);
    return;
  }
  const std::uint32_t me = blockIdx.x;
  if (threadIdx.x == 0)
    a.span_ns[2 * me] = global_timer_ns();
  post(e, me);
  __syncthreads();
  pe_wait_signals(a, me);
  if (threadIdx.x == 0)
    cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device>(*e.finished)
        .fetch_add(1, cuda::std::memory_order_release);
}

}  // namespace

cudaError_t launch_pe_engine(const PeEngineArgs& args, std::uint32_t threads, cudaStream_t stream) {
  PeEngineArgs copy = args;
  void* params[] = {&copy};
  const dim3 grid(args.group.pes + (args.copy ? 0 : 1));
  return cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(pe_group_engine), grid, dim3(threads), params, 0,
                                     stream);
}

cudaError_t preload_pe_engine() {
  cudaFuncAttributes attributes;
  return cudaFuncGetAttributes(&attributes, pe_group_engine);
}

}  // namespace xover::runtime
