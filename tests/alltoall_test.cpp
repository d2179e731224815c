// The alltoall as a protocol of the core (protocols/coll/alltoall_pe.hpp),
// one body over every backend: the simulation (put by put over
// SimTransport), shared memory and TCP. Every PE checks every byte it got
// against the pattern of (source, destination, offset, exchange) and that
// its signal word shows exactly the puts sent to it; then the same with a
// wrong byte, a lost put and a doubled signal injected by a wrapper around
// one rank's transport, each of which must be reported. In simulation, on
// the contention-free star, each exchange takes the closed form's time
// (alltoall_closed_form) to 1e-6.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <deque>
#include <mutex>
#include <sstream>

#include "protocols/coll/alltoall.hpp"
#include "protocols/workload/workloads.hpp"
#include "sim/alltoall_sim.hpp"
#include "sim/in_child.hpp"
#include "sim/simulate.hpp"
#include "tests/support/backend.hpp"
#include "tests/support/forwarding_transport.hpp"

namespace xover::test {
namespace {

std::string star() {
  return std::string(XOVER_SOURCE_DIR) + "/platforms/alltoall-star.xml";
}

/// An alltoall of `pes` PEs with `threads` posting threads each, every curve.
Scenario scenario(std::uint32_t pes, std::uint32_t threads, std::vector<Bytes> sizes) {
  Scenario s;
  s.name = "alltoall-test";
  s.platform = star();
  s.workload = &alltoall_workload;
  s.pes = pes;
  s.threads = threads;
  s.sizes = std::move(sizes);
  s.curves = {"auto", "coll/alltoall/proxy", "coll/alltoall/direct"};
  s.iterations = 2;
  s.warmup = 1;
  s.seed = 5;
  // What hardware prices with (simulation charges its node's own).
  s.device = DeviceAttrs{0.5e-6, threads, 1.5e-6, 3e-6};
  return s;
}

/// Runs `s` and records every point with errors, and every note of a point
/// with errors, as problems.
void run_and_report(const Scenario& s, Rank rank, Transport& t, Problems& p) {
  Results mine;
  run_workload(s, rank, t, mine);
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
    const Scenario s = scenario(pes, threads, {8, 4096, 65536});
    const Problems problems = run_ranks(GetParam(), pes, star(), [&](Rank rank, Transport& t, Problems& p) {
      run_and_report(s, rank, t, p);
    });
    EXPECT_TRUE(problems.empty()) << "P=" << pes << " T=" << threads << "\n" << join(problems);
  }
}

struct Injected {
  Fault fault;
  std::string said;  ///< what some PE must report
};

TEST_P(Alltoall, AWrongByteALostPutAndADoubledSignalAreReported) {
  const Scenario s = scenario(3, 2, {4096});
  for (const Injected& injected : {Injected{Fault::WrongByte, "are wrong from offset 2048 of 4096 B"},
                                   Injected{Fault::LostPut, "1 puts missing"},
                                   Injected{Fault::DoubledSignal, "1 adds too many"}}) {
    const Problems problems = run_ranks(GetParam(), 3, star(), [&](Rank rank, Transport& t, Problems& p) {
      FaultyPuts faulty(t, injected.fault, 2);
      run_and_report(s, rank, rank == 1 ? static_cast<Transport&>(faulty) : t, p);
    });
    const std::string all = join(problems);
    EXPECT_NE(all.find(injected.said), std::string::npos) << "expected \"" << injected.said << "\" in:\n" << all;
    EXPECT_EQ(all.find("the transport failed"), std::string::npos) << all;
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, Alltoall, ::testing::ValuesIn(all_backends()), param_name);

// The per-put path in simulation against the closed form, on the star:
// P from 2 to 16 (one posting round or several), sizes on both sides of
// g·B = 250 B, both flavours through every curve.
TEST(AlltoallPerPut, TakesTheClosedFormsTime) {
  const std::string report = sim::in_child([] {
    const sim::LogGPPlatform platform = sim::LogGPPlatform::load(star());
    std::ostringstream out;
    out.precision(17);
    for (const auto& [pes, threads] : {std::pair<std::uint32_t, std::uint32_t>{2, 1}, {3, 1}, {8, 4}, {16, 4}, {16, 32}}) {
      Scenario s = scenario(pes, threads, {1, 8, 4096, 65536});
      s.device.reset();
      if (sim::alltoall_batched(s))
        return std::string("batched: P=") + std::to_string(pes);
      const Results results = sim::simulate(s, platform);
      for (const Point* p : results.points())
        out << pes << ' ' << threads << ' ' << p->curve << ' ' << p->size << ' ' << p->errors << ' ' << p->median()
            << ' ' << p->p10() << ' ' << p->p90() << ' ' << *p->model << '\n';
    }
    return out.str();
  });
  std::istringstream in(report);
  std::size_t points = 0;
  std::uint32_t pes = 0, threads = 0;
  std::string curve;
  Bytes size = 0;
  std::size_t errors = 0;
  double median = 0, p10 = 0, p90 = 0, model = 0;
  while (in >> pes >> threads >> curve >> size >> errors >> median >> p10 >> p90 >> model) {
    ++points;
    const std::string what = "P=" + std::to_string(pes) + " T=" + std::to_string(threads) + " " + curve + " n=" +
                             std::to_string(size);
    EXPECT_EQ(errors, 0u) << what;
    EXPECT_NEAR(median, model, 1e-6 * model) << what;
    EXPECT_NEAR(p10, model, 1e-6 * model) << what;
    EXPECT_NEAR(p90, model, 1e-6 * model) << what;
  }
  EXPECT_EQ(points, 5u * 3 * 4) << report;
}

}  // namespace
}  // namespace xover::test
