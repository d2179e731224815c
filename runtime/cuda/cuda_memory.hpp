// A rank's GPU memory (protocols/core/device_memory.hpp) through the CUDA
// runtime, for payloads in device memory (<payload memory="cuda"/>) on any
// hardware backend: cudaMalloc'd buffers; copies on its own non-blocking
// stream, either waited for (to_host, to_device, copy_device) or started
// and completed by an event recorded behind them, queried from progress()
// and never waited for (copy_async, UCX's cuda_copy); staging slots in
// pinned host memory; CUDA IPC handles exported per allocation and peer
// mappings opened once and kept (UCX's cuda_ipc). None of the asynchronous
// copies has run on a GPU.
#pragma once

#include <map>
#include <memory>
#include <vector>

#include "protocols/core/device_memory.hpp"
#include "runtime/bootstrap.hpp"
#include "runtime/cuda/cuda_ipc_cache.hpp"

namespace xover::runtime {

class CudaMemory final : public DeviceMemory {
 public:
  /// On GPU `device`, mapping the buffers of the ranks `same_node` marks
  /// (by rank); measures the copy figures (figures()).
  /// @throws RuntimeError naming the CUDA call and its error.
  CudaMemory(int device, std::vector<bool> same_node);
  ~CudaMemory() override;
  CudaMemory(const CudaMemory&) = delete;
  CudaMemory& operator=(const CudaMemory&) = delete;

  MemType type() const override { return MemType::Cuda; }
  bool to_host(std::byte* host, const std::byte* device, Bytes n) override;
  bool to_device(std::byte* device, const std::byte* host, Bytes n) override;
  bool copy_device(std::byte* to, const std::byte* from, Bytes n) override;
  bool ipc_reachable(Rank peer) const override { return peer < same_node_.size() && same_node_[peer]; }
  bool ipc_export(const std::byte* p, IpcBuffer& out) override;
  const std::byte* ipc_open(Rank peer, const IpcBuffer& buffer) override;
  std::byte* staging(Bytes n) override;
  /// cudaMemcpyAsync on this object's stream, then an event recorded
  /// behind it (from a pool of events made once, without timing).
  Status copy_async(CopyKind kind, std::byte* to, const std::byte* from, Bytes n, Completion done) override;
  /// Queries the events in the order they were recorded (one stream: its
  /// copies complete in that order), up to the first not yet reached.
  std::size_t progress() override;
  std::size_t copies_in_flight() const override { return in_flight_.size(); }
  DeviceCopy figures() const override { return figures_; }

 protected:
  std::byte* allocate(Bytes n) override;
  void release(std::byte* p) override;
  /// Pinned (cudaMallocHost): a started copy from or to pageable memory
  /// would not be asynchronous.
  std::byte* allocate_staging(Bytes n) override;
  void release_staging(std::byte* slot, Bytes n) override;

 private:
  bool copy(void* to, const void* from, Bytes n, int kind, const char* call);
  void measure();

  int device_;
  std::vector<bool> same_node_;
  DeviceCopy figures_;
  void* stream_ = nullptr;                 ///< the copies' cudaStream_t, non-blocking
  void* get_address_range_ = nullptr;      ///< the driver's cuMemGetAddressRange
  void* get_pointer_attribute_ = nullptr;  ///< the driver's cuPointerGetAttribute
  std::byte* staging_ = nullptr;  ///< pinned host memory
  Bytes staging_size_ = 0;
  /// A copy started and its event (a cudaEvent_t), not yet seen complete.
  struct InFlight {
    void* event = nullptr;
    Completion done;
  };
  std::vector<InFlight> in_flight_;  ///< in the order recorded
  std::vector<void*> spare_events_;
  std::map<const std::byte*, IpcBuffer::Handle> exported_;  ///< by the driver's allocation base
  /// Peers' allocations mapped here (cuda_ipc_cache.hpp).
  IpcMappings opened_;
  const std::byte* map(const IpcBuffer& buffer);
};

/// This rank's GPU memory for payloads in device memory: GPU (local rank)
/// mod the GPUs on the node, IPC toward the ranks `same_node` marks.
/// @throws RuntimeError naming the failing CUDA call.
std::unique_ptr<DeviceMemory> make_cuda_memory(Rank local_rank, std::vector<bool> same_node);

/// Collective over `boot`: this rank's GPU memory, on the GPU of its rank
/// among the ranks of its node (by host name), mapping the buffers of those
/// ranks through IPC; the ranks make theirs one at a time, so that each
/// measures its copies alone (cuda_rank_memory.cpp).
/// @throws RuntimeError as make_cuda_memory.
std::unique_ptr<DeviceMemory> make_rank_device_memory(Bootstrap& boot);

}  // namespace xover::runtime
