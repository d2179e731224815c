// The verbs backend's data-path logic that needs no RDMA device, where
// none exists: the wire header, credit flow control, the queues'
// bookkeeping (receive segments, selective signalling, bounce buffers) and
// work requests as data (put with signal included). The set-up's logic,
// the address card and the registration cache have files of their own.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <deque>
#include <utility>
#include <random>

#include "runtime/verbs/verbs_credits.hpp"
#include "runtime/verbs/verbs_queues.hpp"
#include "runtime/verbs/verbs_wire.hpp"
#include "runtime/verbs/verbs_wr.hpp"

namespace xover::runtime::verbs {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// ---------------------------------------------------------------- wire

std::vector<std::byte> message(WireHeader h, std::size_t header_bytes, std::size_t payload_bytes) {
  std::vector<std::byte> m(kWireHeader + header_bytes + payload_bytes);
  h.header_length = static_cast<std::uint16_t>(header_bytes);
  h.encode(m.data());
  for (std::size_t i = kWireHeader; i < m.size(); ++i)
    m[i] = static_cast<std::byte>(i);
  return m;
}

TEST(VerbsWire, AnActiveMessageComesBackWithItsViews) {
  WireHeader h;
  h.kind = WireKind::Am;
  h.am_id = 7;
  h.grant = 12;
  const auto m = message(h, 24, 100);
  WireMessage out;
  ASSERT_EQ(decode_wire(m.data(), m.size(), 512, out), "");
  EXPECT_EQ(out.header.kind, WireKind::Am);
  EXPECT_EQ(out.header.am_id, 7);
  EXPECT_EQ(out.header.grant, 12);
  EXPECT_EQ(out.am_header.data(), m.data() + kWireHeader);
  EXPECT_EQ(out.am_header.size(), 24U);
  EXPECT_EQ(out.payload.data(), m.data() + kWireHeader + 24);
  EXPECT_EQ(out.payload.size(), 100U);
}

TEST(VerbsWire, AGrantIsTheHeaderAlone) {
  WireHeader h;
  h.kind = WireKind::Grant;
  h.grant = 384;
  const auto m = message(h, 0, 0);
  WireMessage out;
  ASSERT_EQ(decode_wire(m.data(), m.size(), 512, out), "");
  EXPECT_EQ(out.header.grant, 384);
  const auto longer = message(h, 0, 8);
  EXPECT_THAT(decode_wire(longer.data(), longer.size(), 512, out), HasSubstr("a grant message of 16 bytes"));
}

TEST(VerbsWire, BrokenRulesAreNamed) {
  WireHeader h;
  WireMessage out;
  auto m = message(h, 4, 4);
  EXPECT_THAT(decode_wire(m.data(), 7, 512, out), HasSubstr("shorter than the 8-byte header"));
  EXPECT_THAT(decode_wire(m.data(), 11, 512, out), HasSubstr("an AM header of 4 bytes in a message of 11"));
  h.grant = 513;
  m = message(h, 0, 0);
  EXPECT_THAT(decode_wire(m.data(), m.size(), 512, out), HasSubstr("over the window of 512"));
  m[0] = std::byte{9};
  EXPECT_THAT(decode_wire(m.data(), m.size(), 1024, out), HasSubstr("unknown kind 9"));
  m[6] = std::byte{0};
  EXPECT_THAT(decode_wire(m.data(), m.size(), 1024, out), HasSubstr("without the xover magic"));
}

TEST(VerbsWire, HostileBytesNeverReachPastTheMessage) {
  std::mt19937_64 rng(12);
  std::vector<std::byte> buf(64);
  int accepted = 0;
  for (int i = 0; i < 20000; ++i) {
    for (std::byte& b : buf)
      b = static_cast<std::byte>(rng());
    if (i % 2 == 0) {  // half the time, fields near their limits, past the magic
      store_le(buf.data(), rng() % 5, 1);
      store_le(buf.data() + 2, rng() % 600, 2);
      store_le(buf.data() + 4, rng() % 80, 2);
      store_le(buf.data() + 6, kWireMagic, 2);
    }
    const std::size_t length = rng() % buf.size();
    WireMessage out;
    if (!decode_wire(buf.data(), length, 512, out).empty())
      continue;
    ++accepted;
    EXPECT_EQ(out.am_header.data(), buf.data() + kWireHeader);
    EXPECT_EQ(kWireHeader + out.am_header.size() + out.payload.size(), length);
  }
  EXPECT_GT(accepted, 0);
}

// ---------------------------------------------------------------- credits

TEST(VerbsCredits, TheSrqIsSharedAmongThePeers) {
  const SrqPlan one = plan_srq(1, 1 << 15);
  EXPECT_EQ(one.segments, 4096U);
  EXPECT_EQ(one.window, 512);  // capped
  const SrqPlan many = plan_srq(63, 1 << 15);
  EXPECT_EQ(many.segments, 4096U);
  EXPECT_EQ(many.window, (4096 - 31) / 63 - 2);
  const SrqPlan crowd = plan_srq(2000, 1 << 15);  // more segments than 4 k, for a window of 4
  EXPECT_EQ(crowd.segments, 31U + 6 * 2000);
  EXPECT_EQ(crowd.window, 4);
  const SrqPlan small_device = plan_srq(1, 1024);
  EXPECT_EQ(small_device.segments, 1024U);
  EXPECT_EQ(small_device.window, 512);
  const SrqPlan refused = plan_srq(5000, 16384);
  EXPECT_EQ(refused.window, 0);
  EXPECT_THAT(refused.problem, HasSubstr("5000 peers need 30031 receive segments"));
  EXPECT_THAT(refused.problem, HasSubstr("holds 16384"));
}

// Every peer with its whole window and both grants in flight, while the
// segments of the messages just taken in wait for their batch to be posted
// again (their credits already back with the senders): the posted segments
// must hold them all, for every peer count. The receiver's own refill is
// played out: a poll takes kPollBatch completions, then one refill.
TEST(VerbsCredits, TheSrqHoldsEveryWindowAndTheSegmentsAwaitingRepost) {
  for (std::uint32_t peers = 1; peers < 3000; ++peers) {
    const SrqPlan p = plan_srq(peers, 1 << 16);
    ASSERT_TRUE(p.problem.empty()) << peers;
    ASSERT_GE(p.window, kMinWindow) << peers;
    ASSERT_LE(std::uint64_t{peers} * (p.window + kGrantReserve) + kRepostSlack, p.segments) << peers;
  }
  for (const std::uint32_t peers : {8U, 15U, 63U}) {  // 8 and 15 left no slack at all before
    const SrqPlan p = plan_srq(peers, 1 << 16);
    RecvSegments segments(p.segments, kRefillBatch, p.segments / 2);
    std::uint32_t posted = static_cast<std::uint32_t>(segments.refill().size());
    const std::uint32_t in_flight = peers * (p.window + kGrantReserve);
    // The worst moment: kRefillBatch − 1 waiting from before, a poll that
    // took kPollBatch more, their credits granted back: every sender then
    // fills its window again.
    for (std::uint32_t i = 0; i < kRefillBatch - 1 + kPollBatch; ++i) {
      --posted;
      segments.consumed(i);
    }
    EXPECT_GE(posted, in_flight) << peers << " peers: a sender would meet an empty receive queue (RNR)";
    posted += static_cast<std::uint32_t>(segments.refill().size());
    EXPECT_EQ(segments.waiting(), kRefillBatch - 1) << peers;
  }
}

TEST(VerbsCredits, AnEmptyWindowIsNoResourceUntilAGrant) {
  Credits c(8, 8);
  for (int i = 0; i < 8; ++i) {
    ASSERT_TRUE(c.can_send());
    c.consume();
  }
  EXPECT_FALSE(c.can_send());
  EXPECT_FALSE(c.grant_in(9));  // beyond the window: refused, nothing changes
  EXPECT_EQ(c.credits(), 0);
  EXPECT_TRUE(c.grant_in(6));
  EXPECT_EQ(c.credits(), 6);
  EXPECT_FALSE(c.grant_in(3));
  EXPECT_TRUE(c.grant_in(2));
  EXPECT_EQ(c.credits(), 8);
}

TEST(VerbsCredits, GrantsRideAtHalfAndGoAloneAtThreeQuarters) {
  Credits c(8, 8);
  for (int i = 0; i < 3; ++i)
    c.arrived();
  EXPECT_EQ(c.piggyback(), 0);
  EXPECT_FALSE(c.grant_due());
  c.arrived();
  EXPECT_EQ(c.piggyback(), 4);  // half the window owed: it rides on the next message
  EXPECT_FALSE(c.grant_due());
  c.arrived();
  c.arrived();
  EXPECT_TRUE(c.grant_due());   // the peer has two credits left at most
  c.granted(c.owed());
  EXPECT_EQ(c.owed(), 0);
  EXPECT_EQ(c.piggyback(), 0);
  Credits tiny(1, 1);
  tiny.arrived();
  EXPECT_EQ(tiny.piggyback(), 1);
  EXPECT_TRUE(tiny.grant_due());
}

TEST(VerbsCredits, EachEndSendsByThePeersWindowAndGrantsByItsOwn) {
  Credits c(16, 64);  // the peer's queue gives this end 16; this end's gives the peer 64
  EXPECT_EQ(c.send_window(), 16);
  EXPECT_EQ(c.window(), 64);
  for (int i = 0; i < 16; ++i)
    c.consume();
  EXPECT_FALSE(c.can_send());
  EXPECT_FALSE(c.grant_in(17));
  EXPECT_TRUE(c.grant_in(16));
  for (int i = 0; i < 31; ++i)
    c.arrived();
  EXPECT_EQ(c.piggyback(), 0);  // half of 64, not of 16
  c.arrived();
  EXPECT_EQ(c.piggyback(), 32);
}

// Two endpoints over a modelled wire, the receiver slower than the sender
// at random and replying now and then, each end's window its own (as two
// devices, or two peer counts, give): neither end ever holds more than its
// own window of the other's messages, and the sender always recovers from
// NoResource.
TEST(VerbsCredits, AStreamNeverOverrunsTheReceiversOwnWindowAndNeverStalls) {
  struct Msg {
    std::uint16_t grant = 0;
    bool am = true;  ///< false: an explicit grant, outside the window
  };
  // One end of the pair: what it sends carries the piggyback, what it
  // takes in is counted, and a grant goes alone when due.
  auto send_am = [](Credits& from, std::deque<Msg>& wire) {
    from.consume();
    const std::uint16_t g = from.piggyback();
    from.granted(g);
    wire.push_back({g, true});
  };
  auto take = [](Credits& to, std::deque<Msg>& wire, std::deque<Msg>& back) {
    const Msg m = wire.front();
    wire.pop_front();
    if (!to.grant_in(m.grant))
      return false;
    if (m.am)
      to.arrived();
    if (to.grant_due()) {
      const std::uint16_t g = to.owed();
      to.granted(g);
      back.push_back({g, false});
    }
    return true;
  };
  for (const auto& [wa, wb] : {std::pair<std::uint16_t, std::uint16_t>{4, 4}, {62, 16}, {16, 62}, {512, 40}}) {
    const std::uint16_t window = wa;  // a's receive queue's share for b
    std::mt19937 rng(wa * 1000 + wb);
    Credits a(wb, wa);  // a sends by b's window
    Credits b(wa, wb);
    std::deque<Msg> to_b;
    std::deque<Msg> to_a;
    int delivered = 0;
    int no_resource = 0;
    for (int step = 0; delivered < 20000; ++step) {
      ASSERT_LT(step, 1000000) << "stalled at windows " << wa << " and " << wb;
      const int dice = static_cast<int>(rng() % 10);
      if (dice < 6) {
        if (a.can_send())
          send_am(a, to_b);
        else
          ++no_resource;
      } else if (dice < 9 && !to_b.empty()) {
        const bool am = to_b.front().am;
        ASSERT_TRUE(take(b, to_b, to_a));
        delivered += am;
        if (am && rng() % 50 == 0 && b.can_send())
          send_am(b, to_a);
      } else if (!to_a.empty()) {
        ASSERT_TRUE(take(a, to_a, to_b));
      }
      const auto ams = [](const std::deque<Msg>& wire) {
        return std::count_if(wire.begin(), wire.end(), [](const Msg& m) { return m.am; });
      };
      ASSERT_LE(ams(to_b) + b.owed(), wb);
      ASSERT_LE(ams(to_a) + a.owed(), wa);
    }
    EXPECT_GT(no_resource, 0) << window << " " << wb;
  }
}

// ---------------------------------------------------------------- queues

TEST(VerbsQueues, ReceiveSegmentsGoBackInBatches) {
  RecvSegments s(64, 16, 8);
  EXPECT_EQ(s.refill().size(), 64U);  // the first fill posts them all
  EXPECT_EQ(s.posted(), 64U);
  for (std::uint32_t i = 0; i < 15; ++i)
    s.consumed(i);
  EXPECT_THAT(s.refill(), IsEmpty());
  s.consumed(15);
  const auto batch = s.refill();
  EXPECT_EQ(batch.size(), 16U);
  EXPECT_EQ(s.posted(), 64U);
  EXPECT_EQ(s.waiting(), 0U);
  for (std::uint32_t i = 0; i < 60; ++i)  // below the low water: everything goes back
    s.consumed(i);
  EXPECT_EQ(s.refill().size(), 60U);
  s.consumed(3);
  for (std::uint32_t i = 10; i < 25; ++i)
    s.consumed(i);
  const auto again = s.refill();
  ASSERT_EQ(again.size(), 16U);
  s.unpost(again.size());  // the post failed: they wait again
  EXPECT_EQ(s.waiting(), 16U);
  EXPECT_EQ(s.posted(), 48U);
  EXPECT_EQ(s.refill().size(), 16U);
}

TEST(VerbsQueues, OneSendInSixtyFourIsSignalled) {
  SendTracker t(256, 64, 4);
  int signalled = 0;
  for (int i = 0; i < 128; ++i)
    signalled += t.post(SendRecord::Op::Send, kNone, {}, false).signaled;
  EXPECT_EQ(signalled, 2);
  EXPECT_FALSE(t.tail_unsignaled());  // the 128th was the second signalled
  t.post(SendRecord::Op::Send, kNone, {}, false);
  EXPECT_TRUE(t.tail_unsignaled());
  EXPECT_TRUE(t.post(SendRecord::Op::Send, kNone, [](Status) {}, false).signaled);  // it has a completion
  EXPECT_TRUE(t.post(SendRecord::Op::Send, 3, {}, true).signaled);                  // forced
  EXPECT_TRUE(t.post(SendRecord::Op::Read, kNone, {}, false).signaled);             // reads are counted
}

TEST(VerbsQueues, AFullQueueAlwaysHoldsASignalledRequest) {
  SendTracker t(8, 64, 2);
  std::vector<bool> signaled;
  while (t.has_room())
    signaled.push_back(t.post(SendRecord::Op::Send, kNone, {}, false).signaled);
  EXPECT_THAT(signaled, ElementsAre(false, false, false, false, false, false, true));
  EXPECT_TRUE(t.has_room(true));  // the slot kept for a flush
  t.post(SendRecord::Op::Flush, kNone, {}, false);
  EXPECT_FALSE(t.has_room(true));
}

TEST(VerbsQueues, ACompletionRetiresEverythingBeforeIt) {
  SendTracker t(16, 4, 2);
  std::vector<Status> done;
  std::vector<std::uint32_t> sns;
  for (std::uint32_t i = 0; i < 6; ++i)
    sns.push_back(t.post(SendRecord::Op::Send, i, i == 2 ? Completion([&](Status s) { done.push_back(s); }) : Completion{},
                         false).sn);
  std::vector<std::uint32_t> bounces;
  EXPECT_FALSE(t.complete_through(sns[5] + 1, [](SendRecord&) {}));
  ASSERT_TRUE(t.complete_through(sns[3], [&](SendRecord& r) {
    bounces.push_back(r.bounce);
    if (r.done)
      r.done(Status::Ok);
  }));
  EXPECT_THAT(bounces, ElementsAre(0U, 1U, 2U, 3U));
  EXPECT_THAT(done, ElementsAre(Status::Ok));
  EXPECT_EQ(t.outstanding(), 2U);
  EXPECT_EQ(t.find(sns[4])->bounce, 4U);
  EXPECT_EQ(t.find(sns[3]), nullptr);
  EXPECT_FALSE(t.complete_through(sns[3], [](SendRecord&) {}));  // already retired
  t.drain([&](SendRecord& r) { bounces.push_back(r.bounce); });
  EXPECT_THAT(bounces, ElementsAre(0U, 1U, 2U, 3U, 4U, 5U));
  EXPECT_EQ(t.outstanding(), 0U);
}

TEST(VerbsQueues, SequenceNumbersWrap) {
  SendTracker t(8, 2, 1, 0xfffffffdU);
  std::vector<std::uint32_t> sns;
  for (int i = 0; i < 6; ++i)
    sns.push_back(t.post(SendRecord::Op::Send, kNone, {}, false).sn);
  EXPECT_THAT(sns, ElementsAre(0xfffffffdU, 0xfffffffeU, 0xffffffffU, 0U, 1U, 2U));
  int retired = 0;
  ASSERT_TRUE(t.complete_through(1U, [&](SendRecord&) { ++retired; }));
  EXPECT_EQ(retired, 5);
  EXPECT_NE(t.find(2U), nullptr);
}

TEST(VerbsQueues, ReadsStopAtMaxRdAtomicAndAFailedPostIsForgotten) {
  SendTracker t(16, 64, 2);
  t.post(SendRecord::Op::Read, kNone, {}, false);
  EXPECT_TRUE(t.read_allowed());
  t.post(SendRecord::Op::Read, kNone, {}, false);
  EXPECT_FALSE(t.read_allowed());
  t.unpost();
  EXPECT_TRUE(t.read_allowed());
  EXPECT_EQ(t.outstanding(), 1U);
  for (int i = 0; i < 3; ++i)
    t.post(SendRecord::Op::Send, kNone, {}, false);
  t.unpost();
  const std::uint32_t next = t.post(SendRecord::Op::Send, kNone, {}, false).sn;
  EXPECT_EQ(next, 3U);  // the forgotten one's number is used again
  EXPECT_THROW(SendTracker(1, 64, 1), std::invalid_argument);
}

// A post the HCA refuses: the record and its bounce buffer are given back
// before the caller fails the transport (which retires everything
// outstanding, each completion with Error): nothing wraps, nothing is
// given back twice, the refused request's completion never runs (its
// caller returns Error instead).
TEST(VerbsQueues, ARefusedPostIsForgottenBeforeTheTransportFails) {
  SendTracker t(16, 64, 4);
  BouncePool pool(8);
  int completions = 0;
  const std::uint32_t held = pool.take();
  ASSERT_EQ(post_tracked(t, &pool, SendRecord::Op::Send, held, [&](Status) { ++completions; }, false,
                         [](const SendRecord&) { return 0; }),
            0);
  const std::uint32_t bounce = pool.take();
  const int error = post_tracked(t, &pool, SendRecord::Op::Send, bounce, [&](Status) { ++completions; }, false,
                                 [](const SendRecord&) { return ENOMEM; });
  EXPECT_EQ(error, ENOMEM);
  EXPECT_EQ(t.outstanding(), 1U);
  EXPECT_EQ(pool.free(), 7U);
  // What failing the transport does.
  t.drain([&](SendRecord& r) {
    if (r.bounce != kNone)
      pool.give(r.bounce);
    if (r.done)
      r.done(Status::Error);
  });
  EXPECT_EQ(t.outstanding(), 0U);
  EXPECT_EQ(pool.free(), 8U);
  EXPECT_EQ(completions, 1);  // the one that was posted
  EXPECT_TRUE(t.has_room());
}

TEST(VerbsQueues, TheSendCqHoldsEveryRequestThatMayBeOutstanding) {
  for (const std::uint32_t max_cqe : {4096U, 65535U, 4194303U})
    for (std::uint32_t peers = 1; peers <= max_cqe / kMinSendQueue; peers = peers * 3 / 2 + 1) {
      const SendPlan p = plan_send(peers, 16384, max_cqe);
      ASSERT_TRUE(p.problem.empty()) << peers;
      EXPECT_GE(p.send_queue, kMinSendQueue);
      EXPECT_LE(p.send_queue, kSendQueue);
      EXPECT_LE(std::uint64_t{peers} * p.send_queue, p.cq_entries) << peers << " peers, max_cqe " << max_cqe;
      EXPECT_LE(p.cq_entries, max_cqe) << peers;
    }
  EXPECT_EQ(plan_send(3, 16384, 4096).send_queue, 256U);
  EXPECT_EQ(plan_send(300, 16384, 4096).send_queue, 13U);  // 300 × 16 would overflow 4096 entries
  EXPECT_EQ(plan_send(1, 100, 4096).send_queue, 100U);
  const SendPlan refused = plan_send(2000, 16384, 4096);
  EXPECT_THAT(refused.problem, HasSubstr("2000 peers need 4 send requests each"));
  EXPECT_THAT(refused.problem, HasSubstr("allows 4096 CQ entries"));
}

TEST(VerbsQueues, AsyncEventsAreReadUnderTrafficToo) {
  ProgressWatch busy;
  int events = 0;
  int clock = 0;
  for (int i = 0; i < 640; ++i) {
    const ProgressWatch::Due due = busy.tick(true);  // something moved every time
    events += due.events;
    clock += due.clock;
  }
  EXPECT_EQ(events, 10);
  EXPECT_EQ(clock, 0);
  ProgressWatch idle;
  events = clock = 0;
  for (int i = 0; i < 512; ++i) {
    const ProgressWatch::Due due = idle.tick(false);
    events += due.events;
    clock += due.clock;
  }
  EXPECT_EQ(events, 8);
  EXPECT_EQ(clock, 2);
  ProgressWatch mixed;  // idle calls count between busy ones too
  clock = 0;
  for (int i = 0; i < 512; ++i)
    clock += mixed.tick(i % 2 == 0).clock;
  EXPECT_EQ(clock, 1);
}

TEST(VerbsQueues, AtomicsCountAsReads) {
  SendTracker t(16, 64, 2);
  EXPECT_TRUE(t.post(SendRecord::Op::Atomic, kNone, {}, false).signaled);
  t.post(SendRecord::Op::Read, kNone, {}, false);
  EXPECT_FALSE(t.read_allowed());
  EXPECT_TRUE(t.has_room_for(13));
  EXPECT_FALSE(t.has_room_for(14));
}

TEST(VerbsQueues, BounceBuffersRunLowAndOut) {
  BouncePool pool(8);
  EXPECT_EQ(pool.take(), 0U);
  std::vector<std::uint32_t> held{0};
  while (!pool.low())
    held.push_back(pool.take());
  EXPECT_EQ(pool.free(), 1U);
  held.push_back(pool.take());
  EXPECT_EQ(pool.take(), kNone);
  pool.give(held.back());
  EXPECT_EQ(pool.take(), held.back());
}

// ---------------------------------------------------------------- work requests

TEST(VerbsWorkRequests, EachOperationAsTheHcaGetsIt) {
  const std::uint64_t id = send_wr_id(3, 0xfffffff0U);
  EXPECT_EQ(wr_endpoint(id), 3U);
  EXPECT_EQ(wr_sn(id), 0xfffffff0U);

  const WorkRequest shortmsg = send_wr(id, {0x1000, 40, 0}, std::nullopt, true, false);
  EXPECT_EQ(shortmsg.op, WorkRequest::Op::Send);
  EXPECT_TRUE(shortmsg.inline_data);
  EXPECT_EQ(shortmsg.num_sge, 1);

  const WorkRequest zcopy = send_wr(id, {0x1000, 32, 7}, Sge{0x8000, 4096, 9}, false, true);
  EXPECT_EQ(zcopy.num_sge, 2);
  EXPECT_EQ(zcopy.sge[1], (Sge{0x8000, 4096, 9}));
  EXPECT_TRUE(zcopy.signaled);
  EXPECT_EQ(send_wr(id, {0x1000, 32, 7}, Sge{0x8000, 0, 9}, false, true).num_sge, 1);

  const WorkRequest get = read_wr(id, {0x2000, 65536, 5}, 0xdead0000, 77, true);
  EXPECT_EQ(get.op, WorkRequest::Op::RdmaRead);
  EXPECT_EQ(get.remote_addr, 0xdead0000U);
  EXPECT_EQ(get.rkey, 77U);

  const WorkRequest flush = flush_wr(id);
  EXPECT_EQ(flush.op, WorkRequest::Op::RdmaWrite);
  EXPECT_EQ(flush.num_sge, 0);
  EXPECT_TRUE(flush.signaled);
}

TEST(VerbsWorkRequests, PutWithSignalIsAWriteThenAFencedAdd) {
  const auto chain = put_signal_chain(42, {0x10000, 8192, 3}, 0x7f0000, 11, {0x20008, 8, 4}, 0x7f8000, 12, 1);
  ASSERT_TRUE(chain);
  const WorkRequest& write = chain->wr[0];
  const WorkRequest& add = chain->wr[1];
  EXPECT_EQ(write.op, WorkRequest::Op::RdmaWrite);
  EXPECT_FALSE(write.signaled);
  EXPECT_FALSE(write.fence);
  EXPECT_EQ(write.remote_addr, 0x7f0000U);
  EXPECT_EQ(write.rkey, 11U);
  EXPECT_EQ(add.op, WorkRequest::Op::FetchAdd);
  EXPECT_TRUE(add.fence);
  EXPECT_TRUE(add.signaled);
  EXPECT_EQ(add.remote_addr, 0x7f8000U);
  EXPECT_EQ(add.rkey, 12U);
  EXPECT_EQ(add.add, 1U);
  EXPECT_EQ(add.sge[0], (Sge{0x20008, 8, 4}));
  EXPECT_FALSE(put_signal_chain(42, {0x10000, 8, 3}, 0, 11, {0x20008, 8, 4}, 0x7f8004, 12, 1));  // misaligned word
  EXPECT_FALSE(put_signal_chain(42, {0x10000, 8, 3}, 0, 11, {0x20008, 4, 4}, 0x7f8000, 12, 1));  // 4-byte slot
}

}  // namespace
}  // namespace xover::runtime::verbs
