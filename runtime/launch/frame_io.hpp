// Blocking frame I/O on a bootstrap socket, shared by the ranks' side
// (local_bootstrap.cpp) and the launcher's (launch.cpp): whole writes and
// reads that retry on EINTR and short counts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace xover::runtime::frame_io {

/// The most bytes one bootstrap frame may carry.
inline constexpr std::uint32_t kMaxFrame = 64U << 20;

/// Writes all of `bytes`; false when the socket is closed or fails.
bool write_all(int fd, std::span<const std::byte> bytes);
/// Reads exactly `bytes.size()` bytes; false on end of file or error.
bool read_all(int fd, std::span<std::byte> bytes);

inline void put_u32(std::byte* at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i)
    at[i] = static_cast<std::byte>(v >> (8 * i));
}
inline std::uint32_t get_u32(const std::byte* at) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i)
    v |= static_cast<std::uint32_t>(at[i]) << (8 * i);
  return v;
}

}  // namespace xover::runtime::frame_io
