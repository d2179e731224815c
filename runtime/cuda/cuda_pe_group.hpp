// P PEs in one process on one GPU (2 to 32): the symmetric heap one
// allocation of P slices, a PE a group of thread blocks of one cooperative
// launch (all resident at once), a signal word per source slot added to
// atomically (cuda_pe_plan.hpp lays it out). Three flavours:
//   direct  as NVSHMEM runs it between NVLink peers: each put copied by a
//           thread, a warp or a block with 16-byte stores whatever the
//           slots' alignment, one fence per block (cuda_pe_kernels.cu)
//   engine  IBGDA-like: a PE's posting threads write a work request a put
//           into its send queue and ring its doorbell; one more block of
//           the launch, the engine, moves the bytes and adds the signals
//           (cuda_pe_engine.cu, cuda_engine.hpp)
//   proxy   IBRC: the posting threads write commands into the PE's ring in
//           pinned host memory; the PE's CPU proxy thread, made here at
//           set-up, posts each into the engine's queues
//           (cuda_proxy_forward.hpp); the engine block as above
//   copy    as proxy, but the proxy moves the bytes itself: cudaMemcpyAsync
//           and a one-thread signal add on its PE's stream; no engine block
// (cuda_pe_engine_state.hpp holds the queues, rings and proxies.)
//
// Unlike CudaAlltoall (ranks as processes mapping each other's memory by
// CUDA IPC, which then time-slice one GPU without MPS), the PEs here run
// at once by construction: this is the group that measures the device's
// own costs; CudaAlltoall stays the IPC path's correctness check.
//
//   CudaPeGroup group(8, 1 << 20, seed);          // throws when 8 PEs do not fit
//   group.prepare(n);                             // each PE's puts' bytes
//   PeGroupExchange x = group.exchange(PeFlavour::Direct, DirectWidth::Warp, n, 10.0);
//   PeGroupExchange y = group.exchange(PeFlavour::Engine, {}, n, 10.0);   // or Proxy
//   Findings f = group.verify(n);                 // every byte of every slot, every signal word
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "protocols/coll/alltoall_pe.hpp"
#include "protocols/units.hpp"
#include "runtime/cuda/cuda_pe_plan.hpp"

namespace xover::runtime {

/// One exchange of the group.
struct PeGroupExchange {
  bool complete = false;
  std::string problem;  ///< why not, when not complete
  /// Between two events on the stream around the launch: the exchange with
  /// the launch's own cost.
  Seconds time = 0;
  /// On the GPU's global timer: from the first PE's start to the last PE's
  /// signals all in (microseconds and more; the timer's resolution is
  /// coarser than a put).
  Seconds span = 0;
  /// Per block that posted: from its first store to its last signal add,
  /// SM clock cycles over the SM's nominal clock rate (none where the
  /// runtime gives no clock rate).
  std::vector<Seconds> post;
};

class CudaPeGroup {
 public:
  /// Allocates the heap on `device` for `pes` PEs of at most `max_size`
  /// bytes a peer and plans the launch (blocks of `threads`).
  /// @throws std::invalid_argument when the PEs do not fit the GPU at once
  ///         (the message says how many blocks it holds), RuntimeError
  ///         naming the CUDA call that failed.
  CudaPeGroup(std::uint32_t pes, Bytes max_size, std::uint64_t seed, std::uint32_t threads = 256, int device = 0);
  ~CudaPeGroup();
  CudaPeGroup(const CudaPeGroup&) = delete;
  CudaPeGroup& operator=(const CudaPeGroup&) = delete;

  const PeLaunch& launch() const;
  /// What the GPU holds at once for this kernel.
  GpuResidency residency() const;

  /// The engine and proxy flavours' posting: `posters` threads a PE (1 to
  /// P − 1; at first P − 1, a thread a put), poster t posting puts t,
  /// t + posters, …, and the engine flavour's doorbell batch (1 to
  /// kPeQueueEntries; at first kPeDoorbellBatch).
  /// @throws std::invalid_argument for either out of its range.
  void set_posting(std::uint32_t posters, std::uint32_t batch);

  /// Writes every PE's puts' bytes for the next exchange of `n` bytes.
  void prepare(Bytes n);
  /// One exchange of `n` bytes (prepare()d, or the previous exchange's
  /// bytes again) in `flavour`: copied by the PEs at `width` (direct), or
  /// posted as work requests to the engine block (engine), or as commands
  /// to the PEs' CPU proxies, which post them to the engine (proxy) or copy
  /// them with cudaMemcpyAsync and a signal add (copy; width unused but by
  /// direct); gives up after `timeout` seconds. An exchange that
  /// did not complete leaves the signals, queues and rings reset for the
  /// next one.
  PeGroupExchange exchange(PeFlavour flavour, DirectWidth width, Bytes n, Seconds timeout);
  /// Every receive slot of every PE against the bytes prepare() wrote, and
  /// every signal word against the exchanges run (outside any timing).
  Findings verify(Bytes n);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace xover::runtime
