#include "runtime/backends.hpp"

#include <array>

#include "runtime/cuda/cuda_memory.hpp"
#include "runtime/cuda/cuda_transport.hpp"
#include "runtime/shm/shm_transport.hpp"
#include "runtime/tcp/tcp_transport.hpp"
#include "runtime/verbs/verbs_transport.hpp"

namespace xover::runtime {

#ifndef XOVER_WITH_VERBS
// The verbs backend's two functions (verbs_transport.hpp) where the build
// found no libibverbs: its row stays, and says so.
std::unique_ptr<Transport> make_verbs_transport(Bootstrap&, const RuntimeOptions&) {
  throw RuntimeError("verbs: not compiled in");
}
std::string verbs_unavailable() {
  return "not compiled in: this build has no libibverbs (install libibverbs-dev, then configure again with XOVER_VERBS "
         "on)";
}
BackendInfo describe_verbs() {
  return {};
}
#endif

#ifndef XOVER_WITH_CUDA
// The cuda backend's functions (cuda_transport.hpp) where the build found
// no CUDA Toolkit: its row stays, and says so.
std::unique_ptr<Transport> make_cuda_transport(Bootstrap&, const RuntimeOptions&) {
  throw RuntimeError("cuda: not compiled in");
}
std::string cuda_unavailable() {
  return std::string(kNotCompiledIn) +
         ": this build has no CUDA Toolkit (install it, then configure again with XOVER_WITH_CUDA AUTO or ON)";
}
BackendInfo describe_cuda() {
  return {};
}
std::unique_ptr<DeviceAlltoall> make_cuda_alltoall(Transport&, Worker&, Bytes, std::uint64_t) {
  throw RuntimeError("cuda: not compiled in");
}
std::unique_ptr<DeviceMemory> make_cuda_memory(Rank, std::vector<bool>) {
  throw RuntimeError("cuda: not compiled in");
}
#endif

namespace {

std::string simulator_unavailable() {
#ifdef XOVER_WITH_SIMGRID
  return "";
#else
  return std::string(kNotCompiledIn) + ": this build has no SimGrid (configured with XOVER_WITH_SIMGRID=OFF)";
#endif
}

BackendInfo simulator_describe() {
  BackendInfo info;
#ifdef XOVER_WITH_SIMGRID
  info.add("simgrid", std::string(XOVER_SIMGRID_VERSION));
#endif
  return info;
}

const std::array kBackends{
    Backend{"sim", "SimGrid simulation of the scenario's platform (LogGP lanes)", nullptr, simulator_unavailable,
            simulator_describe},
    Backend{"shm", "shared memory on this node: mm rings, cross-memory attach", make_shm_transport, nullptr,
            describe_shm},
    Backend{"tcp", "TCP sockets, a lane per interface and connection", make_tcp_transport, nullptr, describe_tcp},
    Backend{"verbs", "rdma-core verbs: an RC queue pair per port and peer, send/recv AMs, RDMA read/write",
            make_verbs_transport, verbs_unavailable, describe_verbs},
    Backend{"cuda", "GPUs on this node: device memory mapped by CUDA IPC, device-initiated puts or a CPU proxy",
            make_cuda_transport, cuda_unavailable, describe_cuda, make_cuda_alltoall, kCudaAlltoallMaxPes},
};

}  // namespace

std::span<const Backend> backends() {
  return kBackends;
}

std::string device_alltoall_refusal(const Backend& backend, std::uint32_t pes) {
  if (!backend.device_alltoall || backend.device_alltoall_max_pes == 0 || pes <= backend.device_alltoall_max_pes)
    return "";
  return "the " + std::string(backend.name) + " backend's device alltoall runs 2 to " +
         std::to_string(backend.device_alltoall_max_pes) + " PEs, not " + std::to_string(pes);
}

const Backend* find_backend(std::string_view name) {
  for (const Backend& b : kBackends)
    if (b.name == name)
      return &b;
  return nullptr;
}

std::string backend_names() {
  std::string out;
  for (const Backend& b : kBackends)
    out += (out.empty() ? "" : ", ") + std::string(b.name);
  return out;
}

std::string compiled_backend_names() {
  std::string out;
  for (const Backend& b : kBackends)
    if (b.compiled_in())
      out += (out.empty() ? "" : ", ") + std::string(b.name);
  return out;
}

}  // namespace xover::runtime
