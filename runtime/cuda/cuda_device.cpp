// The cuda backend's probe and transport: the CUDA runtime asked in a
// child process (cuda_probe.hpp says why), its report read back.
#include <cuda_runtime.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

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

CudaProbe probe_in_child() {
  int fds[2];
  if (pipe(fds) != 0)
    return decode_probe("error the probe could not start: pipe: " + std::string(std::strerror(errno)) +
                        "\nversions 0 0\n");
  const pid_t child = fork();
  if (child < 0) {
    close(fds[0]);
    close(fds[1]);
    return decode_probe("error the probe could not start: fork: " + std::string(std::strerror(errno)) +
                        "\nversions 0 0\n");
  }
  if (child == 0) {
    close(fds[0]);
    const std::string report = encode_probe(probe_here());
    std::size_t done = 0;
    while (done < report.size()) {
      const ssize_t n = write(fds[1], report.data() + done, report.size() - done);
      if (n <= 0)
        break;
      done += static_cast<std::size_t>(n);
    }
    _exit(0);
  }
  close(fds[1]);
  std::string report;
  char buffer[4096];
  while (true) {
    const ssize_t n = read(fds[0], buffer, sizeof buffer);
    if (n > 0)
      report.append(buffer, static_cast<std::size_t>(n));
    else if (n == 0 || errno != EINTR)
      break;
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status))
    return decode_probe("error the probe process died of signal " + std::to_string(WTERMSIG(status)) +
                        "\nversions 0 0\n");
  return decode_probe(report);
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
