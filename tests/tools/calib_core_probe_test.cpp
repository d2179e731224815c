// The protocol core's own time per message (tools/calib/core_probe.hpp):
// each side timed apart, exactly on a synthetic clock that only the
// transport moves; on the monotonic clock a positive, bounded figure.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "tests/support/forwarding_transport.hpp"
#include "tools/calib/core_probe.hpp"

namespace xover::calib {
namespace {

/// The loop's rank with its every send moving a synthetic clock by `send`
/// and its every delivered message by `recv`.
class Ticking final : public test::ForwardingTransport {
 public:
  Ticking(Transport& inner, Seconds& clock, Seconds send, Seconds recv)
      : ForwardingTransport(inner), clock_(clock), send_(send), recv_(recv) {}

  Status am_send(std::size_t lane, Rank peer, AmId id, std::span<const std::byte> header, ConstBuffer payload,
                 AmMode mode, Completion done) override {
    clock_ += send_;
    return inner_.am_send(lane, peer, id, header, payload, mode, std::move(done));
  }
  void set_am_handler(AmId id, AmHandler handler) override {
    inner_.set_am_handler(id, [this, handler = std::move(handler)](const AmMessage& m) {
      clock_ += recv_;
      handler(m);
    });
  }

 private:
  Seconds& clock_;
  Seconds send_, recv_;
};

// A send costs 2^-22 s on the clock and a delivery 3·2^-22 s, nothing else
// moves it: the sender's time per message is exactly the first, the
// receiver's exactly the second (sums of powers of two, exact in doubles),
// neither side's leaking into the other's.
TEST(CoreProbe, EachSideIsTimedApartExactlyOnASyntheticClock) {
  InProcessLoop loop;
  Seconds now = 0;
  const Seconds send = std::ldexp(1.0, -22), recv = std::ldexp(3.0, -22);
  Ticking receiver(loop.rank(0), now, 0, recv);
  Ticking sender(loop.rank(1), now, send, 0);
  const CoreTimes t = time_core(receiver, sender, [&] { return now; }, {.messages = 16, .trains = 5, .warmup = 1});
  EXPECT_EQ(t.send, send);
  EXPECT_EQ(t.recv, recv);
  EXPECT_EQ(t.messages, 16);
  EXPECT_EQ(t.trains, 5);
}

// The core's real handling of an 8-byte message at each end: more than
// nothing and less than 50 us (it runs in about a tenth of a microsecond).
TEST(CoreProbe, TheCoresTimeIsPositiveAndBounded) {
  const CoreTimes t = probe_core({.messages = 32, .trains = 9, .warmup = 2});
  EXPECT_GT(t.send, 0);
  EXPECT_GT(t.recv, 0);
  EXPECT_LT(t.send, 50e-6);
  EXPECT_LT(t.recv, 50e-6);
  EXPECT_EQ(t.trains, 9);
}

TEST(CoreProbe, ATrainOfNothingIsRefused) {
  EXPECT_THROW(probe_core({.messages = 0}), std::invalid_argument);
  EXPECT_THROW(probe_core({.trains = 0}), std::invalid_argument);
  EXPECT_THROW(probe_core({.warmup = -1}), std::invalid_argument);
  InProcessLoop loop;
  EXPECT_THROW(loop.rank(2), std::invalid_argument);
}

}  // namespace
}  // namespace xover::calib
