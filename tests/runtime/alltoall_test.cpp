// The alltoall as a protocol of the core (protocols/coll/alltoall_pe.hpp),
// one body over every backend: the simulation (put by put over
// SimTransport), shared memory and TCP. Every PE checks every byte it got
// against the pattern of (source, destination, offset, exchange) and that
// its signal word shows exactly the puts sent to it; then the same with a
// wrong byte, a lost put and a doubled signal injected by a wrapper around
// one rank's transport, each of which must be reported. The simulated
// exchange's time against the closed form is tests/sim/alltoall_per_put_test.cpp's.
#include <gtest/gtest.h>

#include <atomic>
#include <deque>
#include <mutex>

#include "protocols/coll/alltoall.hpp"
#include "protocols/workload/workloads.hpp"
#include "tests/support/alltoall_scenario.hpp"
#include "tests/support/backend.hpp"
#include "tests/support/forwarding_transport.hpp"

namespace xover::test {
namespace {

/// Runs `s` with `threads` posting threads and records every point with
/// errors, and every note of a point with errors, as problems.
void run_and_report(const Scenario& s, std::uint32_t threads, Rank rank, Transport& t, Problems& p) {
  Results mine;
  run_workload(s, rank, t, mine, alltoall_context(threads));
  for (const Point* point : mine.points())
    if (point->errors > 0)
      p.push_back(point->curve + " at " + std::to_string(point->size) + " B: " + std::to_string(point->errors) +
                  " errors: " + point->notes);
  if (!t.failure().empty())
    p.push_back("the transport failed: " + t.failure());
}

enum class Fault { WrongByte, LostPut, DoubledSignal };

/// A transport whose `which`-th put_signal goes wrong as `fault` says.
class FaultyPuts final : public ForwardingTransport {
 public:
  FaultyPuts(Transport& inner, Fault fault, std::size_t which) : ForwardingTransport(inner), fault_(fault), which_(which) {}

  Status put_signal(std::size_t lane, Rank peer, ConstBuffer local, RemoteAddr remote, RemoteAddr signal,
                    std::uint64_t value, Completion done) override {
    if (calls_.fetch_add(1) != which_)
      return inner_.put_signal(lane, peer, local, remote, signal, value, std::move(done));
    switch (fault_) {
      case Fault::WrongByte: {
        const std::lock_guard lock(mutex_);
        std::vector<std::byte>& copy = copies_.emplace_back(local.data, local.data + local.size);
        copy[copy.size() / 2] ^= std::byte{0x5a};
        return inner_.put_signal(lane, peer, {copy.data(), copy.size()}, remote, signal, value, std::move(done));
      }
      case Fault::LostPut:
        return Status::Ok;
      case Fault::DoubledSignal:
        if (inner_.put_signal(lane, peer, local, remote, signal, value, {}) == Status::Error)
          return Status::Error;
        return inner_.put_signal(lane, peer, local, remote, signal, value, std::move(done));
    }
    return Status::Error;
  }

 private:
  Fault fault_;
  std::size_t which_;
  std::atomic<std::size_t> calls_{0};
  std::mutex mutex_;
  std::deque<std::vector<std::byte>> copies_;  ///< corrupted bytes, alive until the end
};

class Alltoall : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (const std::string why = unavailable(GetParam()); !why.empty())
      GTEST_SKIP() << why;
  }
};

TEST_P(Alltoall, EveryByteAndEverySignalArrive) {
  for (const auto& [pes, threads] : {std::pair<std::uint32_t, std::uint32_t>{2, 1}, {3, 2}, {8, 1}}) {
    const Scenario s = alltoall_scenario(pes, threads, {8, 4096, 65536});
    const Problems problems = run_ranks(GetParam(), pes, star(), [&](Rank rank, Transport& t, Problems& p) {
      run_and_report(s, threads, rank, t, p);
    });
    EXPECT_TRUE(problems.empty()) << "P=" << pes << " T=" << threads << "\n" << join(problems);
  }
}

struct Injected {
  Fault fault;
  std::string said;  ///< what some PE must report
};

TEST_P(Alltoall, AWrongByteALostPutAndADoubledSignalAreReported) {
  const Scenario s = alltoall_scenario(3, 2, {4096});
  for (const Injected& injected : {Injected{Fault::WrongByte, "are wrong from offset 2048 of 4096 B"},
                                   Injected{Fault::LostPut, "1 puts missing"},
                                   Injected{Fault::DoubledSignal, "1 adds too many"}}) {
    const Problems problems = run_ranks(GetParam(), 3, star(), [&](Rank rank, Transport& t, Problems& p) {
      FaultyPuts faulty(t, injected.fault, 2);
      run_and_report(s, 2, rank, rank == 1 ? static_cast<Transport&>(faulty) : t, p);
    });
    const std::string all = join(problems);
    EXPECT_NE(all.find(injected.said), std::string::npos) << "expected \"" << injected.said << "\" in:\n" << all;
    EXPECT_EQ(all.find("the transport failed"), std::string::npos) << all;
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, Alltoall, ::testing::ValuesIn(all_backends()), param_name);

}  // namespace
}  // namespace xover::test
