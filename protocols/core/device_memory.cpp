#include "protocols/core/device_memory.hpp"

#include <algorithm>
#include <stdexcept>

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

DeviceMemory::~DeviceMemory() {
  drop_staging();
}

std::byte* DeviceMemory::staging(Bytes n) {
  if (staging_.size() < n)
    staging_.resize(n);
  return staging_.data();
}

Status DeviceMemory::copy_async(CopyKind kind, std::byte* to, const std::byte* from, Bytes n, Completion) {
  const bool copied = kind == CopyKind::ToHost ? to_host(to, from, n) : to_device(to, from, n);
  return copied ? Status::Ok : Status::Error;
}

std::byte* DeviceMemory::take_staging(Bytes n) {
  // The smallest free slot that holds n bytes, so that a large one stays
  // for a large fragment.
  Slot* best = nullptr;
  for (Slot& slot : slots_)
    if (!slot.taken && slot.size >= n && (!best || slot.size < best->size))
      best = &slot;
  if (!best) {
    std::byte* data = allocate_staging(std::max<Bytes>(n, 1));
    if (!data)
      return nullptr;
    best = &slots_.emplace_back(Slot{data, std::max<Bytes>(n, 1), false});
  }
  best->taken = true;
  return best->data;
}

void DeviceMemory::give_staging(std::byte* slot) {
  for (Slot& s : slots_)
    if (s.data == slot)
      s.taken = false;
}

std::size_t DeviceMemory::staging_taken() const {
  return static_cast<std::size_t>(std::count_if(slots_.begin(), slots_.end(), [](const Slot& s) { return s.taken; }));
}

void DeviceMemory::set_pipeline_depth(std::size_t depth) {
  if (depth == 0)
    throw std::invalid_argument("DeviceMemory: a pipeline depth of 0 would move no fragment");
  depth_ = depth;
}

std::byte* DeviceMemory::allocate_staging(Bytes n) {
  return new std::byte[n];
}

void DeviceMemory::release_staging(std::byte* slot, Bytes) {
  delete[] slot;
}

void DeviceMemory::drop_staging() {
  for (const Slot& slot : slots_)
    release_staging(slot.data, slot.size);
  slots_.clear();
}

}  // namespace xover
