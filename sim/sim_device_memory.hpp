// A simulated rank's device memory (protocols/core/device_memory.hpp): host
// bytes standing for the device's, every copy charged to the rank's CPU in
// simulated time at its node's figures (`xover:stage_o`, `xover:stage_bw`,
// `xover:ipc_bw`), so that the memory-type protocols move and check real
// bytes in simulation as they do on a GPU. All ranks of a simulation share
// one process, so an IPC handle is the allocation's address and size.
#pragma once

#include <functional>
#include <string>

#include "protocols/core/device_memory.hpp"

namespace xover::sim {

class SimDeviceMemory final : public DeviceMemory {
 public:
  /// `busy` charges the rank's CPU; `node` names its node in messages.
  SimDeviceMemory(DeviceCopy figures, std::string node, std::function<void(Seconds)> busy);

  MemType type() const override { return MemType::Cuda; }
  bool to_host(std::byte* host, const std::byte* device, Bytes n) override;
  bool to_device(std::byte* device, const std::byte* host, Bytes n) override;
  bool copy_device(std::byte* to, const std::byte* from, Bytes n) override;
  /// The path's ipc_bw decides; a simulated rank can map any peer's buffer.
  bool ipc_reachable(Rank) const override { return true; }
  bool ipc_export(const std::byte* p, IpcBuffer& out) override;
  const std::byte* ipc_open(Rank peer, const IpcBuffer& buffer) override;
  /// Zeros: the platform gives a simulated path its figures.
  DeviceCopy figures() const override { return {}; }

 protected:
  std::byte* allocate(Bytes n) override;
  void release(std::byte* p) override;

 private:
  bool charge(BytesPerSecond bandwidth, std::string_view property, Bytes n);

  DeviceCopy figures_;
  std::string node_;
  std::function<void(Seconds)> busy_;
};

}  // namespace xover::sim
