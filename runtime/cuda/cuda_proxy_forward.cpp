#include "runtime/cuda/cuda_proxy_forward.hpp"

#include <chrono>
#include <thread>

namespace xover::runtime {

std::uint64_t proxy_clock_ns() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

bool EngineQueueSink::post(const WorkRequest& r, std::uint64_t deadline_ns) {
  const std::uint64_t pos = engine_reserve<EngineSystemAtomic>(queue_);
  if (!engine_has_room<EngineSystemAtomic>(queue_, pos, cached_)) {
    flush();
    while (!engine_has_room<EngineSystemAtomic>(queue_, pos, cached_)) {
      if (proxy_clock_ns() > deadline_ns)
        return false;
      std::this_thread::yield();
    }
  }
  engine_write<EngineSystemAtomic>(queue_, pos, r);
  unrung_ = pos + 1;
  return true;
}

void EngineQueueSink::flush() {
  if (unrung_ > 0)
    engine_ring<EngineSystemAtomic>(queue_, unrung_);
}

ProxyForwarder::ProxyForwarder(CommandRing ring, CommandLimits limits, std::uint32_t me)
    : ring_(ring), limits_(limits), me_(me) {}

std::uint64_t ProxyForwarder::forward_ready(ProxySink& sink, std::uint64_t deadline_ns) {
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
    if (!sink.post(r, deadline_ns)) {
      stuck_ = true;
      break;
    }
    ++forwarded_;
  }
  sink.flush();
  return taken;
}

std::string ProxyForwarder::serve(ProxySink& sink, std::uint64_t count, Seconds timeout) {
  const std::uint64_t deadline = proxy_clock_ns() + static_cast<std::uint64_t>(timeout * 1e9);
  std::uint64_t taken = 0;
  while (!stuck_ && taken < count) {
    const std::uint64_t now = forward_ready(sink, deadline);
    taken += now;
    if (now == 0) {
      if (proxy_clock_ns() > deadline)
        return "proxy of PE " + std::to_string(me_) + ": " + std::to_string(taken) + " of " + std::to_string(count) +
               " commands came within " + std::to_string(timeout) + " s";
      std::this_thread::yield();
    }
  }
  if (stuck_)
    return "proxy of PE " + std::to_string(me_) + ": " + sink.problem();
  return {};
}

}  // namespace xover::runtime
