// The cuda backend: ranks on one node whose GPU work (the alltoall's
// device-initiated and proxy flavours, cuda_alltoall.hpp) runs on device
// memory mapped between them by CUDA IPC. Host memory, active messages and
// set-up go over the shared-memory transport, as UCX pairs its cuda_copy
// and cuda_ipc transports with posix and cma: the Transport a rank gets is
// shm's, made once this machine is known to have a GPU.
// runtime/cuda/README.md has the file map and says what has run where.
//
//   if (const std::string why = cuda_unavailable(); !why.empty()) ... exit 2 with why
//   auto transport = make_cuda_transport(boot, options);
//   auto pe = make_cuda_alltoall(*transport, worker, max_size, seed);   // the alltoall's GPU PE
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "protocols/coll/device_alltoall.hpp"
#include "runtime/backend_info.hpp"
#include "runtime/bootstrap.hpp"

namespace xover::runtime {

/// The most PEs of a GPU alltoall: a PE's kernel puts to each peer from one
/// thread of one block.
inline constexpr std::uint32_t kCudaAlltoallMaxPes = 1024;

/// Collective over `boot`: the shared-memory transport between the ranks.
/// @throws RuntimeError "cuda: no CUDA device: ..." where there is no GPU.
std::unique_ptr<Transport> make_cuda_transport(Bootstrap& boot, const RuntimeOptions& options);

/// Collective over the transport's ranks: this rank's GPU PE of the
/// alltoall (CudaAlltoall, cuda_alltoall.hpp), the backend's engine for
/// device memory (its row's device_alltoall).
/// @throws RuntimeError naming the CUDA call and its error.
std::unique_ptr<DeviceAlltoall> make_cuda_alltoall(Transport& transport, Worker& worker, Bytes max_size,
                                                   std::uint64_t seed);

/// Why this machine cannot run the cuda backend: "no CUDA device:
/// cudaGetDeviceCount: " and the runtime's own error string, or "0
/// devices"; empty when a GPU answers. Asked once per process, in a child
/// process, so that the caller has not initialized CUDA when it forks.
std::string cuda_unavailable();

/// What `xover info` says: the runtime's and driver's versions and each
/// GPU (name, compute capability, memory, multiprocessors, PCI bus), or the
/// runtime's error.
BackendInfo describe_cuda();

}  // namespace xover::runtime
