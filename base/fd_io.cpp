#include "base/fd_io.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace xover {
namespace {

/// Calls `step(done)`, which moves what is left after `done` bytes and
/// returns how many it moved, until all `size` bytes are; false once a step
/// fails (other than EINTR) or moves nothing.
template <typename Step>
bool move_all(std::size_t size, Step step) {
  for (std::size_t done = 0; done < size;) {
    const ssize_t n = step(done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

bool write_all(int fd, std::span<const std::byte> bytes) {
  return move_all(bytes.size(), [&](std::size_t done) {
    ssize_t n = ::send(fd, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == ENOTSOCK)
      n = ::write(fd, bytes.data() + done, bytes.size() - done);
    return n;
  });
}

bool read_all(int fd, std::span<std::byte> bytes) {
  return move_all(bytes.size(), [&](std::size_t done) { return ::read(fd, bytes.data() + done, bytes.size() - done); });
}

std::string read_to_end(int fd) {
  std::string text;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return text;
    text.append(buffer, static_cast<std::size_t>(n));
  }
}

}  // namespace xover
