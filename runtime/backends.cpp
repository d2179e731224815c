#include "runtime/backends.hpp"

#include <array>

namespace xover::runtime {

// The rows, each defined in its backend's folder (shm/shm_backend.cpp, ...;
// the simulator's in sim_backend.cpp).
extern const Backend sim_backend;
extern const Backend shm_backend;
extern const Backend tcp_backend;
extern const Backend verbs_backend;
extern const Backend cuda_backend;

namespace {

/// In the order --help lists them: the simulator first.
const std::array kBackends{
    &sim_backend,
    &shm_backend,
    &tcp_backend,
    &verbs_backend,
    &cuda_backend,
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

std::span<const Backend* const> backends() {
  return kBackends;
}

std::string device_alltoall_refusal(const Backend& backend, std::uint32_t pes) {
  return backend.device_alltoall.refusal(backend.name, pes);
}

const Backend* memory_backend(MemType type) {
  if (type == MemType::Host)
    return nullptr;
  for (const Backend* b : kBackends)
    if (b->memory.type == type)
      return b;
  return nullptr;
}

const Backend* find_backend(std::string_view name) {
  for (const Backend* b : kBackends)
    if (b->name == name)
      return b;
  return nullptr;
}

std::string backend_names() {
  std::string out;
  for (const Backend* b : kBackends)
    out += (out.empty() ? "" : ", ") + std::string(b->name);
  return out;
}

std::string compiled_backend_names() {
  std::string out;
  for (const Backend* b : kBackends)
    if (b->compiled_in())
      out += (out.empty() ? "" : ", ") + std::string(b->name);
  return out;
}

}  // namespace xover::runtime
