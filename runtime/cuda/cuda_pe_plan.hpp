// The plan of P PEs in one process on one GPU (cuda_pe_group.hpp), in one
// source for nvcc and the host compiler: what the kernel computes and what
// the tests check on the CPU are the same functions.
//
//   heap   one allocation of P slices, NVSHMEM's symmetric heap: PE p's
//          object at offset o is at base + p·slice + o for every PE alike
//   slice  [send: P − 1 slots][recv: P slots][signals: P words], each region
//          256-byte aligned; slots at a stride of n (the exchange's size,
//          not rounded: n = 13 puts slots at 13-byte strides); put j of PE
//          me goes to PE (me + 1 + j) mod P, from send slot j to the
//          target's receive slot me, and adds 1 to the target's signal word
//          me (a word per source, so that a late add is never mistaken for
//          another source's)
//   PE     a group of thread blocks of one cooperative launch (all resident
//          at once, or a PE spinning for its signals could keep a peer's
//          blocks off the GPU): blocks [me·B, (me + 1)·B)
//   width  who copies a put, as NVSHMEM's put_signal on NVLink peers does:
//          a thread (the baseline), a warp (from 16 B) or the whole block
//          (above 16 KiB); put j to worker j mod (workers of the PE)
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#if defined(__CUDACC__)
#define XOVER_PE_FN __host__ __device__
#else
#define XOVER_PE_FN
#endif

namespace xover::runtime {

/// The most PEs one group holds (the signal words a PE waits on are a block's threads).
inline constexpr std::uint32_t kPeGroupMaxPes = 32;
inline constexpr std::uint32_t kWarpLanes = 32;

/// Who copies one put.
enum class DirectWidth : std::uint8_t {
  Thread,  ///< one thread, 16-byte stores: the baseline
  Warp,    ///< a warp's 32 lanes
  Block,   ///< every thread of a block
};

/// NVSHMEM's choice on NVLink peers: a warp from 16 B, the block above 16 KiB.
inline constexpr std::uint64_t kWarpFrom = 16;
inline constexpr std::uint64_t kBlockAbove = 16 * 1024;

XOVER_PE_FN inline DirectWidth nvshmem_width(std::uint64_t n) {
  if (n < kWarpFrom)
    return DirectWidth::Thread;
  return n <= kBlockAbove ? DirectWidth::Warp : DirectWidth::Block;
}

/// Offsets in a slice, and the slice's bytes, for PEs exchanging at most
/// `max_size` bytes a peer.
struct HeapLayout {
  std::uint64_t send = 0;
  std::uint64_t recv = 0;
  std::uint64_t signals = 0;
  std::uint64_t slice = 0;
};

XOVER_PE_FN inline std::uint64_t round_up_256(std::uint64_t bytes) {
  return (bytes + 255) / 256 * 256;
}

XOVER_PE_FN inline HeapLayout heap_layout(std::uint32_t pes, std::uint64_t max_size) {
  HeapLayout h;
  h.send = 0;
  h.recv = round_up_256(std::uint64_t{pes - 1} * max_size);
  h.signals = h.recv + round_up_256(std::uint64_t{pes} * max_size);
  h.slice = h.signals + round_up_256(std::uint64_t{pes} * 8);
  return h;
}

/// Where put j of PE `me` goes.
XOVER_PE_FN inline std::uint32_t put_target(std::uint32_t me, std::uint32_t pes, std::uint32_t j) {
  return (me + 1 + j) % pes;
}

/// One copying worker of a PE: its index among the PE's `count` workers,
/// and the calling thread's lane among its `lanes`.
struct CopyWorker {
  std::uint32_t index = 0;
  std::uint32_t count = 0;
  std::uint32_t lane = 0;
  std::uint32_t lanes = 1;
};

/// The worker that thread `thread` of the PE's block `block` (of `blocks`,
/// each of `threads`, a multiple of 32) belongs to under `width`.
XOVER_PE_FN inline CopyWorker copy_worker(DirectWidth width, std::uint32_t block, std::uint32_t thread,
                                          std::uint32_t blocks, std::uint32_t threads) {
  switch (width) {
    case DirectWidth::Thread:
      return {block * threads + thread, blocks * threads, 0, 1};
    case DirectWidth::Warp: {
      const std::uint32_t warps = threads / kWarpLanes;
      return {block * warps + thread / kWarpLanes, blocks * warps, thread % kWarpLanes, kWarpLanes};
    }
    case DirectWidth::Block:
      break;
  }
  return {block, blocks, thread, threads};
}

/// The PE's block whose workers copy put j (the block that then fences
/// once and adds its puts' signals).
XOVER_PE_FN inline std::uint32_t block_of_put(DirectWidth width, std::uint32_t j, std::uint32_t blocks,
                                              std::uint32_t threads) {
  const std::uint32_t worker = j % copy_worker(width, 0, 0, blocks, threads).count;
  switch (width) {
    case DirectWidth::Thread:
      return worker / threads;
    case DirectWidth::Warp:
      return worker / (threads / kWarpLanes);
    case DirectWidth::Block:
      break;
  }
  return worker;
}

/// Who moves a put's bytes.
enum class PeFlavour : std::uint8_t {
  Direct,  ///< the PE's own threads store them (at a DirectWidth)
  Engine,  ///< a posting thread writes a work request, the engine block moves them (IBGDA-like)
  Proxy,   ///< a posting thread writes a command for the PE's CPU proxy, which posts it to the engine (IBRC)
  Copy,    ///< as Proxy, but the proxy moves the bytes with cudaMemcpyAsync and a signal add on its stream
};

/// The engine flavours' fixed sizes: each PE's send queue and command ring
/// (entries), and the posters' doorbell batch (≤ the queue's entries).
inline constexpr std::uint32_t kPeQueueEntries = 64;
inline constexpr std::uint32_t kPeRingEntries = 64;
inline constexpr std::uint32_t kPeDoorbellBatch = 4;

// Host only.

/// "direct", "engine", "proxy", "copy".
std::string_view flavour_name(PeFlavour flavour);
/// The flavour named `name`; false for no such name.
bool parse_flavour(std::string_view name, PeFlavour& out);

/// "thread", "warp", "block".
std::string_view width_name(DirectWidth width);
/// The width named `name`; false for no such name.
bool parse_width(std::string_view name, DirectWidth& out);

/// What the GPU holds at once: its SMs and the blocks of the kernel's size
/// resident per SM (cudaOccupancyMaxActiveBlocksPerMultiprocessor).
struct GpuResidency {
  std::uint32_t sms = 0;
  std::uint32_t blocks_per_sm = 0;
};

/// One cooperative launch of the group.
struct PeLaunch {
  std::uint32_t blocks_per_pe = 0;
  std::uint32_t threads = 0;  ///< per block
  std::uint32_t grid = 0;     ///< P · blocks_per_pe
};

/// The launch for `pes` PEs of blocks of `threads` (a multiple of 32): a
/// block per peer (P − 1) where the GPU holds them all at once, fewer where
/// it does not, at least one.
/// @throws std::invalid_argument for P outside 2–32, threads not a multiple
///         of 32, or a GPU that cannot hold P blocks at once (the message
///         says how many it holds).
PeLaunch plan_pe_launch(std::uint32_t pes, GpuResidency gpu, std::uint32_t threads);

/// The heap's bytes for `pes` PEs of `max_size` bytes a peer.
/// @throws std::invalid_argument when they overflow 64 bits.
std::uint64_t heap_bytes(std::uint32_t pes, std::uint64_t max_size);

}  // namespace xover::runtime
