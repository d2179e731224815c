// What the CUDA runtime says of this machine, and what the cuda backend
// makes of it, without the runtime: the probe runs in a child process
// (cuda_device.cpp), because a process that has initialized CUDA cannot
// use it in the children it forks, and the launcher forks the ranks. The
// child writes its findings as text lines; the parent reads them here.
//
//   report   line 1: "count N" or "error TEXT" (cudaGetDeviceCount)
//            line 2: "versions DRIVER RUNTIME" (cudaDriverGetVersion, cudaRuntimeGetVersion)
//            then one line per GPU: "gpu NAME|MAJOR.MINOR|BYTES|SMS|PCI BUS ID"
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/backend_info.hpp"

namespace xover::runtime {

/// One GPU as the runtime describes it.
struct CudaGpu {
  std::string name;           ///< "NVIDIA H100 80GB HBM3"
  std::string capability;     ///< compute capability, "9.0"
  std::int64_t memory = 0;    ///< global memory, bytes
  std::int64_t sms = 0;       ///< multiprocessors
  std::string pci_bus;        ///< "0000:18:00.0"
};

/// What the probe found.
struct CudaProbe {
  bool ok = false;            ///< cudaGetDeviceCount succeeded
  int count = 0;              ///< GPUs it counted
  std::string error;          ///< the runtime's own error string, when !ok
  int driver_version = 0;     ///< 13000 for 13.0; 0 when no driver answered
  int runtime_version = 0;
  std::vector<CudaGpu> gpus;
};

/// The probe's findings as the child writes them.
std::string encode_probe(const CudaProbe& probe);
/// The child's report read back. A report that is not one (a child that
/// died, a line that does not parse) gives !ok and says so in `error`.
CudaProbe decode_probe(std::string_view report);

/// Why the cuda backend cannot run where `probe` was taken, empty when it
/// can: "no CUDA device: cudaGetDeviceCount: <the runtime's error>", or
/// "no CUDA device: cudaGetDeviceCount: 0 devices".
std::string probe_unavailable(const CudaProbe& probe);

/// What `xover info` says: the versions and each GPU, or the error.
BackendInfo probe_info(const CudaProbe& probe);

/// "13.0" for 13000, as CUDA encodes versions (1000 × major + 10 × minor).
std::string cuda_version_text(int version);

}  // namespace xover::runtime
