// A workload's message buffers, written with the payload pattern
// (core/payload_pattern.hpp) and checked byte by byte.
#pragma once

#include <cstddef>
#include <cstdint>

#include "protocols/core/device_memory.hpp"
#include "protocols/core/payload_pattern.hpp"
#include "protocols/core/host_memory.hpp"
#include "protocols/core/transport.hpp"
#include "protocols/units.hpp"

namespace xover {

/// Buffers for one message size, filled and checked with payload_byte. A
/// phantom payload has a size and no bytes: it fills and checks nothing.
/// Given a DeviceMemory, the buffer lives in device memory: written from a
/// host copy by fill() and copied back into it by check(), both outside
/// the timed region of every workload.
class Payload {
 public:
  /// @throws std::runtime_error when `device` cannot allocate the buffer.
  Payload(Bytes size, bool phantom, DeviceMemory* device = nullptr);
  Payload(Payload&& other) noexcept;
  Payload& operator=(Payload&&) = delete;
  Payload(const Payload&) = delete;
  Payload& operator=(const Payload&) = delete;
  ~Payload();

  ConstBuffer send_buffer() const { return {data(), size_}; }
  MutableBuffer recv_buffer() { return {data(), size_}; }

  /// Writes message `seq` from `sender`.
  void fill(std::uint64_t seed, Rank sender, std::uint64_t seq);
  /// True when every byte is what `sender` wrote into message `seq`.
  bool check(std::uint64_t seed, Rank sender, std::uint64_t seq);

 private:
  std::byte* data() const {
    return phantom_ ? nullptr : device_bytes_ ? device_bytes_ : bytes_.data();
  }

  Bytes size_;
  bool phantom_;
  HostBuffer bytes_;                    ///< the bytes (memory xover owns), or their host copy on a device
  DeviceMemory* device_ = nullptr;
  std::byte* device_bytes_ = nullptr;   ///< the device buffer, or null
};

}  // namespace xover
