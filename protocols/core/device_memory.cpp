#include "protocols/core/device_memory.hpp"

#include <algorithm>

namespace xover {

std::byte* DeviceMemory::alloc(Bytes n) {
  std::byte* p = allocate(n);
  if (p) {
    const auto at = std::lower_bound(buffers_.begin(), buffers_.end(), p,
                                     [](const Buffer& b, const std::byte* q) { return b.base < q; });
    buffers_.insert(at, Buffer{p, n, next_id_++});
  }
  return p;
}

void DeviceMemory::free(std::byte* p) {
  const auto at = std::lower_bound(buffers_.begin(), buffers_.end(), p,
                                   [](const Buffer& b, const std::byte* q) { return b.base < q; });
  if (at == buffers_.end() || at->base != p)
    return;
  buffers_.erase(at);
  release(p);
}

const DeviceMemory::Buffer* DeviceMemory::find(const std::byte* p) const {
  const auto after = std::upper_bound(buffers_.begin(), buffers_.end(), p,
                                      [](const std::byte* q, const Buffer& b) { return q < b.base; });
  if (after == buffers_.begin())
    return nullptr;
  const Buffer& b = *std::prev(after);
  return static_cast<Bytes>(p - b.base) < b.size || (b.size == 0 && p == b.base) ? &b : nullptr;
}

bool DeviceMemory::owns(const void* p, Bytes n) const {
  const auto* at = static_cast<const std::byte*>(p);
  const Buffer* b = find(at);
  return b && n <= b->size - static_cast<Bytes>(at - b->base);
}

std::byte* DeviceMemory::staging(Bytes n) {
  if (staging_.size() < n)
    staging_.resize(n);
  return staging_.data();
}

}  // namespace xover
