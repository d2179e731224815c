#include "protocols/core/host_memory.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <new>
#include <utility>

namespace xover {
namespace {

/// Every block ever mapped (by start, never removed) and the free ones (by
/// length).
struct Pool {
  std::mutex mutex;
  std::map<std::uintptr_t, Bytes> blocks;
  std::multimap<Bytes, std::byte*> free;
};

Pool& pool() {
  static Pool* p = new Pool;  // never destroyed: buffers may outlive static destruction
  return *p;
}

Bytes page_size() {
  static const auto page = static_cast<Bytes>(sysconf(_SC_PAGESIZE));
  return page;
}

/// A transparent huge page on x86-64 and on arm64 with 4 KiB pages.
constexpr Bytes kHugePage = Bytes{2} << 20;

static_assert(kHugeBufferFrom == kHugePage / 2, "a buffer on huge pages wastes at most half its block");

/// The block that holds `size` bytes: whole pages, or, from
/// kHugeBufferFrom on, whole huge pages.
Bytes block_for(Bytes size) {
  const Bytes unit = size >= kHugeBufferFrom ? kHugePage : page_size();
  return std::max<Bytes>(unit, (size + unit - 1) / unit * unit);
}

/// A new block of `length` bytes; from a huge page on, huge-page aligned
/// and advised for huge pages. Cross-memory attach pins and copies a
/// message page by page: on this project's VMs a 4 MiB process_vm_readv
/// between two ranks' huge pages took a third of the time it took between
/// 4 KiB pages (bench/README.md). The advice is a hint: where transparent
/// huge pages are off, the block has small pages.
std::byte* map_block(Bytes length) {
  const bool huge = length >= kHugePage;
  const Bytes slack = huge ? kHugePage : 0;
  void* mapped = mmap(nullptr, length + slack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED)
    throw std::bad_alloc();
  auto* start = static_cast<std::byte*>(mapped);
  if (!huge)
    return start;
  const auto at = reinterpret_cast<std::uintptr_t>(start);
  const Bytes head = (kHugePage - at % kHugePage) % kHugePage;
  if (head)
    munmap(start, head);
  if (slack - head)
    munmap(start + head + length, slack - head);
  madvise(start + head, length, MADV_HUGEPAGE);
  return start + head;
}

}  // namespace

HostBuffer::HostBuffer(Bytes size) : size_(size) {
  const Bytes want = block_for(size);
  Pool& p = pool();
  {
    const std::lock_guard lock(p.mutex);
    const auto it = p.free.lower_bound(want);
    if (it != p.free.end() && it->first <= 2 * want) {
      block_ = it->first;
      data_ = it->second;
      p.free.erase(it);
    }
  }
  if (data_) {
    std::memset(data_, 0, size);
    return;
  }
  data_ = map_block(want);
  block_ = want;
  const std::lock_guard lock(p.mutex);
  p.blocks.emplace(reinterpret_cast<std::uintptr_t>(data_), want);
}

HostBuffer::HostBuffer(HostBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)),
      block_(std::exchange(other.block_, 0)) {}

HostBuffer& HostBuffer::operator=(HostBuffer&& other) noexcept {
  if (this != &other) {
    HostBuffer gone(std::move(*this));
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    block_ = std::exchange(other.block_, 0);
  }
  return *this;
}

HostBuffer::~HostBuffer() {
  if (!data_)
    return;
  Pool& p = pool();
  const std::lock_guard lock(p.mutex);
  p.free.emplace(block_, data_);
}

bool host_memory_owned(const void* base, Bytes size) {
  const auto start = reinterpret_cast<std::uintptr_t>(base);
  Pool& p = pool();
  const std::lock_guard lock(p.mutex);
  auto it = p.blocks.upper_bound(start);
  if (it == p.blocks.begin())
    return false;
  --it;
  return start >= it->first && start - it->first <= it->second && size <= it->second - (start - it->first);
}

}  // namespace xover
