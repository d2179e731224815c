#include "protocols/core/threads.hpp"

#include <sched.h>

#include <exception>
#include <thread>
#include <vector>

#include "base/clock.hpp"

namespace xover {
namespace {

void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

}  // namespace

void HostThreads::run(std::size_t count, const std::function<void(std::size_t)>& body) {
  // Body 0 runs on the calling thread, whose caches and stack are warm: a
  // fresh thread's first system calls cost microseconds more. A body that
  // throws would end the process from its thread: the first exception is
  // kept and thrown here once every thread has returned.
  std::vector<std::exception_ptr> errors(count);
  auto guarded = [&](std::size_t i) {
    try {
      body(i);
    } catch (...) {
      errors[i] = std::current_exception();
    }
  };
  std::vector<std::thread> threads;
  threads.reserve(count);
  for (std::size_t i = 1; i < count; ++i)
    threads.emplace_back(guarded, i);
  if (count > 0)
    guarded(0);
  for (std::thread& t : threads)
    t.join();
  for (const std::exception_ptr& e : errors)
    if (e)
      std::rethrow_exception(e);
}

Seconds HostThreads::now() const {
  return clock_now();
}

void HostThreads::wait_until(Seconds date) {
  for (std::uint64_t round = 0; clock_now() < date; ++round)
    pause(round);
}

void HostThreads::pause(std::uint64_t round) {
  if (round < kSpinRounds || !crowded_.load(std::memory_order_relaxed))
    cpu_relax();
  else
    sched_yield();
}

}  // namespace xover
