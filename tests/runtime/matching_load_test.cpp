// The matching suite under load and faults (see matching_test.cpp for the
// suite, its platform and its premises): 1,200 requests in flight,
// truncation for every protocol, two senders, a second RTR dropped. The
// fixture is instantiated over every backend in matching_test.cpp.
#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "tests/runtime/matching_bodies.hpp"
#include "tests/support/arrival_log.hpp"

namespace xover::test {
namespace {

// 6. 1,200 sends in flight at once, of every protocol, on four tags, to
// 1,200 receives posted grouped by tag: the k-th receive of a tag gets the
// k-th message of that tag. Once with the receives posted before the sends,
// once with every message unexpected.
TEST_P(Matching, ThousandsOfOutstandingRequests) {
  constexpr std::size_t kMessages = 1200;
  constexpr Tag kTags = 4;
  std::vector<std::size_t> post_order;  // message indices, grouped by tag
  for (Tag t = 0; t < kTags; ++t)
    for (std::size_t i = t; i < kMessages; i += kTags)
      post_order.push_back(i);
  Problems problems;
  for (const bool posted_first : {true, false}) {
    run(posted_first ? "posted first" : "posted late", 2,
        [&](Rank rank, Transport& transport, Problems& p) {
          Worker worker(transport, every_protocol());
          if (rank == 0) {
            send_stream(worker, rank, 1, kMessages, [](std::size_t i) { return i % kTags; }, stream_size, p);
            return;
          }
          Inbox in(worker);
          post_receives(worker, posted_first, kMessages, [&] {
            for (std::size_t i : post_order)
              in.post(stream_size(i), i % kTags);
          });
          in.wait_all();
          for (std::size_t k = 0; k < kMessages; ++k)
            in.check(k, {0, post_order[k], stream_size(post_order[k]), post_order[k] % kTags}, p);
          const std::size_t unexpected = posted_first ? 0 : kMessages;
          if (worker.stats().unexpected != unexpected)
            p.push_back(std::to_string(worker.stats().unexpected) + " unexpected messages, want " +
                        std::to_string(unexpected));
        },
        problems);
  }
  EXPECT_TRUE(problems.empty()) << join(problems);
}

// 7. Truncation, for every protocol: a message larger than its receive
// buffer completes that receive with Status::Error, with the bytes that fit
// in place and none past the end, and the next message arrives intact.
// Once with the receives posted first, once with the messages unexpected.
TEST_P(Matching, TruncationFailsOneReceiveAndSparesTheNext) {
  constexpr Tag kTag = 0x7E;
  const std::vector<SizedProtocol> cases = {
      {100, "eager/short"}, {300, "eager/bcopy"}, {5000, "eager/multi/bcopy"}, {30000, "rndv/am"}, {100000, "rndv/get"}};
  // Message 2k is cases[k] into half its size, message 2k+1 the same size whole.
  const std::size_t messages = 2 * cases.size();
  auto size_of = [&](std::size_t m) { return cases[m / 2].size; };
  Problems problems;
  for (const bool posted_first : {true, false}) {
    run(posted_first ? "posted first" : "posted late", 2,
        [&](Rank rank, Transport& transport, Problems& p) {
          Worker worker(transport, every_protocol());
          if (rank == 0) {
            check_protocols(worker, 1, cases, 3, p);
            send_stream(worker, rank, 1, messages, [](std::size_t) { return kTag; }, size_of, p);
            return;
          }
          Inbox in(worker);
          post_receives(worker, posted_first, messages, [&] {
            for (std::size_t m = 0; m < messages; ++m)
              in.post(m % 2 ? size_of(m) : size_of(m) / 2, kTag);
          });
          in.wait_all();
          for (std::size_t m = 0; m < messages; ++m)
            in.check(m, {0, m, size_of(m), kTag}, p, m % 2 == 0);
        },
        problems);
  }
  EXPECT_TRUE(problems.empty()) << join(problems);
}

// 8. Two senders, one receiver, one tag: the receives, open to any source,
// get each sender's messages in that sender's order, interleaved.
TEST_P(Matching, TwoSendersKeepTheirOwnOrder) {
  constexpr Tag kTag = 0x88;
  const auto& sizes = mixed_sizes();
  const std::size_t kPerSender = 4 * sizes.size();
  auto size_of = [&](std::size_t i) { return sizes[i % sizes.size()].size; };
  const Problems problems = run(3, [&](Rank rank, Transport& transport, Problems& p) {
    ArrivalLog log(transport);
    Worker worker(log, every_protocol());
    if (rank != 1) {
      send_stream(worker, rank, 1, kPerSender, [](std::size_t) { return kTag; }, size_of, p);
      return;
    }
    Inbox in(worker);
    for (std::size_t i = 0; i < 2 * kPerSender; ++i)
      in.post(100000, kTag);
    signal_ready(worker, 0);
    signal_ready(worker, 2);
    in.wait_all();
    std::size_t next[3] = {0, 0, 0};
    std::size_t switches = 0;
    for (std::size_t i = 0; i < 2 * kPerSender; ++i) {
      const Rank source = in.request(i).peer;
      if (source != 0 && source != 2) {
        p.push_back("receive " + std::to_string(i) + " got a message from rank " + std::to_string(source));
        continue;
      }
      switches += i > 0 && source != in.request(i - 1).peer;
      const std::size_t index = next[source]++;
      in.check(i, {source, index, size_of(index), kTag}, p);
    }
    if (strict_premises && switches < 2)
      p.push_back("premise: the two senders' messages did not interleave");
    if (strict_premises && !log.messages_overtook())
      p.push_back("premise: every message began to arrive after the one its sender sent before it");
  });
  EXPECT_TRUE(problems.empty()) << join(problems);
}

/// Sends every RTR twice, as a faulty peer might.
class RtrTwice final : public ForwardingTransport {
 public:
  using ForwardingTransport::ForwardingTransport;
  Status am_send(std::size_t lane, Rank peer, AmId id, std::span<const std::byte> header, ConstBuffer payload,
                 AmMode mode, Completion done) override {
    if (id == kAmRtr)
      inner_.am_send(lane, peer, id, header, payload, mode, [](Status) {});
    return inner_.am_send(lane, peer, id, header, payload, mode, std::move(done));
  }
};

// 9. A second RTR for one rndv/am send is dropped as a bad header: the
// sender has left its Rts stage and sends the data once.
TEST_P(Matching, SecondRtrIsDropped) {
  static constexpr Tag kTag = 0x99;
  static constexpr Bytes kSize = 30000;
  if (!has_lane(LaneCap::AmZcopy))
    GTEST_SKIP() << "no lane of this backend carries zero-copy active messages (shared memory has none), so rndv/am "
                    "does not run there";
  const Problems problems = run(2, [&](Rank rank, Transport& transport, Problems& p) {
    // Every message by rndv/am, the ready signals too: rank 1 doubles only
    // the RTRs of rank 0's sends, of which the data message is the one.
    SelectConfig config;
    config.set("proto", "rndv/am");
    RtrTwice faulty(transport);
    Worker worker(rank == 0 ? transport : faulty, config);
    if (rank == 0) {
      if (!worker.table(1).lookup(kSize))
        p.push_back("premise: rndv/am cannot carry " + std::to_string(kSize) + " bytes on this backend");
      send_stream(worker, rank, 1, 1, [](std::size_t) { return kTag; }, [](std::size_t) { return kSize; }, p);
      await_ready(worker);  // the receive is done, so both RTRs are in
      if (worker.stats().bad_headers != 1)
        p.push_back("the sender counted " + std::to_string(worker.stats().bad_headers) + " bad headers, want 1");
      return;
    }
    Inbox in(worker);
    in.post(kSize, kTag);
    signal_ready(worker, 0);
    in.wait_all();
    in.check(0, {0, 0, kSize, kTag}, p);
    signal_ready(worker, 0);
    if (worker.stats().bad_headers != 0)
      p.push_back("the receiver counted " + std::to_string(worker.stats().bad_headers) + " bad headers (data sent twice?)");
  });
  EXPECT_TRUE(problems.empty()) << join(problems);
}

}  // namespace
}  // namespace xover::test
