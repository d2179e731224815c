// The engine, proxy and copy flavours' state in a CudaPeGroup
// (cuda_pe_group.hpp): the PEs' send queues, the engine's cursors and tally
// in device memory; for the proxy and copy flavours the PEs' command rings
// and the proxies' queues of the engine in pinned host memory (mapped, the
// kernel reaching them at system scope), and one ProxyForwarder on one
// ProxyThread per PE, made once at set-up, with two sinks each: the PE's
// queue of the engine (proxy), or the copy engine (copy: cudaMemcpyAsync
// of the bytes, then a one-thread kernel adding the signal, on the PE's
// own non-blocking stream, so that the add follows the bytes). Host code of
// the CUDA build.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "protocols/coll/cmd_ring.hpp"
#include "protocols/units.hpp"
#include "runtime/cuda/cuda_pe_kernels.hpp"
#include "runtime/cuda/cuda_proxy_forward.hpp"
#include "runtime/cuda/cuda_proxy_thread.hpp"

namespace xover::runtime {

class PeEngineState {
 public:
  PeEngineState() = default;
  ~PeEngineState() { release(); }
  PeEngineState(const PeEngineState&) = delete;
  PeEngineState& operator=(const PeEngineState&) = delete;

  /// Allocates and zeroes every queue, ring and counter of `pes` PEs over
  /// `heap` (device), its slices laid out as `layout`, on `device`, and
  /// starts the P proxy threads.
  /// @throws RuntimeError naming the CUDA call that failed.
  void allocate(std::uint32_t pes, std::byte* heap, const HeapLayout& layout, int device, cudaStream_t stream);
  /// Frees it all and stops the proxy threads (idempotent).
  void release();
  /// CudaPeGroup::set_posting.
  void set_posting(std::uint32_t posters, std::uint32_t batch);

  /// Before the launch: the engine's tally and the PEs' finished count
  /// zeroed; for the proxy and copy flavours, each proxy handed its
  /// exchange (P − 1 commands within `timeout`).
  void begin(PeFlavour flavour, Seconds timeout, cudaStream_t stream);
  /// The kernel's arguments for `flavour` around the group's.
  PeEngineArgs args(PeFlavour flavour, const PeGroupArgs& group) const;
  /// After the kernel: the proxies' results (and their streams' copies
  /// done) and, but for the copy flavour, the engine's tally against
  /// P (P − 1) requests taken and none refused; empty, or what was wrong.
  std::string end(PeFlavour flavour, cudaStream_t stream);
  /// Every queue, ring, cursor and counter zeroed again, the proxies'
  /// places with them, after an exchange that did not complete.
  void reset(cudaStream_t stream);

 private:
  void zero(cudaStream_t stream);

  std::uint32_t pes_ = 0;
  int device_ = 0;
  std::uint32_t posters_ = 0;
  std::uint32_t batch_ = kPeDoorbellBatch;
  HeapLayout layout_;
  std::uint64_t* queues_ = nullptr;         ///< device: the engine flavour's P queues
  EngineCursor* cursors_ = nullptr;         ///< device: P for the engine's queues, then P for the proxies'
  std::uint64_t* tally_ = nullptr;          ///< device
  std::uint32_t* finished_ = nullptr;       ///< device
  std::uint64_t* ring_counters_ = nullptr;  ///< device: 2 a PE
  std::byte* host_ = nullptr;               ///< pinned, mapped: P rings, then the proxies' P queues
  std::byte* host_on_device_ = nullptr;     ///< host_ as the kernel addresses it
  std::byte* heap_ = nullptr;               ///< the group's, not owned
  std::size_t host_bytes_ = 0;
  std::vector<CommandRing> rings_;
  std::vector<std::unique_ptr<ProxyForwarder>> forwarders_;
  std::vector<std::unique_ptr<ProxySink>> queue_sinks_;  ///< the proxy flavour's, a PE each
  std::vector<std::unique_ptr<ProxySink>> copy_sinks_;   ///< the copy flavour's, a PE each
  std::vector<cudaStream_t> copy_streams_;               ///< the copy flavour's, a PE each
  std::vector<std::unique_ptr<ProxyThread>> proxies_;
};

}  // namespace xover::runtime
