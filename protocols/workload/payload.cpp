#include "protocols/workload/payload.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

namespace xover {

Payload::Payload(Bytes size, bool phantom, DeviceMemory* device) : size_(size), phantom_(phantom) {
  if (phantom)
    return;
  bytes_ = HostBuffer(size);
  if (device) {
    device_bytes_ = device->alloc(size);
    if (!device_bytes_)
      throw std::runtime_error("cannot allocate " + std::to_string(size) + " bytes of device memory: " +
                               device->why());
    device_ = device;
  }
}

Payload::Payload(Payload&& other) noexcept
    : size_(other.size_),
      phantom_(other.phantom_),
      bytes_(std::move(other.bytes_)),
      device_(std::exchange(other.device_, nullptr)),
      device_bytes_(std::exchange(other.device_bytes_, nullptr)) {}

Payload::~Payload() {
  if (device_)
    device_->free(device_bytes_);
}

void Payload::fill(std::uint64_t seed, Rank sender, std::uint64_t seq) {
  if (phantom_)
    return;
  fill_payload(bytes_.data(), size_, seed, sender, seq);
  if (device_ && size_ > 0 && !device_->to_device(device_bytes_, bytes_.data(), size_))
    throw std::runtime_error("cannot write the payload into device memory: " + device_->why());
}

bool Payload::check(std::uint64_t seed, Rank sender, std::uint64_t seq) {
  if (phantom_)
    return true;
  if (device_ && size_ > 0 && !device_->to_host(bytes_.data(), device_bytes_, size_))
    return false;
  return first_wrong_byte(bytes_.data(), size_, seed, sender, seq) == size_;
}

}  // namespace xover
