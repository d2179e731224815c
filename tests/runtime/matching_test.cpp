// The matching suite: messages from one rank to another are matched in the
// order they were sent, whatever protocol, lanes or fragment order carried
// them, with tag masks, unexpected messages, truncation and a thousand
// requests in flight. One set of bodies, run over every backend (the
// simulation, shared memory, TCP with two connections per peer); every
// payload byte is checked against a pattern of (sender, message index,
// offset).
//
// In simulation the platform, tests/data/platforms/two_rails_skewed.xml,
// has two rails: r0 at 5 us and 10 GB/s, r1 at 0.5 us and 8 GB/s, with 1 KiB
// segments. Multi-eager and rendezvous lanes list r0 first, small messages
// go on r1: a multi-eager message arrives out of offset order, and a
// message on r1 overtakes an earlier one on r0. The tests check that
// premise too, so that a change of platform or lane selection that stops
// the overtaking fails them rather than leaving tests that test nothing.
// On hardware, the lanes report fixed figures to the worker (SteadyFigures,
// tests/support/forwarding_transport.hpp), so which protocol carries a size
// depends only on what the backend's lanes can do, not on what it measured;
// whether one message overtakes another depends on timing. Those premises
// are checked in simulation only, and a hardware run checks instead that
// the sizes of a test took several protocols.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "tests/runtime/matching_bodies.hpp"
#include "tests/support/arrival_log.hpp"

