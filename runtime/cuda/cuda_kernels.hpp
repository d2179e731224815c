// The alltoall's kernels (cuda_kernels.cu), launched from host code: each
// function enqueues one kernel on `stream` and returns the launch's error.
// Pointers are device addresses: the PE's own buffers, and arrays of P
// pointers to every peer's receive buffer and signal word as this process
// mapped them by CUDA IPC (its own entry unused). Put i of PE `me` goes to
// PE (me + i + 1) mod P at me·n in its receive buffer, as alltoall_pe.hpp
// lays out the CPU alltoall, from i·n in the send buffer.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "runtime/cuda/cuda_ring_writer.hpp"

namespace xover::runtime {

/// What an alltoall kernel leaves in its status word.
enum class KernelStatus : std::uint32_t {
  Done = 0,
  TimedOut = 1,  ///< the signal, or room in the ring, did not come before the deadline
};

struct AlltoallKernelArgs {
  const std::byte* send = nullptr;          ///< P − 1 blocks of n bytes
  std::byte* const* peer_recv = nullptr;    ///< P mapped receive buffers
  std::uint64_t* const* peer_signal = nullptr;  ///< P mapped signal words
  std::uint64_t* my_signal = nullptr;       ///< this PE's signal word
  std::uint32_t me = 0;
  std::uint32_t pes = 0;
  std::uint64_t n = 0;
  std::uint64_t expected = 0;     ///< what my_signal shows once this exchange's puts have all landed
  std::uint64_t deadline_ns = 0;  ///< on the GPU's global timer (%globaltimer)
  std::uint32_t* status = nullptr;  ///< a KernelStatus
  /// Two per put, SM clock cycles (clock64) at 2i before put i's work and
  /// at 2i + 1 after it (direct: after its signal's add; proxy: after its
  /// command is written). The command itself carries the global timer (ns),
  /// which W sets against the host's clock.
  std::uint64_t* stamps = nullptr;
};

/// `direct`: one block of P − 1 threads; thread i stores its block into the
/// peer's mapped buffer (16-byte stores at any alignment, cuda_copy16.hpp);
/// then thread 0 fences once at system scope for the block, adds 1 to each
/// peer's signal, and waits until this PE's signal shows `expected`.
cudaError_t launch_alltoall_direct(const AlltoallKernelArgs& args, cudaStream_t stream);

/// `proxy`: one block of P − 1 threads; thread i reserves a ring position
/// (`reserved`, a counter in device memory), waits for room, and writes the
/// put_signal command for its block into `ring` (pinned host memory); the
/// CPU proxy serves it. The kernel does not wait for the signal
/// (launch_wait_signal does).
cudaError_t launch_alltoall_proxy(const AlltoallKernelArgs& args, RingView ring, std::uint64_t* reserved,
                                  cudaStream_t stream);

/// Loads every kernel of this file into the current device's context.
/// CUDA loads a kernel at its first launch by default (lazy loading), and
/// that load waits for the kernels already running: the proxy's first
/// signal add would wait for the spinning wait_signal kernel it is meant to
/// release, until that kernel's deadline. Called once at set-up.
cudaError_t preload_kernels();

/// One thread: adds `value` to `signal` (a mapped peer word) at system
/// scope; the proxy enqueues it after the bytes' copy on the same stream.
cudaError_t launch_signal_add(std::uint64_t* signal, std::uint64_t value, cudaStream_t stream);

/// One thread: waits until `args.my_signal` shows `args.expected` or the deadline passes.
cudaError_t launch_wait_signal(const AlltoallKernelArgs& args, cudaStream_t stream);

/// One thread: stores the GPU's global timer (ns) into `word` (pinned host
/// memory, mapped) again and again for `duration_ns`, for the host to read
/// against its own clock (cuda_clock.hpp).
cudaError_t launch_publish_timer(std::uint64_t* word, std::uint64_t duration_ns, cudaStream_t stream);

}  // namespace xover::runtime
