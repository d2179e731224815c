// rndv/pipe's pipeline without a GPU: two Workers in one process over a
// loop of inboxes (tests/support/loop_pair.hpp), each rank's device memory
// host bytes whose started copies complete at a later poll
// (tests/support/lagged_memory.hpp), the newest first unless asked
// otherwise. Every byte checked at the end; fragments in flight, the
// pipeline's depth and the order fragments leave in checked along the way.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <set>

#include "tests/support/lagged_memory.hpp"
#include "tests/support/loop_pair.hpp"

namespace xover {
namespace {

using test::LaggedMemory;
using Kind = DeviceMemory::CopyKind;
constexpr Bytes kFragment = test::kLoopFragment;

/// The two ranks' memories and the pair over them.
struct Pair {
  explicit Pair(LaggedMemory::Order order = LaggedMemory::Order::NewestFirst, std::size_t depth = 4)
      : receiver_memory(order), sender_memory(order), io(init(depth)) {}

  test::LoopPair& init(std::size_t depth) {
    receiver_memory.set_pipeline_depth(depth);
    sender_memory.set_pipeline_depth(depth);
    pair = std::make_unique<test::LoopPair>(receiver_memory, sender_memory);
    return *pair;
  }
  void start(Bytes size) { ASSERT_TRUE(pair->start(size)); }
  bool run(int polls = 100000) { return pair->run(polls); }
  Bytes first_wrong() { return pair->first_wrong(); }

