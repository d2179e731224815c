// The kernel of P PEs in one process on one GPU (cuda_pe_kernels.cu),
// launched from host code: one cooperative launch of P groups of blocks
// over one heap of P slices, laid out and split as cuda_pe_plan.hpp says.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

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

/// Loads the kernel into the current device's context (see preload_kernels).
cudaError_t preload_pe_group();

}  // namespace xover::runtime
