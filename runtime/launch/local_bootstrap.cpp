#include "runtime/launch/local_bootstrap.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <string_view>

#include "base/fd_io.hpp"
#include "runtime/launch/frame_io.hpp"

namespace xover::runtime {

namespace {

std::uint64_t env_number(const char* name, const char* text) {
  std::uint64_t v = 0;
  const std::string_view s(text);
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty())
    throw RuntimeError(std::string("the launcher's ") + name + "='" + text + "' is not a number");
  return v;
}

/// The most of a frame read before its bytes are there to fill it.
constexpr std::size_t kReadStep = std::size_t{1} << 20;

bool send_frame(int fd, char kind, std::span<const std::byte> bytes) {
  std::byte head[5];
  head[0] = static_cast<std::byte>(kind);
  frame_io::put_u32(head + 1, static_cast<std::uint32_t>(bytes.size()));
  return write_all(fd, head) && write_all(fd, bytes);
}

}  // namespace

LocalBootstrap::LocalBootstrap(Rank rank, Rank size, int fd, std::string job)
    : rank_(rank), size_(size), fd_(fd), job_(std::move(job)) {}

LocalBootstrap::~LocalBootstrap() {
  close(fd_);
}

std::unique_ptr<LocalBootstrap> LocalBootstrap::from_environment() {
  const char* rank = std::getenv("XOVER_RANK");
  const char* size = std::getenv("XOVER_SIZE");
  const char* fd = std::getenv("XOVER_BOOT_FD");
  const char* job = std::getenv("XOVER_JOB");
  if (!rank || !size || !fd || !job)
    return nullptr;
  const std::uint64_t r = env_number("XOVER_RANK", rank);
  const std::uint64_t n = env_number("XOVER_SIZE", size);
  if (n == 0 || r >= n)
    throw RuntimeError("the launcher's XOVER_RANK=" + std::string(rank) + " is not below XOVER_SIZE=" + size);
  return std::make_unique<LocalBootstrap>(static_cast<Rank>(r), static_cast<Rank>(n),
                                          static_cast<int>(env_number("XOVER_BOOT_FD", fd)), job);
}

std::vector<Blob> LocalBootstrap::allgather(std::span<const std::byte> mine) {
  if (mine.size() > frame_io::kMaxFrame)
    throw RuntimeError("bootstrap: a contribution of " + std::to_string(mine.size()) + " bytes is over the limit");
  if (!send_frame(fd_, 'G', mine))
    throw RuntimeError("bootstrap: the launcher has gone");
  std::vector<Blob> all(size_);
  for (Blob& blob : all) {
    std::byte len[4];
    if (!read_all(fd_, len))
      throw RuntimeError("bootstrap: the launcher has gone (a rank failed?)");
    const std::uint32_t n = frame_io::get_u32(len);
    if (n > frame_io::kMaxFrame)
      throw RuntimeError("bootstrap: the launcher sent a frame of " + std::to_string(n) + " bytes");
    // Grown as the bytes come: the length is only the sender's word.
    while (blob.size() < n) {
      const std::size_t at = blob.size();
      blob.resize(at + std::min<std::size_t>(kReadStep, n - at));
      if (!read_all(fd_, std::span(blob).subspan(at)))
        throw RuntimeError("bootstrap: the launcher has gone (a rank failed?)");
    }
  }
  return all;
}

void LocalBootstrap::report(const std::string& text) {
  if (!send_frame(fd_, 'R', std::as_bytes(std::span(text.data(), text.size()))))
    throw RuntimeError("bootstrap: the launcher has gone");
}

}  // namespace xover::runtime
