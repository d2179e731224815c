#include "protocols/core/threads.hpp"

#include <sched.h>

#include <chrono>
#include <exception>
#include <thread>
#include <vector>

namespace xover {
namespace {

void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

Seconds steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

void HostThreads::run(std::size_t count, const std::function<void(std::size_t)>& body) {
  // A body that throws would end the process from its thread: the first
  // exception is kept and thrown here once every thread has returned.
  std::exception_ptr first;
  std::vector<std::exception_ptr> errors(count);
  std::vector<std::thread> threads;
  threads.reserve(count);
  for (std::size_t i = 0; i < count; ++i)
    threads.emplace_back([&, i] {
      try {
        body(i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    });
  for (std::thread& t : threads)
    t.join();
  for (const std::exception_ptr& e : errors)
    if (e && !first)
      first = e;
  if (first)
    std::rethrow_exception(first);
}

Seconds HostThreads::now() const {
  return steady_seconds();
}

void HostThreads::wait_until(Seconds date) {
  for (std::uint64_t round = 0; steady_seconds() < date; ++round)
    pause(round);
}

void HostThreads::pause(std::uint64_t round) {
  if (round < kSpinRounds)
    cpu_relax();
  else
    sched_yield();
}

}  // namespace xover
