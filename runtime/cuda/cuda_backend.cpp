// The cuda backend's row of the backend table (runtime/backends.hpp): the
// transport, the GPU memory it offers for payloads on any hardware backend
// (cuda_memory.hpp) and its alltoall engine (cuda_alltoall.hpp). In a build
// without the CUDA Toolkit the row stays and says why it cannot run (not
// compiled in); what it would offer then throws that reason, and is never
// reached through the table, which asks why_unavailable first.
#include "runtime/backends.hpp"
#include "runtime/cuda/cuda_memory.hpp"
#include "runtime/cuda/cuda_transport.hpp"

namespace xover::runtime {
namespace {

#ifdef XOVER_WITH_CUDA
constexpr auto make = make_cuda_transport;
constexpr auto why_unavailable = cuda_unavailable;
constexpr auto describe = describe_cuda;
constexpr auto make_memory = make_rank_device_memory;
constexpr auto make_alltoall = make_cuda_alltoall;
#else
std::string why_unavailable() {
  return std::string(kNotCompiledIn) +
         ": this build has no CUDA Toolkit (install it, then configure again with XOVER_WITH_CUDA AUTO or ON)";
}
[[noreturn]] void refuse() {
  throw RuntimeError("cuda: " + why_unavailable());
}
std::unique_ptr<Transport> make(Bootstrap&, const RuntimeOptions&) {
  refuse();
}
constexpr BackendInfo (*describe)() = nullptr;
std::unique_ptr<DeviceMemory> make_memory(Bootstrap&) {
  refuse();
}
std::unique_ptr<DeviceAlltoall> make_alltoall(Transport&, Worker&, Bytes, std::uint64_t) {
  refuse();
}
#endif

}  // namespace

// extern: the table in runtime/backends.cpp lists it.
extern constinit const Backend cuda_backend{
    .name = "cuda",
    .summary = "GPUs on this node: device memory mapped by CUDA IPC, device-initiated puts or a CPU proxy",
    .make = make,
    .why_unavailable = why_unavailable,
    .describe = describe,
    .memory = {.type = MemType::Cuda, .on = "a GPU", .make = make_memory},
    .device_alltoall = {.make = make_alltoall, .max_pes = kCudaAlltoallMaxPes},
};

}  // namespace xover::runtime
