#include "sim/sim_device_memory.hpp"

#include <cstring>
#include <new>

namespace xover::sim {

SimDeviceMemory::SimDeviceMemory(DeviceCopy figures, std::string node, std::function<void(Seconds)> busy)
    : figures_(figures), node_(std::move(node)), busy_(std::move(busy)) {}

std::byte* SimDeviceMemory::allocate(Bytes n) {
  return new (std::nothrow) std::byte[n == 0 ? 1 : n];
}

void SimDeviceMemory::release(std::byte* p) {
  delete[] p;
}

bool SimDeviceMemory::charge(BytesPerSecond bandwidth, std::string_view property, Bytes n) {
  if (!(bandwidth > 0))
    return failed("node '" + node_ + "' of the platform has no " + std::string(property) +
                  ": its ranks have no device memory to copy");
  busy_(figures_.stage_o + static_cast<double>(n) / bandwidth);
  return true;
}

bool SimDeviceMemory::to_host(std::byte* host, const std::byte* device, Bytes n) {
  if (!charge(figures_.stage_bw, "xover:stage_bw", n))
    return false;
  if (host && device && n)
    std::memcpy(host, device, n);
  return true;
}

bool SimDeviceMemory::to_device(std::byte* device, const std::byte* host, Bytes n) {
  return to_host(device, host, n);
}

bool SimDeviceMemory::copy_device(std::byte* to, const std::byte* from, Bytes n) {
  if (!charge(figures_.ipc_bw, "xover:ipc_bw", n))
    return false;
  if (to && from && n)
    std::memcpy(to, from, n);
  return true;
}

bool SimDeviceMemory::ipc_export(const std::byte* p, IpcBuffer& out) {
  const Buffer* buffer = find(p);
  if (!buffer)
    return failed("not a buffer of this rank's device memory");
  const auto address = reinterpret_cast<std::uintptr_t>(buffer->base);
  std::memcpy(out.handle.data(), &address, sizeof address);
  out.id = buffer->id;
  out.base = address;
  out.size = buffer->size;
  out.offset = static_cast<Bytes>(p - buffer->base);
  return true;
}

const std::byte* SimDeviceMemory::ipc_open(Rank, const IpcBuffer& buffer) {
  std::uintptr_t address = 0;
  std::memcpy(&address, buffer.handle.data(), sizeof address);
  return reinterpret_cast<const std::byte*>(address);
}

}  // namespace xover::sim
