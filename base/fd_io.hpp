// Whole reads and writes on a file descriptor, retrying on EINTR and short
// counts: the launcher's bootstrap sockets, a child's report through its
// pipe.
#pragma once

#include <cstddef>
#include <span>
#include <string>

namespace xover {

/// Writes all of `bytes` to `fd`; false once it fails or its reader has
/// gone. On a socket a reader gone raises no SIGPIPE (MSG_NOSIGNAL).
bool write_all(int fd, std::span<const std::byte> bytes);

/// Reads exactly `bytes.size()` bytes; false on end of file or error.
bool read_all(int fd, std::span<std::byte> bytes);

/// Reads until end of file (or an error) and returns what came.
std::string read_to_end(int fd);

}  // namespace xover
