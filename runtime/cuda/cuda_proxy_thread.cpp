#include "runtime/cuda/cuda_proxy_thread.hpp"

#include <stdexcept>

namespace xover::runtime {

ProxyThread::ProxyThread() : thread_([this] { loop(); }) {}

ProxyThread::~ProxyThread() {
  stop_.store(true, std::memory_order_release);
  thread_.join();
}

void ProxyThread::start(std::function<std::string()> job) {
  if (done_.load(std::memory_order_acquire) != posted_.load(std::memory_order_relaxed))
    throw std::logic_error("ProxyThread::start: the previous job was not waited for");
  job_ = std::move(job);
  posted_.fetch_add(1, std::memory_order_release);
}

std::string ProxyThread::wait() {
  const std::uint64_t want = posted_.load(std::memory_order_relaxed);
  while (done_.load(std::memory_order_acquire) < want)
    std::this_thread::yield();
  return result_;
}

void ProxyThread::loop() {
  std::uint64_t done = 0;
  for (;;) {
    const std::uint64_t posted = posted_.load(std::memory_order_acquire);
    if (posted == done) {
      if (stop_.load(std::memory_order_acquire))
        return;
      std::this_thread::yield();
      continue;
    }
    result_ = job_();
    done = posted;
    done_.store(done, std::memory_order_release);
  }
}

}  // namespace xover::runtime
