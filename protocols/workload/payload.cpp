#include "protocols/workload/payload.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

namespace xover {
namespace {

std::uint64_t mix(std::uint64_t x) {
  // splitmix64's finaliser: a good hash of a 64-bit word.
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// The eight bytes of message `seq` from `sender` around `offset`.
std::uint64_t payload_word(std::uint64_t seed, Rank sender, std::uint64_t seq, Bytes offset) {
  return mix(seed ^ (static_cast<std::uint64_t>(sender) << 56) ^ mix(seq) ^ (offset >> 3));
}

}  // namespace

std::byte payload_byte(std::uint64_t seed, Rank sender, std::uint64_t seq, Bytes offset) {
  return static_cast<std::byte>(payload_word(seed, sender, seq, offset) >> (8 * (offset & 7)));
}

void fill_payload(std::byte* to, Bytes n, std::uint64_t seed, Rank sender, std::uint64_t seq) {
  for (Bytes i = 0; i < n; i += 8) {
    const std::uint64_t word = payload_word(seed, sender, seq, i);
    for (Bytes j = i; j < std::min(i + 8, n); ++j)
      to[j] = static_cast<std::byte>(word >> (8 * (j & 7)));
  }
}

Bytes first_wrong_byte(const std::byte* at, Bytes n, std::uint64_t seed, Rank sender, std::uint64_t seq) {
  for (Bytes i = 0; i < n; i += 8) {
    const std::uint64_t word = payload_word(seed, sender, seq, i);
    for (Bytes j = i; j < std::min(i + 8, n); ++j)
      if (at[j] != static_cast<std::byte>(word >> (8 * (j & 7))))
        return j;
  }
  return n;
}

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
