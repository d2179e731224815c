#include "runtime/cuda/cuda_proxy_forward.hpp"

#include <chrono>
#include <thread>

namespace xover::runtime {
namespace {

std::uint64_t steady_ns() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

}  // namespace

ProxyForwarder::ProxyForwarder(CommandRing ring, EngineQueue queue, CommandLimits limits, std::uint32_t me)
    : ring_(ring), queue_(queue), limits_(limits), me_(me) {}

bool ProxyForwarder::post(const WorkRequest& r, std::uint64_t deadline_ns) {
  const std::uint64_t pos = engine_reserve<EngineSystemAtomic>(queue_);
  if (!engine_has_room<EngineSystemAtomic>(queue_, pos, cached_)) {
    engine_ring<EngineSystemAtomic>(queue_, unrung_);
    while (!engine_has_room<EngineSystemAtomic>(queue_, pos, cached_)) {
      if (steady_ns() > deadline_ns) {
        stuck_ = true;
        return false;
      }
      std::this_thread::yield();
    }
  }
  engine_write<EngineSystemAtomic>(queue_, pos, r);
  unrung_ = pos + 1;
  return true;
}

std::uint64_t ProxyForwarder::forward_ready(std::uint64_t deadline_ns) {
  std::uint64_t taken = 0;
  while (!stuck_ && ring_.ready(next_)) {
    const CommandWords words = ring_.read(next_);
    ring_.publish(next_ + 1);
    const DecodedCommand d = decode_command(words, limits_);
    ++taken;
    if (!d.error.empty()) {
      if (refused_++ == 0)
        first_error_ = "position " + std::to_string(next_) + ": " + std::string(d.error);
      ++next_;
      continue;
    }
    ++next_;
    WorkRequest r;
    r.pe = static_cast<std::uint32_t>(d.command.pe);
    r.offset = d.command.offset;
    r.source = d.command.local;
    r.size = d.command.size;
    r.signal = me_;
    r.posted_ns = d.command.posted_ns;
    if (!post(r, deadline_ns))
      break;
    ++forwarded_;
  }
  if (unrung_ > 0)
    engine_ring<EngineSystemAtomic>(queue_, unrung_);
  return taken;
}

std::string ProxyForwarder::serve(std::uint64_t count, Seconds timeout) {
  const std::uint64_t deadline = steady_ns() + static_cast<std::uint64_t>(timeout * 1e9);
  std::uint64_t taken = 0;
  while (!stuck_ && taken < count) {
    const std::uint64_t now = forward_ready(deadline);
    taken += now;
    if (now == 0) {
      if (steady_ns() > deadline)
        return "proxy of PE " + std::to_string(me_) + ": " + std::to_string(taken) + " of " + std::to_string(count) +
               " commands came within " + std::to_string(timeout) + " s";
      std::this_thread::yield();
    }
  }
  if (stuck_)
    return "proxy of PE " + std::to_string(me_) + ": the engine's queue stayed full past the deadline";
  return {};
}

}  // namespace xover::runtime