  LaggedMemory receiver_memory;
  LaggedMemory sender_memory;
  std::unique_ptr<test::LoopPair> pair;
  test::LoopPair& io;
};

TEST(MtypePipeline, EveryByteArrivesWhateverOrderTheCopiesCompleteIn) {
  for (const auto order : {LaggedMemory::Order::OldestFirst, LaggedMemory::Order::NewestFirst}) {
    for (const Bytes size : {Bytes{0}, Bytes{1}, kFragment - 1, kFragment, kFragment + 1, 4 * kFragment + 17,
                             20 * kFragment + 13}) {
      Pair pair(order);
      pair.start(size);
      ASSERT_TRUE(pair.run()) << size << " B";
      EXPECT_EQ(pair.io.send->status, Status::Ok) << size << " B";
      EXPECT_EQ(pair.io.recv->status, Status::Ok) << size << " B";
      EXPECT_EQ(pair.io.recv->received, size);
      EXPECT_EQ(pair.first_wrong(), size) << size << " B";
      const std::size_t fragments = size == 0 ? 0 : (size + kFragment - 1) / kFragment;
      EXPECT_EQ(pair.sender_memory.started(Kind::ToHost), fragments) << size << " B";
      EXPECT_EQ(pair.receiver_memory.started(Kind::ToDevice), fragments) << size << " B";
      EXPECT_EQ(pair.io.loop.fragments_sent.size(), std::max<std::size_t>(fragments, 1)) << size << " B";
      EXPECT_EQ(pair.sender_memory.copies_in_flight() + pair.receiver_memory.copies_in_flight(), 0U);
    }
  }
}

// Copies that complete newest first send the fragments out of order; the
// receiver places each where its header says.
TEST(MtypePipeline, FragmentsLeaveAsTheirCopiesCompleteNotInOrder) {
  Pair pair(LaggedMemory::Order::NewestFirst);
  pair.start(12 * kFragment);
  ASSERT_TRUE(pair.run());
  const std::vector<Bytes>& sent = pair.io.loop.fragments_sent;
  ASSERT_EQ(sent.size(), 12U);
  EXPECT_FALSE(std::is_sorted(sent.begin(), sent.end()));
  EXPECT_EQ(sent.front(), 3 * kFragment) << "the fourth copy, started last of the first four, completes first";
  EXPECT_EQ(std::set<Bytes>(sent.begin(), sent.end()).size(), 12U) << "each fragment once";
  EXPECT_EQ(pair.first_wrong(), pair.io.size);
}

// The sender never has more fragments in flight than the depth, and has
// that many while the message lasts; it stages through as many slots, used
// again and again.
TEST(MtypePipeline, TheSenderKeepsTheDepthOfFragmentsInFlightAndNoMore) {
  for (const std::size_t depth : {1, 2, 3, 7}) {
    Pair pair(LaggedMemory::Order::OldestFirst, depth);
    pair.start(20 * kFragment);
    ASSERT_TRUE(pair.run()) << "depth " << depth;
    EXPECT_EQ(pair.sender_memory.most_in_flight(Kind::ToHost), depth);
    EXPECT_EQ(pair.sender_memory.staging_slots(), depth);
    EXPECT_EQ(pair.first_wrong(), pair.io.size) << "depth " << depth;
  }
}

// On the receiver each fragment's copy out starts as it lands, before the
// earlier ones have completed, up to the depth; the receive completes only
// once the last has.
TEST(MtypePipeline, TheReceiveCompletesOnlyWhenEveryCopyOutHas) {
  Pair pair;
  pair.receiver_memory.hold(true);
  pair.start(6 * kFragment + 5);
  EXPECT_FALSE(pair.run(2000));
  EXPECT_TRUE(pair.io.send->done) << "the sender is done once its fragments have left";
  EXPECT_FALSE(pair.io.recv->done);
  EXPECT_EQ(pair.receiver_memory.copies_in_flight(), 4U) << "every fragment has landed, the depth's copies started";
  EXPECT_EQ(pair.first_wrong(), 0U) << "no byte is in the device buffer before its copy completes";
  pair.receiver_memory.hold(false);
  ASSERT_TRUE(pair.run());
  EXPECT_EQ(pair.io.recv->status, Status::Ok);
  EXPECT_EQ(pair.first_wrong(), pair.io.size);
}

// Every fragment lands while the receiver's copies are held: the depth's
// copies start, each in a staging slot, and the rest wait for a slot; the
// receiver never makes more slots than the depth, and every byte arrives.
TEST(MtypePipeline, TheReceiverStagesThroughNoMoreSlotsThanTheDepth) {
  for (const auto order : {LaggedMemory::Order::OldestFirst, LaggedMemory::Order::NewestFirst}) {
    for (const std::size_t depth : {1, 2, 4}) {
      Pair pair(order, depth);
      pair.receiver_memory.hold(true);
      pair.start(20 * kFragment + 5);
      EXPECT_FALSE(pair.run(2000));
      ASSERT_TRUE(pair.io.send->done) << "every fragment has left the sender";
      EXPECT_EQ(pair.receiver_memory.copies_in_flight(), depth);
      EXPECT_EQ(pair.receiver_memory.staging_taken(), depth);
      pair.receiver_memory.hold(false);
      ASSERT_TRUE(pair.run()) << "depth " << depth;
      EXPECT_EQ(pair.io.recv->status, Status::Ok);
      EXPECT_EQ(pair.receiver_memory.started(Kind::ToDevice), 21U);
      EXPECT_EQ(pair.receiver_memory.most_in_flight(Kind::ToDevice), depth);
      EXPECT_EQ(pair.receiver_memory.staging_slots(), depth) << "depth " << depth;
      EXPECT_EQ(pair.receiver_memory.staging_taken(), 0U);
      EXPECT_EQ(pair.first_wrong(), pair.io.size) << "depth " << depth;
    }
  }
}

TEST(MtypePipeline, AFailedCopyFailsItsRequest) {
  Pair sender_fails;
  sender_fails.sender_memory.fail_copies();
  sender_fails.start(8 * kFragment);
  sender_fails.run(2000);
  ASSERT_TRUE(sender_fails.io.send->done);
  EXPECT_EQ(sender_fails.io.send->status, Status::Error);
  EXPECT_LT(sender_fails.io.loop.fragments_sent.size(), 8U) << "no fragment goes after a failed copy";

  Pair receiver_fails;
  receiver_fails.receiver_memory.fail_copies();
  receiver_fails.start(3 * kFragment);
  ASSERT_TRUE(receiver_fails.run());
  EXPECT_EQ(receiver_fails.io.send->status, Status::Ok);
  EXPECT_EQ(receiver_fails.io.recv->status, Status::Error);
}

// Polls `memory` until its copies have completed (what Worker::progress
// does, without the worker's failing of its open requests).
void complete_copies(LaggedMemory& memory) {
  memory.hold(false);
  while (memory.copies_in_flight() > 0)
    memory.progress();
}

// The transport fails while the sender's copies to host are in flight: the
// send completes with Error at once and is released, but its request stays
// out of the pool until those copies complete, so that their completions
// do not touch the next request; then it is used again.
TEST(MtypePipeline, ASendReleasedWithCopiesInFlightIsNotUsedAgainUntilTheyComplete) {
  Pair pair(LaggedMemory::Order::OldestFirst);
  pair.sender_memory.hold(true);
  pair.start(8 * kFragment);
  EXPECT_FALSE(pair.run(50));
  ASSERT_EQ(pair.sender_memory.copies_in_flight(), 4U);
  pair.io.break_down();
  ASSERT_TRUE(pair.run(1));
  EXPECT_EQ(pair.io.send->status, Status::Error);
  Request* failed = pair.io.send;
  pair.io.sender().release(failed);
  std::array<std::byte, 16> host{};
  Request* next = pair.io.sender().tag_recv({host.data(), host.size()}, 9);
  EXPECT_NE(next, failed) << "a request whose copies are in flight is not handed out again";
  complete_copies(pair.sender_memory);
  EXPECT_FALSE(next->done);
  EXPECT_EQ(next->status, Status::Ok);
  EXPECT_EQ(next->outstanding, 0U);
  EXPECT_EQ(next->offset, 0U);
  EXPECT_EQ(pair.sender_memory.staging_taken(), 0U) << "every slot given back";
  EXPECT_EQ(pair.io.sender().tag_recv({host.data(), host.size()}, 10), failed)
      << "back in the pool once its copies have completed";
}

// The same at the receiver, with its copies into the device buffer in flight.
TEST(MtypePipeline, AReceiveReleasedWithCopiesInFlightIsNotUsedAgainUntilTheyComplete) {
  Pair pair(LaggedMemory::Order::OldestFirst);
  pair.receiver_memory.hold(true);
  pair.start(3 * kFragment);
  for (int i = 0; i < 100 && pair.receiver_memory.copies_in_flight() < 3; ++i)
    pair.run(1);
  ASSERT_EQ(pair.receiver_memory.copies_in_flight(), 3U);
  pair.io.break_down();
  ASSERT_TRUE(pair.run(1));
  EXPECT_EQ(pair.io.recv->status, Status::Error);
  Request* failed = pair.io.recv;
  pair.io.receiver().release(failed);
  std::array<std::byte, 16> host{};
  Request* next = pair.io.receiver().tag_recv({host.data(), host.size()}, 9);
  EXPECT_NE(next, failed) << "a request whose copies are in flight is not handed out again";
  complete_copies(pair.receiver_memory);
  EXPECT_FALSE(next->done);
  EXPECT_EQ(next->status, Status::Ok);
  EXPECT_EQ(next->outstanding, 0U);
  EXPECT_EQ(next->received, 0U);
  EXPECT_EQ(pair.receiver_memory.staging_taken(), 0U) << "every slot given back";
  EXPECT_EQ(pair.io.receiver().tag_recv({host.data(), host.size()}, 10), failed)
      << "back in the pool once its copies have completed";
}

}  // namespace
}  // namespace xover
