// One PE of the alltoall on a GPU: its send and receive buffers and its
// signal word in device memory, every peer's receive buffer and signal
// word mapped into this process by CUDA IPC (the handles swapped once, at
// set-up, through the Worker), and the two flavours of alltoall_pe.hpp on
// the device:
//
//   direct  one kernel, one block: thread i stores the block for its peer
//           into the peer's mapped buffer, __threadfence_system(), then a
//           system-scope add on the peer's signal (the P2P analogue of
//           NVSHMEM's IBGDA); thread 0 waits for this PE's signal
//   proxy   the kernel's threads write put_signal commands into the command
//           ring (cmd_ring.hpp) in pinned host memory; one CPU thread takes
//           them in order and issues cudaMemcpyAsync on the mapped
//           pointers, then a one-thread kernel adding to the peer's signal
//           on the same stream (the analogue of IBRC)
//
// Ranks are processes (the cuda backend's ranks, cuda_transport.hpp); PE r
// uses GPU r mod (the GPUs this node has). Several PEs on one GPU without
// MPS time-slice it: their kernels do not run at once, and a kernel that
// waits for a peer's signal holds the GPU until its time slice ends.
//
// It is the cuda backend's engine for device memory (DeviceAlltoall,
// protocols/coll/device_alltoall.hpp), which `xover run --backend cuda`
// runs the alltoall workload with.
//
//   CudaAlltoall pe(transport, worker, max_size, seed);
//   pe.prepare(n);                 // the bytes, and the GPU's clock against the host's
//   DeviceExchange r = pe.exchange(AlltoallFlavour::Direct, n, 10.0);
//   Findings f = pe.verify(n);     // copies the receive buffer back, checks every byte
//   pe.finish(worker);             // collective: unmaps the peers, then frees
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "protocols/coll/device_alltoall.hpp"
#include "protocols/core/worker.hpp"

namespace xover::runtime {

class CudaAlltoall final : public DeviceAlltoall {
 public:
  /// Collective over the transport's ranks: picks the GPU, allocates,
  /// swaps IPC handles with every peer through `worker` and maps theirs.
  /// @throws RuntimeError naming the CUDA call and its error, or a peer's bad card.
  CudaAlltoall(Transport& transport, Worker& worker, Bytes max_size, std::uint64_t seed);
  ~CudaAlltoall() override;
  CudaAlltoall(const CudaAlltoall&) = delete;
  CudaAlltoall& operator=(const CudaAlltoall&) = delete;

  /// Writes the next exchange's bytes for size `n` to the device and reads
  /// the GPU's clock against the host's (a 2 ms kernel), before its time starts.
  void prepare(Bytes n) override;
  /// Runs the exchange prepare() set up, giving up after `timeout` seconds.
  /// When complete: o_device per put (post), and for the proxy o_proxy
  /// (serve) and W (wake) per command, as cuda_clock.hpp measures them.
  DeviceExchange exchange(AlltoallFlavour flavour, Bytes n, Seconds timeout) override;
  /// Copies the receive buffer back and checks every byte from every peer
  /// and the signal word (outside the timed region).
  Findings verify(Bytes n) override;
  /// How many PEs share each GPU (at most): several need MPS to run at once.
  Rank pes_per_gpu() const;
  /// PEs per GPU, and whether those sharing one run at once (gpu_sharing_notes).
  std::vector<std::string> notes() const override;
  /// Collective: every PE unmaps its peers' memory, waits for every other
  /// to have done so, then frees its own. The destructor frees without it.
  void finish(Worker& worker) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace xover::runtime
