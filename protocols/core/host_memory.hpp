// Host memory xover owns: page-aligned blocks from one pool per process
// that never gives its pages back to the system. A buffer freed goes back
// to the pool and a later one of about its size takes it again, on the
// same pages. From half a huge page (1 MiB) on, a block is whole huge pages
// (2 MiB), aligned, advised for transparent huge pages: cross-memory attach
// moves them at several times the speed of small pages.
//
// Why: a transport that pins pages to register memory (verbs: ibv_reg_mr)
// may keep a registration after its use only while the addresses keep
// their pages. Memory from malloc, new or mmap may be unmapped and mapped
// again under the same addresses (glibc's free of a large chunk, ASan,
// jemalloc, tcmalloc, a program's own munmap) without the registration
// knowing: a cached registration would then move the old pages' bytes. The
// pool's memory never is, so host_memory_owned() tells a transport which
// registrations it may keep (Transport::reg_may_outlive_use); everything
// else is registered for its one use. The workloads' buffers come from
// here.
//
//   HostBuffer buffer(1 << 20);                // 1 MiB, zeroed, page-aligned
//   host_memory_owned(buffer.data(), 4096);     // true
//
// Thread-safe.
#pragma once

#include <cstddef>
#include <span>

#include "protocols/units.hpp"

namespace xover {

/// From this size on, a HostBuffer lies on huge pages (where the kernel
/// gives transparent huge pages): a block of whole 2 MiB pages.
inline constexpr Bytes kHugeBufferFrom = Bytes{1} << 20;

class HostBuffer {
 public:
  HostBuffer() = default;
  /// `size` bytes, zeroed, from the pool (a new block when none is free of
  /// at least `size` and at most twice that, rounded up to pages, or to
  /// huge pages from half of one on).
  /// @throws std::bad_alloc when the system has no more memory to map.
  explicit HostBuffer(Bytes size);
  HostBuffer(HostBuffer&& other) noexcept;
  HostBuffer& operator=(HostBuffer&& other) noexcept;
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  /// Gives the block back to the pool (never to the system).
  ~HostBuffer();

  std::byte* data() const { return data_; }
  Bytes size() const { return size_; }
  std::span<std::byte> bytes() const { return {data_, size_}; }

 private:
  std::byte* data_ = nullptr;
  Bytes size_ = 0;
  Bytes block_ = 0;  ///< the block's length, pages included
};

/// True when [base, base + size) lies inside one block of the pool: memory
/// whose pages stay mapped for the rest of the process.
bool host_memory_owned(const void* base, Bytes size);

}  // namespace xover
