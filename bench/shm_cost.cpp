// shm_cost: the protocol core's and the shared-memory transport's own work
// per 8-byte message, with the machine taken out. Two shm ranks live in this
// one process (two threads for the wire-up, which needs both at once), then
// one thread drives both Workers in turn: rank 0 sends, rank 1 polls the
// message in and sends it back, and so on. Every poll finds its message, no
// cache line crosses cores while a peer waits, and so the instructions per
// message are the same from run to run: run it under
// `valgrind --tool=callgrind --toggle-collect='*round_trips*'` and divide
// the collected count by the messages it prints (bench/vs_ucx.py does).
//
//   build/bench/shm_cost [round trips, default 100000]
//
// It prints the messages and the wall nanoseconds per message (the software
// cost alone: no cross-core hop). The payload of every message is checked
// outside the loop's timing.
#include <array>
#include <barrier>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unistd.h>

#include "base/clock.hpp"
#include "protocols/core/worker.hpp"
#include "protocols/select/select_config.hpp"
#include "runtime/shm/shm_transport.hpp"

namespace {

using namespace xover;

constexpr Bytes kSize = 8;

/// Two ranks in one process: each allgather waits for both.
class TwoThreads {
 public:
  std::vector<runtime::Blob> allgather(Rank rank, std::span<const std::byte> mine) {
    {
      std::lock_guard lock(mutex_);
      blobs_[rank].assign(mine.begin(), mine.end());
    }
    sync_.arrive_and_wait();
    std::vector<runtime::Blob> all(blobs_.begin(), blobs_.end());
    sync_.arrive_and_wait();
    return all;
  }

 private:
  std::mutex mutex_;
  std::barrier<> sync_{2};
  std::array<runtime::Blob, 2> blobs_;
};

class ThreadRank final : public runtime::Bootstrap {
 public:
  ThreadRank(Rank rank, TwoThreads& both) : rank_(rank), both_(both) {}
  Rank rank() const override { return rank_; }
  Rank size() const override { return 2; }
  const std::string& job() const override { return job_; }
  std::vector<runtime::Blob> allgather(std::span<const std::byte> mine) override {
    return both_.allgather(rank_, mine);
  }

 private:
  Rank rank_;
  TwoThreads& both_;
  std::string job_ = "shmcost" + std::to_string(getpid());
};

/// One message from `from` to `to`: the receive posted first, as a
/// ping-pong's is.
void one_message(Worker& from, Worker& to, Rank to_rank, const std::byte* out, std::byte* in, Tag tag) {
  Request* r = to.tag_recv({in, kSize}, tag);
  Request* s = from.tag_send(to_rank, {out, kSize}, tag);
  from.wait(s);
  from.release(s);
  to.wait(r);
  to.release(r);
}

/// The measured loop: `n` round trips of 8 bytes. Its name is what
/// callgrind's --toggle-collect matches.
[[gnu::noinline]] void round_trips(Worker& w0, Worker& w1, std::size_t n, std::byte* buf0, std::byte* buf1) {
  for (std::size_t i = 0; i < n; ++i) {
    one_message(w0, w1, 1, buf0, buf1, 2 * i);
    one_message(w1, w0, 0, buf1, buf0, 2 * i + 1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 100000;
  TwoThreads both;
  std::array<std::unique_ptr<Transport>, 2> transports;
  std::array<std::string, 2> errors;
  {
    std::array<std::thread, 2> threads;
    for (Rank r = 0; r < 2; ++r)
      threads[r] = std::thread([&, r] {
        try {
          ThreadRank boot(r, both);
          transports[r] = runtime::make_shm_transport(boot, runtime::RuntimeOptions{});
        } catch (const std::exception& e) {
          errors[r] = e.what();
        }
      });
    for (std::thread& t : threads)
      t.join();
  }
  for (const std::string& e : errors)
    if (!e.empty()) {
      std::fprintf(stderr, "shm_cost: %s\n", e.c_str());
      return 1;
    }
  // Rendezvous only from 64 KiB: under valgrind the two threads take
  // turns, the wire-up measures the mm lane's latency in hundreds of
  // microseconds, and one direction would otherwise pick rndv/get for 8
  // bytes, which this one thread cannot drive.
  SelectConfig config;
  config.rndv_thresh = Bytes{64} << 10;
  Worker w0(*transports[0], config);
  Worker w1(*transports[1], config);
  for (const auto& [worker, peer] : {std::pair{&w0, Rank{1}}, std::pair{&w1, Rank{0}}}) {
    const ProtoChoice* choice = worker->table(peer).lookup(kSize);
    if (!choice || std::string(choice->protocol->name) != "eager/short") {
      std::fprintf(stderr, "shm_cost: 8 bytes toward rank %u do not take eager/short\n", peer);
      return 1;
    }
  }
  std::array<std::byte, kSize> buf0{};
  std::array<std::byte, kSize> buf1{};
  for (std::size_t i = 0; i < n / 10 + 1; ++i) {  // warm up, outside round_trips: pools, tables, caches
    one_message(w0, w1, 1, buf0.data(), buf1.data(), 0);
    one_message(w1, w0, 0, buf1.data(), buf0.data(), 1);
  }
  // A pattern that the last round trip must carry back.
  for (std::size_t i = 0; i < kSize; ++i)
    buf0[i] = static_cast<std::byte>(0xa0 + i);
  const double t0 = clock_now();
  round_trips(w0, w1, n, buf0.data(), buf1.data());
  const double seconds = clock_now() - t0;
  for (std::size_t i = 0; i < kSize; ++i)
    if (buf0[i] != static_cast<std::byte>(0xa0 + i) || buf1[i] != buf0[i]) {
      std::fprintf(stderr, "shm_cost: byte %zu came back wrong\n", i);
      return 1;
    }
  std::printf("messages %zu\nns_per_message %.1f\n", 2 * n, seconds / static_cast<double>(2 * n) * 1e9);
  return 0;
}
