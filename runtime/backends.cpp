#include "runtime/backends.hpp"

#include <array>

#include "runtime/cuda/cuda_memory.hpp"
#include "runtime/cuda/cuda_transport.hpp"
#include "runtime/shm/shm_transport.hpp"
#include "runtime/tcp/tcp_options.hpp"
#include "runtime/tcp/tcp_transport.hpp"
#include "runtime/verbs/verbs_options.hpp"
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
void verbs_invalidate(Transport&, const void*, Bytes) {}
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
    Backend{.name = "sim",
            .summary = "SimGrid simulation of the scenario's platform (LogGP lanes)",
            .make = nullptr,
            .why_unavailable = simulator_unavailable,
            .describe = simulator_describe},
    Backend{.name = "shm",
            .summary = "shared memory on this node: mm rings, cross-memory attach",
            .make = make_shm_transport,
            .why_unavailable = nullptr,
            .describe = describe_shm},
    Backend{.name = "tcp",
            .summary = "TCP sockets, a lane per interface and connection",
            .make = make_tcp_transport,
            .why_unavailable = nullptr,
            .describe = describe_tcp,
            .options = tcp_option_list(),
            .read_options = read_tcp_options},
    Backend{.name = "verbs",
            .summary = "rdma-core verbs: an RC queue pair per port and peer, send/recv AMs, RDMA read/write",
            .make = make_verbs_transport,
            .why_unavailable = verbs_unavailable,
            .describe = describe_verbs,
            .options = verbs_option_list(),
            .read_options = read_verbs_options},
    Backend{.name = "cuda",
            .summary = "GPUs on this node: device memory mapped by CUDA IPC, device-initiated puts or a CPU proxy",
            .make = make_cuda_transport,
            .why_unavailable = cuda_unavailable,
            .describe = describe_cuda,
            .memory = {.type = MemType::Cuda, .on = "a GPU", .make = make_rank_device_memory},
            .device_alltoall = {.make = make_cuda_alltoall, .max_pes = kCudaAlltoallMaxPes}},
};

}  // namespace

std::string option_text(const OptionValues& values, std::span<const BackendOption> declared, std::string_view name) {
  if (const auto given = values.find(name); given != values.end())
    return given->second;
  for (const BackendOption& option : declared)
    if (option.name == name)
      return std::string(option.default_value);
  return "";
}

std::span<const Backend> backends() {
  return kBackends;
}

std::string device_alltoall_refusal(const Backend& backend, std::uint32_t pes) {
  return backend.device_alltoall.refusal(backend.name, pes);
}

const Backend* memory_backend(MemType type) {
  if (type == MemType::Host)
    return nullptr;
  for (const Backend& b : kBackends)
    if (b.memory.type == type)
      return &b;
  return nullptr;
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
