// Harness: the bootstrap frames between the local launcher and its ranks
// (runtime/launch/frame_io.hpp, local_bootstrap.cpp, launch.cpp).
//
// Input: u8 ranks (1 + r % 8), u8 chunk (1 + c bytes), then a byte stream
// read both ways:
//   - as what a rank sends its launcher: fed `chunk` bytes at a time to
//     frame_io::FrameReader, the launcher's reader, which cuts it into
//     frames;
//   - as the launcher's answer to a collective: written into one end of a
//     socket pair, whose other end a LocalBootstrap of that many ranks
//     reads in allgather().
// Checks: the reader gives only known kinds, lengths within kMaxFrame and
// no more bytes than it was fed, and says when a header is malformed;
// allgather() returns one blob per rank within kMaxFrame, made of bytes
// that were sent, or throws RuntimeError.
#include <sys/socket.h>
#include <unistd.h>

#include <vector>

#include "fuzz/harness.hpp"
#include "runtime/launch/frame_io.hpp"
#include "runtime/launch/local_bootstrap.hpp"

namespace {

using namespace xover;
using namespace xover::runtime;
using xover::fuzz::check;

void launcher_side(std::span<const std::byte> stream, std::size_t chunk) {
  frame_io::FrameReader reader;
  frame_io::FrameReader::Frame frame;
  std::size_t fed = 0;
  std::size_t taken = 0;
  while (fed < stream.size()) {
    const std::size_t n = std::min(chunk, stream.size() - fed);
    reader.add(stream.subspan(fed, n));
    fed += n;
    for (;;) {
      const frame_io::FrameReader::Next next = reader.next(frame);
      if (next == frame_io::FrameReader::Next::None)
        break;
      if (next == frame_io::FrameReader::Next::Malformed)
        return;
      check(frame.kind == 'G' || frame.kind == 'R', "a frame is an allgather or a report");
      check(frame.bytes.size() <= frame_io::kMaxFrame, "a frame is within kMaxFrame");
      taken += 5 + frame.bytes.size();
      check(taken <= fed, "frames hold no more than was fed");
    }
  }
}

void rank_side(std::span<const std::byte> stream, Rank ranks) {
  int fds[2];
  check(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0, "a socket pair");
  const int launcher = fds[1];
  const ssize_t sent = send(launcher, stream.data(), stream.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
  shutdown(launcher, SHUT_WR);
  LocalBootstrap boot(0, ranks, fds[0], "fuzz");
  const std::byte mine[3] = {std::byte{1}, std::byte{2}, std::byte{3}};
  try {
    const std::vector<Blob> all = boot.allgather(mine);
    check(all.size() == ranks, "allgather gives one blob per rank");
    std::size_t bytes = 0;
    for (const Blob& blob : all) {
      check(blob.size() <= frame_io::kMaxFrame, "a blob is within kMaxFrame");
      bytes += 4 + blob.size();
    }
    check(sent >= 0 && bytes <= static_cast<std::size_t>(sent), "the blobs were sent");
  } catch (const RuntimeError&) {
  }
  close(launcher);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Input in(data, size);
  const Rank ranks = 1 + in.u8() % 8;
  const std::size_t chunk = 1 + std::size_t{in.u8()};
  const std::span<const std::byte> stream = in.rest();
  launcher_side(stream, chunk);
  rank_side(stream, ranks);
  return 0;
}
