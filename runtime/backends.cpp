#include "runtime/backends.hpp"

#include <array>

#include "runtime/shm/shm_transport.hpp"
#include "runtime/tcp/tcp_transport.hpp"

namespace xover::runtime {
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
};

}  // namespace

std::span<const Backend> backends() {
  return kBackends;
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
