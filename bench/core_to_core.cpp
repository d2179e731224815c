// core_to_core: the machine's core-to-core state. Two threads pinned to
// cores 0 and 1 (where bench/perftest.py pins ucx_perftest's server and
// client) bounce one cache line, each round trip timed; it prints the
// median round trip in nanoseconds:
//
//   core_to_core [ROUND_TRIPS]
//   median_ns 121
//
// On this project's 2-core VMs the median is either about 120 ns or about
// 480 ns, in spells of seconds to minutes that no process inside the VM
// chooses (both threads are pinned the same way in both), and UCX's posix
// eager at 20 KiB runs at 2.5 or 10 us in step with it.
// bench/tune_check.py runs this before and after every benchmark run and
// judges the settings within each state.
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {

/// Pins the calling thread to `core`; false when the core is absent.
bool pin(int core) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(core, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
}

struct alignas(64) Line {
  std::atomic<long> value{0};
};

}  // namespace

int main(int argc, char** argv) {
  const long round_trips = argc > 1 ? std::atol(argv[1]) : 20000;
  if (argc > 2 || round_trips < 1) {
    std::fprintf(stderr, "usage: core_to_core [ROUND_TRIPS >= 1]\n");
    return 2;
  }
  Line ping;
  Line pong;
  std::atomic<bool> pinned{true};
  std::thread echo([&] {
    pinned = pin(1);
    for (long i = 1; i <= round_trips; ++i) {
      while (ping.value.load(std::memory_order_acquire) != i) {
      }
      pong.value.store(i, std::memory_order_release);
    }
  });
  if (!pin(0)) {
    pinned = false;
  }
  std::vector<double> ns(static_cast<std::size_t>(round_trips));
  for (long i = 1; i <= round_trips; ++i) {
    const auto start = std::chrono::steady_clock::now();
    ping.value.store(i, std::memory_order_release);
    while (pong.value.load(std::memory_order_acquire) != i) {
    }
    ns[static_cast<std::size_t>(i - 1)] =
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
  }
  echo.join();
  if (!pinned) {
    std::fprintf(stderr, "core_to_core: cannot pin to cores 0 and 1 (fewer than 2 cores?)\n");
    return 1;
  }
  const auto middle = ns.begin() + static_cast<std::ptrdiff_t>(ns.size() / 2);
  std::nth_element(ns.begin(), middle, ns.end());
  std::printf("median_ns %.0f\n", *middle);
  return 0;
}
