// Harness: the TCP transport's receive side (runtime/tcp/tcp_frame.hpp, the
// frame parser and its checks in TcpConn, the frame handlers of
// tcp_transport.cpp) on the bytes a corrupt or hostile peer sends.
//
// Rank 0's transport is wired to one end of a socket pair; the harness is
// the peer at the other end. It puts a get, a put and a get on the lane,
// registers a region for the peer, writes the fuzzed stream in chunks with
// progress() between them, then closes its end. Input: tcp_input.hpp.
// Checks: every buffer a frame names stays inside the memory it is for
// (ASan); an active message reaches its handler whole; no completion runs
// twice; a stream that ends without a Bye fails the transport, which then
// completes every operation left; nothing hangs.
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "fuzz/harness.hpp"
#include "fuzz/tcp_input.hpp"
#include "runtime/tcp/tcp_frame.hpp"
#include "runtime/tcp/tcp_wireup.hpp"

namespace {

using namespace xover;
using namespace xover::fuzz::tcp;
using xover::fuzz::check;

/// Reads and drops what rank 0 sent the peer, so that its socket never fills.
void drain(int fd) {
  std::byte sink[65536];
  while (recv(fd, sink, sizeof sink, MSG_DONTWAIT) > 0) {
  }
}

/// Replaces each kKeyMark and kAddrMark in `stream` with the region's key and address.
void fill_marks(std::vector<std::byte>& stream, std::uint64_t key, std::uint64_t addr) {
  for (std::size_t i = 0; i + 8 <= stream.size();) {
    const std::uint64_t v = runtime::tcp::get_le(stream.data() + i);
    if (v == kKeyMark || v == kAddrMark) {
      runtime::tcp::put_le(stream.data() + i, v == kKeyMark ? key : addr);
      i += 8;
    } else {
      ++i;
    }
  }
}

struct Completions {
  int calls[3] = {0, 0, 0};
  Completion counter(int i) {
    return [this, i](Status) { check(++calls[i] == 1, "a completion runs once"); };
  }
  bool all() const { return calls[0] == 1 && calls[1] == 1 && calls[2] == 1; }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0)
    return 0;
  const std::size_t chunk = (static_cast<std::size_t>(data[0]) + 1) * 7;
  std::vector<std::byte> stream(reinterpret_cast<const std::byte*>(data) + 1,
                                reinterpret_cast<const std::byte*>(data) + size);
  int fds[2];
  check(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds) == 0, "a socket pair");
  const int peer = fds[1];

  runtime::tcp::Wiring wiring;
  wiring.lane_names = {"tcp:fuzz"};
  wiring.fds = {{}, {fds[0]}};
  wiring.paths.resize(2);
  wiring.paths[1].lanes.push_back(LaneAttrs{});
  std::unique_ptr<Transport> t = runtime::tcp::make_wired_transport(0, 2, 10, std::move(wiring));

  for (int id = 0; id < 256; ++id)
    t->set_am_handler(static_cast<AmId>(id), [](const AmMessage& m) {
      static std::vector<std::byte> scratch(runtime::tcp::kSegSize);
      check(m.source == 1 && m.lane == 0, "a message comes from the peer's lane");
      check(m.header.size() + m.payload.size <= runtime::tcp::kSegSize, "a message fits a segment");
      std::memcpy(scratch.data(), m.header.data(), m.header.size());
      if (m.payload.size)
        std::memcpy(scratch.data(), m.payload.data, m.payload.size);
    });
  std::vector<std::byte> region(kRegion), get_small(kGetSmall), put_bytes(kPutSize, std::byte{7}), get_large(kGetLarge);
  const MemoryRegion mr = t->reg(1, 0, region.data(), region.size());
  Completions done;
  t->get(0, 1, {get_small.data(), get_small.size()}, {1, 0}, done.counter(0));
  t->put(0, 1, {put_bytes.data(), put_bytes.size()}, {1, 0}, done.counter(1));
  t->get(0, 1, {get_large.data(), get_large.size()}, {1, 0}, done.counter(2));
  fill_marks(stream, mr.key, reinterpret_cast<std::uint64_t>(region.data()));

  std::size_t at = 0;
  for (int rounds = 0; at < stream.size() && t->failure().empty() && rounds < 100000; ++rounds) {
    const ssize_t n = send(peer, stream.data() + at, std::min(chunk, stream.size() - at), MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n > 0)
      at += static_cast<std::size_t>(n);
    drain(peer);
    t->progress();
  }
  check(at == stream.size() || !t->failure().empty(), "the transport takes the whole stream or fails");
  shutdown(peer, SHUT_WR);
  for (int i = 0; i < 64 && t->failure().empty(); ++i) {
    drain(peer);
    t->progress();
  }
  if (t->failure().empty()) {
    // Only a Bye makes the end of the stream no fault, and then the lane
    // takes nothing more.
    check(t->put(0, 1, {put_bytes.data(), put_bytes.size()}, {1, 0}, {}) == Status::Error,
          "a stream that ends without a Bye fails the transport");
  } else {
    check(done.all(), "a failed transport completes every operation left");
  }
  drain(peer);
  t.reset();
  close(peer);
  return 0;
}
