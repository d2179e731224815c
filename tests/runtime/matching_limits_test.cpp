// The bounds of matching: a header numbered too far past the next message
// to match is corrupt and dropped, rather than held (the Worker keeps a
// slot for every number between), and what comes next still matches.
// Over every backend, skipped where one cannot run.
#include <gtest/gtest.h>

#include <cstring>

#include "protocols/core/worker.hpp"
#include "protocols/eager/eager.hpp"
#include "protocols/wire.hpp"
#include "tests/support/backend.hpp"

namespace xover::test {
namespace {

std::string platform() {
  return std::string(XOVER_SOURCE_DIR) + "/tests/data/platforms/two_rails_skewed.xml";
}

class MatchingLimits : public ::testing::TestWithParam<std::string> {};

TEST_P(MatchingLimits, AHeaderTooFarAheadIsDroppedAndTheNextMessageMatches) {
  if (const std::string why = unavailable(GetParam()); !why.empty())
    GTEST_SKIP() << why;
  constexpr Tag kTag = 0x51;
  const Problems problems = run_ranks(GetParam(), 2, platform(), [](Rank rank, Transport& transport, Problems& p) {
    Worker worker(transport, SelectConfig{});
    std::uint64_t value = 0x1122334455667788;
    if (rank == 0) {
      // A forged eager header, numbered past the bound whatever the
      // receiver has matched, then a real message.
      wire::EagerHeader forged;
      forged.put(kTag).put(Worker::kMaxEarly + 5);
      const std::size_t am = *worker.table(1).lanes().am;
      const ConstBuffer payload{reinterpret_cast<const std::byte*>(&value), sizeof value};
      if (transport.am_send(am, 1, kAmEager, forged.bytes(), payload, AmMode::Short, [](Status) {}) != Status::Ok)
        p.push_back("the forged message was not sent");
      Request* s = worker.tag_send(1, payload, kTag);
      worker.wait(s);
      worker.release(s);
      Request* ack = worker.tag_recv({reinterpret_cast<std::byte*>(&value), sizeof value}, kTag + 1);
      worker.wait(ack);
      worker.release(ack);
      return;
    }
    std::uint64_t got = 0;
    Request* r = worker.tag_recv({reinterpret_cast<std::byte*>(&got), sizeof got}, kTag);
    worker.wait(r);
    if (r->status != Status::Ok || got != value || r->seq != 0)
      p.push_back("the real message did not match first (seq " + std::to_string(r->seq) + ")");
    worker.release(r);
    if (worker.stats().bad_headers != 1)
      p.push_back("counted " + std::to_string(worker.stats().bad_headers) + " bad headers, want 1");
    Request* ack = worker.tag_send(0, {reinterpret_cast<const std::byte*>(&got), sizeof got}, kTag + 1);
    worker.wait(ack);
    worker.release(ack);
    worker.flush();
  });
  EXPECT_TRUE(problems.empty()) << join(problems);
}

INSTANTIATE_TEST_SUITE_P(Backends, MatchingLimits, ::testing::ValuesIn(all_backends()), param_name);

}  // namespace
}  // namespace xover::test
