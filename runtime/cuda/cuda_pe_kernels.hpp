// The kernels of P PEs in one process on one GPU, launched from host code:
// one cooperative launch over one heap of P slices, laid out and split as
// cuda_pe_plan.hpp says; the direct flavour (cuda_pe_kernels.cu), P groups
// of blocks, and the engine and proxy flavours (cuda_pe_engine.cu), a block
// per PE and the engine's block.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "runtime/cuda/cuda_engine.hpp"
#include "runtime/cuda/cuda_pe_plan.hpp"

namespace xover::runtime {

struct PeGroupArgs {
  std::byte* heap = nullptr;  ///< P slices of layout.slice bytes
  HeapLayout layout;
  std::uint32_t pes = 0;
  std::uint32_t blocks_per_pe = 0;
  std::uint64_t n = 0;
  DirectWidth width = DirectWidth::Thread;
  std::uint64_t expected = 0;    ///< what each of a PE's signal words shows once this exchange's puts have landed
  std::uint64_t timeout_ns = 0;  ///< a PE's wait for its signals gives up after it (on the GPU's global timer)
  std::uint32_t* status = nullptr;  ///< a KernelStatus (cuda_kernels.hpp's values)
  /// Per block: SM clock cycles (clock64) from its first store to its last
  /// signal add; 0 for a block that had no put.
  std::uint64_t* post_cycles = nullptr;
  /// Per PE, on the global timer (ns): at 2·pe when its block 0 began, at
  /// 2·pe + 1 when its signals were all in. Spans of microseconds and more.
  std::uint64_t* span_ns = nullptr;
};

/// Blocks of `threads` the kernel can keep resident per SM.
cudaError_t pe_group_blocks_per_sm(std::uint32_t threads, int& blocks);

/// The exchange: every PE's blocks copy its puts (width as args.width),
/// each block fences once (GPU scope: every PE is on this GPU) and adds 1
/// to the signal word of each of its puts' targets at the source's slot;
/// each PE's block 0 then waits until all its signal words show
/// args.expected. One cooperative launch of P · blocks_per_pe blocks.
cudaError_t launch_pe_group(const PeGroupArgs& args, std::uint32_t threads, cudaStream_t stream);

/// The engine and proxy flavours' own arguments.
struct PeEngineArgs {
  PeGroupArgs group;  ///< blocks_per_pe and width unused
  /// P queues: in device memory for the engine flavour, in pinned host
  /// memory (mapped) for the proxy flavour, where each PE's CPU proxy fills
  /// its queue.
  EngineSet queues;
  bool proxy = false;  ///< the posters write commands into the rings (proxy and copy flavours)
  bool copy = false;   ///< the copy flavour: the proxies move the bytes, no engine block
  EngineCursor* cursors = nullptr;    ///< device, P: the engine's place in each queue, kept between exchanges
  std::uint64_t* tally = nullptr;     ///< device, engine_tally::kWords, zeroed before each exchange
  std::uint32_t* finished = nullptr;  ///< device, zeroed: PEs whose signals are all in; the engine stops at P
  std::uint32_t posters = 1;          ///< posting threads a PE (1 to P − 1); poster t posts puts j ≡ t mod posters
  std::uint32_t batch = 1;            ///< the engine flavour's doorbell batch (≤ the queues' entries)
  /// The proxy flavour: P command rings (pinned host memory, mapped) of
  /// ring_entries, ring p at rings + p·CommandRing::bytes_for(ring_entries);
  /// per PE the posters' reservation counter and their cached copy of the
  /// proxy's progress (device, 2 words a PE, kept between exchanges).
  std::byte* rings = nullptr;
  std::uint32_t ring_entries = 0;
  std::uint64_t* ring_counters = nullptr;
};

/// The engine or proxy flavour: blocks 0 … P − 1 are the PEs, each posting
/// its puts from `posters` threads (a work request into its queue, or a
/// command into its ring) and waiting for its signals; block P is the
/// engine, a worker per warp, moving the bytes and adding the signals until
/// every PE has its signals (or the deadline). One cooperative launch of
/// P + 1 blocks of `threads` (P for the copy flavour, which has no engine
/// block: its proxies move the bytes).
cudaError_t launch_pe_engine(const PeEngineArgs& args, std::uint32_t threads, cudaStream_t stream);

/// Loads the kernels into the current device's context (see preload_kernels).
cudaError_t preload_pe_group();
/// Loads the engine flavours' kernel (preload_pe_group calls it).
cudaError_t preload_pe_engine();

}  // namespace xover::runtime
