// The calibration's probes over shared memory: what comes before each timed
// series. The first round trips of a size after another size's find the
// ring's cells and descriptors cold; the protocol's own sweep warms every
// visit through warm_bytes of messages, and so must the probe, or the bare
// lane measures slower than the protocol that runs on it.
#include <gtest/gtest.h>

#include <vector>

#include "tests/support/backend.hpp"
#include "tests/support/forwarding_transport.hpp"
#include "tools/calib/probe.hpp"

namespace xover {
namespace {

/// What the client did, in order: the payload size of each active message
/// it sent, and kClock for each look at the clock (a timed sample's ends).
class SendLog final : public test::ForwardingTransport {
 public:
  static constexpr long kClock = -1;
  using ForwardingTransport::ForwardingTransport;

  Status am_send(std::size_t lane, Rank peer, AmId id, std::span<const std::byte> header, ConstBuffer payload,
                 AmMode mode, Completion done) override {
    const Status st = inner_.am_send(lane, peer, id, header, payload, mode, std::move(done));
    if (st == Status::Ok)
      events_.push_back(static_cast<long>(payload.size));
    return st;
  }
  Seconds now() const override {
    events_.push_back(kClock);
    return inner_.now();
  }
  const std::vector<long>& events() const { return events_; }

 private:
  mutable std::vector<long> events_;
};

/// The runs of messages of `size` sent one after the other with no look at
/// the clock between them, at least `least` long.
int untimed_runs(const std::vector<long>& events, long size, int least) {
  int runs = 0;
  int run = 0;
  for (long e : events) {
    if (e == size) {
      ++run;
      continue;
    }
    if (run >= least)
      ++runs;
    run = 0;
  }
  return runs + (run >= least ? 1 : 0);
}

TEST(CalibProbe, TheWarmUpIsTheSweepsByteCount) {
  calib::ProbeOptions options;
  options.warmup = 2;
  options.warm_bytes = Bytes{2} << 20;
  // Small messages count as a receive cell each (kWarmCell, 8 KiB): 256.
  EXPECT_EQ(calib::warm_round_trips(8, options), 256);
  EXPECT_EQ(calib::warm_round_trips(8192, options), 256);
  EXPECT_EQ(calib::warm_round_trips(65536, options), 32);
  // Never fewer than `warmup`; without warm_bytes, `warmup` alone.
  EXPECT_EQ(calib::warm_round_trips(Bytes{4} << 20, options), 2);
  options.warm_bytes = 0;
  EXPECT_EQ(calib::warm_round_trips(8, options), 2);
}

TEST(CalibProbe, EveryTimedSeriesOfASizeFollowsItsWarmUp) {
  if (const std::string why = test::unavailable("shm"); !why.empty())
    GTEST_SKIP() << why;
  calib::ProbeOptions options;
  options.messages = 4;
  options.repeats = 3;
  options.warmup = 1;
  // 1024 round trips of a cell each: more messages than a stream run sends
  // without a look at the clock (500 at 8 B), which is then no warm-up here.
  options.warm_bytes = Bytes{8} << 20;
  options.stream_bytes = 4000;
  options.stream_repeats = 1;
  const std::vector<Bytes> sizes{4000, 8, 1000};
  const test::Problems problems = test::run_ranks("shm", 2, "", [&](Rank rank, Transport& inner, test::Problems& p) {
    SendLog t(inner);
    std::size_t lane = 0;
    while (!t.path(rank == 0 ? 1 : 0).lanes[lane].caps.has(LaneCap::AmBcopy))
      ++lane;
    const std::vector<calib::PrttPoint> points = calib::probe_am(t, lane, sizes, options);
    if (rank != 0)
      return;
    if (points.size() != sizes.size())
      p.push_back(std::to_string(points.size()) + " points for " + std::to_string(sizes.size()) + " sizes");
    for (Bytes s : sizes) {
      // PRTT(1,0,s), PRTT(n,0,s) and PRTT(n,d,s) each after its own warm-up.
      const int runs = untimed_runs(t.events(), static_cast<long>(s), calib::warm_round_trips(s, options));
      if (runs != 3)
        p.push_back("size " + std::to_string(s) + ": " + std::to_string(runs) + " warm-ups of " +
                    std::to_string(calib::warm_round_trips(s, options)) +
                    " untimed round trips before its timed series, not 3");
    }
  });
  EXPECT_TRUE(problems.empty()) << test::join(problems);
}

}  // namespace
}  // namespace xover
