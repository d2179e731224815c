// Frame I/O on a bootstrap socket, shared by the ranks' side
// (local_bootstrap.cpp) and the launcher's (launch.cpp): the frame's
// integers, and the launcher's reader of what a rank sends. Whole writes and
// reads are base/fd_io.hpp's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace xover::runtime::frame_io {

/// The most bytes one bootstrap frame may carry.
inline constexpr std::uint32_t kMaxFrame = 64U << 20;

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

/// The launcher's side of one rank's bootstrap socket: the bytes as they
/// are read, the frames as they become whole. A frame is u8 kind ('G' an
/// allgather contribution, 'R' a report), u32 length, then the bytes.
class FrameReader {
 public:
  struct Frame {
    char kind = 0;
    std::vector<std::byte> bytes;
  };
  enum class Next {
    None,       ///< no whole frame yet
    Whole,      ///< `frame` holds the next one
    Malformed,  ///< an unknown kind or a length over kMaxFrame: the rank is talking nonsense
  };

  /// Appends bytes read from the socket.
  void add(std::span<const std::byte> bytes) { input_.insert(input_.end(), bytes.begin(), bytes.end()); }
  /// Takes the next whole frame into `frame`.
  Next next(Frame& frame) {
    if (input_.size() < kHead)
      return Next::None;
    const char kind = static_cast<char>(input_[0]);
    const std::uint32_t length = get_u32(input_.data() + 1);
    if ((kind != 'G' && kind != 'R') || length > kMaxFrame)
      return Next::Malformed;
    if (input_.size() < kHead + std::size_t{length})
      return Next::None;
    const auto body = input_.begin() + kHead;
    frame.kind = kind;
    frame.bytes.assign(body, body + length);
    input_.erase(input_.begin(), body + length);
    return Next::Whole;
  }

 private:
  static constexpr std::size_t kHead = 5;
  std::vector<std::byte> input_;  ///< bytes read, not yet a whole frame
};

}  // namespace xover::runtime::frame_io