namespace xover::test {
namespace {

// --- One multi-eager message ---------------------------------------------

constexpr Tag kMultiTag = 0x2A;
constexpr Bytes kMultiSize = 50000;  // 51 fragments on the test platform

/// When rank 1 posts its receive: null for before the message is sent,
/// else as soon as this is true.
using PostWhen = std::function<bool(const Worker&, const ArrivalLog&)>;
/// Rank 1's checks of its counters, when it posted and at the end.
using StatsCheck = std::function<void(const WorkerStats& at_post, const WorkerStats& at_end, Problems&)>;

/// Rank 0 sends one kMultiSize-byte message with `protocol` over two lanes;
/// rank 1 receives it, posting as `post_when` says, and checks the message,
/// that its fragments arrived out of order, and its counters.
RankBody one_multi_eager(const std::string& protocol, const PostWhen& post_when, const StatsCheck& check_stats = {}) {
  return [=](Rank rank, Transport& transport, Problems& p) {
    SelectConfig config;
    config.set("proto", protocol);
    config.set("max_eager_lanes", "2");
    ArrivalLog log(transport);
    Worker worker(log, config);
    if (rank == 0) {
      check_protocol(worker, 1, kMultiSize, protocol, p, 2);
      send_stream(worker, rank, 1, 1, [](std::size_t) { return kMultiTag; }, [](std::size_t) { return kMultiSize; }, p);
      return;
    }
    Inbox in(worker);
    if (!post_when)
      in.post(kMultiSize, kMultiTag);
    signal_ready(worker, 0);
    while (post_when && !post_when(worker, log))
      worker.progress();
    const WorkerStats at_post = worker.stats();
    if (post_when)
      in.post(kMultiSize, kMultiTag);
    in.wait_all();
    in.check(0, {0, 0, kMultiSize, kMultiTag}, p);
    if (strict_premises)
      log.check_out_of_order(p);
    if (check_stats)
      check_stats(at_post, worker.stats(), p);
  };
}

bool all_held(const Worker& worker, const ArrivalLog&) {
  return worker.stats().buffered_now == kMultiSize;
}

bool first_piece_in(const Worker&, const ArrivalLog& log) {
  return !log.pieces().empty();
}

// 1. One tag, every protocol: messages of sizes that take eager/short,
// eager/bcopy, eager/multi/bcopy over two lanes, rndv/am and rndv/get, sent
// back to back, go to the receives in send order, although some begin to
// arrive before earlier ones.
TEST_P(Matching, OrderHoldsAcrossProtocolsAndLanes) {
  constexpr Tag kTag = 0x77;
  const auto& sizes = mixed_sizes();
  const std::size_t messages = 3 * sizes.size();
  auto size_of = [&](std::size_t i) { return sizes[i % sizes.size()].size; };
  const Problems problems = run(2, [&](Rank rank, Transport& transport, Problems& p) {
    ArrivalLog log(transport);
    Worker worker(log, every_protocol());
    if (rank == 0) {
      check_protocols(worker, 1, sizes, 4, p);
      send_stream(worker, rank, 1, messages, [](std::size_t) { return kTag; }, size_of, p);
      return;
    }
    Inbox in(worker);
    post_receives(worker, true, messages, [&] {
      for (std::size_t i = 0; i < messages; ++i)
        in.post(100000, kTag);
    });
    in.wait_all();
    for (std::size_t i = 0; i < messages; ++i)
      in.check(i, {0, i, size_of(i), kTag}, p);
    if (strict_premises && !log.messages_overtook())
      p.push_back("premise: every message began to arrive after the one sent before it");
  });
  EXPECT_TRUE(problems.empty()) << join(problems);
}

// 2. The fragments of one multi-eager message over two lanes arrive out of
// offset order (r1 overtakes r0) and are put together right, bcopy and
// zcopy, whether the receive is posted first or after the last fragment.
TEST_P(Matching, MultiEagerFragmentsOutOfOrder) {
  Problems problems;
  for (const std::string protocol : {"eager/multi/bcopy", "eager/multi/zcopy"}) {
    if (protocol == "eager/multi/zcopy" && !has_lane(LaneCap::AmZcopy))
      continue;  // no lane carries zero-copy active messages (shared memory's, as UCX's mm, has none)
    run(protocol + ", posted first", 2, one_multi_eager(protocol, nullptr), problems);
    run(protocol + ", posted late", 2, one_multi_eager(protocol, all_held), problems);
  }
  EXPECT_TRUE(problems.empty()) << join(problems);
}

// 3. A multi-eager message whose receive comes only after every fragment is
// in is held whole as unexpected: the worker counts it, holds exactly its
// size at the peak, and holds nothing once the receive has taken it.
TEST_P(Matching, UnexpectedMultiEagerIsHeldThenDelivered) {
  const Problems problems = run(2, one_multi_eager("eager/multi/bcopy", all_held,
                                                   [](const WorkerStats& at_post, const WorkerStats& at_end, Problems& p) {
    if (at_post.unexpected != 1 || at_post.buffered_peak != kMultiSize)
      p.push_back("while held: " + std::to_string(at_post.unexpected) + " unexpected and a peak of " +
                  std::to_string(at_post.buffered_peak) + " bytes, want 1 and " + std::to_string(kMultiSize));
    if (at_end.buffered_now != 0)
      p.push_back(std::to_string(at_end.buffered_now) + " bytes still held after the receive");
  }));
  EXPECT_TRUE(problems.empty()) << join(problems);
}

// 4. A receive posted while an unexpected multi-eager message is arriving
// (after its first fragment, before its last) takes the fragments held so
// far and the rest straight: the message is whole, nothing stays held.
TEST_P(Matching, ReceivePostedWhileMultiEagerArrives) {
  const Problems problems = run(2, one_multi_eager("eager/multi/bcopy", first_piece_in,
                                                   [](const WorkerStats& at_post, const WorkerStats& at_end, Problems& p) {
    if (strict_premises && (at_post.buffered_now == 0 || at_post.buffered_now >= kMultiSize))
      p.push_back("premise: " + std::to_string(at_post.buffered_now) + " bytes held when the receive was posted");
    if (at_end.unexpected != 1 || at_end.buffered_now != 0)
      p.push_back(std::to_string(at_end.unexpected) + " unexpected, " + std::to_string(at_end.buffered_now) +
                  " bytes still held; want 1 and 0");
  }));
  EXPECT_TRUE(problems.empty()) << join(problems);
}

// 5. Tag masks: a receive for a family of tags (mask 0xFF00) takes the first
// message of that family in send order, posted or unexpected; a receive
// that matches nothing stays pending while later messages go to the
// receives after it, then takes the first message that matches it.
TEST_P(Matching, TagMasksTakeTheFirstMatchInSendOrder) {
  constexpr Tag kFamily = 0xFF00;
  // In send order: 0..4 to receives posted first, 5 to the one left
  // pending, 6..8 before any receive for them.
  const std::vector<std::pair<Tag, Bytes>> sent = {{0x1201, 64},  {0x3401, 30000}, {0x1202, 5000},
                                                   {0x3402, 100000}, {0x12FF, 0},  {0x5601, 700},
                                                   {0x1203, 90000}, {0x3403, 20},  {0x1204, 3000}};
  const Problems problems = run(2, [&](Rank rank, Transport& transport, Problems& p) {
    Worker worker(transport, every_protocol());
    if (rank == 0) {
      send_stream(worker, rank, 1, sent.size(), [&](std::size_t i) { return sent[i].first; },
                  [&](std::size_t i) { return sent[i].second; }, p, 5);
      return;
    }
    Inbox in(worker);
    const std::size_t a0 = in.post(100000, 0x1200, kFamily);    // the first 0x12xx: message 0
    const std::size_t none = in.post(100000, 0x5600, kFamily);  // nothing until message 5
    const std::size_t b1 = in.post(100000, 0x3402);             // exactly message 3
    const std::size_t b0 = in.post(100000, 0x3400, kFamily);    // the first 0x34xx left: message 1
    const std::size_t a1 = in.post(100000, 0x1200, kFamily);    // message 2
    const std::size_t any = in.post(100000, 0, 0);              // the next one left: message 4
    signal_ready(worker, 0);
    for (std::size_t i : {a0, b1, b0, a1, any})
      worker.wait(&in.request(i));
    if (in.request(none).done)
      p.push_back("the receive for 0x56xx completed before any 0x56xx message was sent");
    signal_ready(worker, 0);
    worker.wait(&in.request(none));
    while (worker.stats().unexpected < 3)
      worker.progress();
    const std::size_t late_a0 = in.post(100000, 0x1200, kFamily);  // message 6, though 7 is in the way
    const std::size_t late_a1 = in.post(100000, 0x1200, kFamily);  // message 8
    const std::size_t late_b0 = in.post(100000, 0x3400, kFamily);  // message 7
    in.wait_all();
    const std::size_t receive_of[] = {a0, b0, a1, b1, any, none, late_a0, late_b0, late_a1};
    for (std::size_t m = 0; m < sent.size(); ++m)
      in.check(receive_of[m], {0, m, sent[m].second, sent[m].first}, p);
    if (worker.stats().unexpected != 3)
      p.push_back(std::to_string(worker.stats().unexpected) + " unexpected messages, want 3");
  });
  EXPECT_TRUE(problems.empty()) << join(problems);
}

INSTANTIATE_TEST_SUITE_P(Backends, Matching, ::testing::ValuesIn(all_backends()), param_name);

}  // namespace
}  // namespace xover::test
