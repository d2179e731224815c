// The cuda backend's probe and transport: the CUDA runtime asked in a
// child process (cuda_probe.hpp says why), its report read back.
#include <cuda_runtime.h>

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "base/child.hpp"
#include "runtime/cuda/cuda_probe.hpp"
#include "runtime/cuda/cuda_transport.hpp"
#include "runtime/shm/shm_transport.hpp"

namespace xover::runtime {
namespace {

/// What the runtime says, asked in this process (the child).
CudaProbe probe_here() {
  CudaProbe out;
  cudaDriverGetVersion(&out.driver_version);
  cudaRuntimeGetVersion(&out.runtime_version);
  int count = 0;
  if (const cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess) {
    out.error = cudaGetErrorString(e);
    return out;
  }
  out.ok = true;
  out.count = count;
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    CudaGpu g;
    if (cudaGetDeviceProperties(&prop, i) == cudaSuccess) {
      g.name = prop.name;
      g.capability = std::to_string(prop.major) + "." + std::to_string(prop.minor);
      g.memory = static_cast<std::int64_t>(prop.totalGlobalMem);
      g.sms = prop.multiProcessorCount;
    }
    char bus[32] = {};
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, i) == cudaSuccess)
      g.pci_bus = bus;
    out.gpus.push_back(std::move(g));
  }
  return out;
}

/// The probe in a child of its own (cuda_probe.hpp says why); a child that
/// could not start or did not finish gives a report that says so.
CudaProbe probe_in_child() {
  std::string why;
  try {
    const std::string report = in_child([] { return encode_probe(probe_here()); });
    const std::optional<std::string> error = child_error(report);
    if (!error)
      return decode_probe(report);
    why = *error;
  } catch (const std::runtime_error& e) {
    why = e.what();
  }
  std::replace(why.begin(), why.end(), '\n', ' ');
  return decode_probe("error the probe process failed: " + why + "\nversions 0 0\n");
}

const CudaProbe& probe() {
  static const CudaProbe found = probe_in_child();
  return found;
}

}  // namespace

std::string cuda_unavailable() {
  return probe_unavailable(probe());
}

BackendInfo describe_cuda() {
  return probe_info(probe());
}

std::unique_ptr<Transport> make_cuda_transport(Bootstrap& boot, const RuntimeOptions& options) {
  if (const std::string why = cuda_unavailable(); !why.empty())
    throw RuntimeError("cuda: " + why);
  return make_shm_transport(boot, options);
}

}  // namespace xover::runtime
