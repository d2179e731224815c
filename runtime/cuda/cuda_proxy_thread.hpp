// The CPU proxy's thread, persistent: created once at set-up, as NVSHMEM
// creates its proxy thread at initialisation, so that no exchange pays for
// creating and joining a thread inside its timed region. It runs one job at
// a time; between jobs it spins (yielding), as a proxy must to see its
// first command at once. Needs no CUDA: tested without a GPU.
//
//   ProxyThread proxy;                          // the thread starts here
//   proxy.start([&] { return serve(puts); });   // hands over one job
//   ...                                         // the kernels run
//   std::string problem = proxy.wait();         // the job's result
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>

namespace xover::runtime {

class ProxyThread {
 public:
  ProxyThread();
  /// Stops the thread once its job, if any, is done.
  ~ProxyThread();
  ProxyThread(const ProxyThread&) = delete;
  ProxyThread& operator=(const ProxyThread&) = delete;

  /// Hands `job` to the thread; the previous job must have been waited for.
  void start(std::function<std::string()> job);
  /// Waits for the job start() handed over and returns what it returned.
  std::string wait();
  /// The thread's id (the same for every job).
  std::thread::id id() const { return thread_.get_id(); }

 private:
  void loop();

  std::function<std::string()> job_;
  std::string result_;
  std::atomic<std::uint64_t> posted_{0};
  std::atomic<std::uint64_t> done_{0};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace xover::runtime
