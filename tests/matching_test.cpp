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

#include <algorithm>
#include <cstdio>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "protocols/core/worker.hpp"
#include "protocols/wire.hpp"
#include "tests/support/arrival_log.hpp"
#include "runtime/backends.hpp"
#include "tests/support/backend.hpp"
#include "tests/support/forwarding_transport.hpp"

namespace xover::test {
namespace {

/// True where the premises above are exact (in simulation); set by the
/// fixture before the ranks start, so forked ranks see it too.
bool strict_premises = true;

std::string platform() {
  return std::string(XOVER_SOURCE_DIR) + "/tests/data/platforms/two_rails_skewed.xml";
}

std::string hex(Tag tag) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%#llx", static_cast<unsigned long long>(tag));
  return buf;
}

// --- Payloads -------------------------------------------------------------

std::uint64_t mix(std::uint64_t x) {
  // splitmix64's finaliser.
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::uint64_t message_key(Rank sender, std::uint64_t index) {
  return mix((static_cast<std::uint64_t>(sender) << 40) ^ index);
}

std::byte pattern(std::uint64_t key, Bytes offset) {
  return static_cast<std::byte>(mix(key + offset));
}

std::vector<std::byte> pattern_bytes(Rank sender, std::uint64_t index, Bytes size) {
  std::vector<std::byte> out(size);
  const std::uint64_t key = message_key(sender, index);
  for (Bytes i = 0; i < size; ++i)
    out[i] = pattern(key, i);
  return out;
}

/// The first offset at which `got` is not message `index` of `sender`.
std::optional<Bytes> first_difference(std::span<const std::byte> got, Rank sender, std::uint64_t index) {
  const std::uint64_t key = message_key(sender, index);
  for (Bytes i = 0; i < got.size(); ++i)
    if (got[i] != pattern(key, i))
      return i;
  return std::nullopt;
}

// --- Ranks ----------------------------------------------------------------

/// A zero-byte message that says "my receives are posted": tests that need
/// receives posted before the sends start wait for it, on every backend.
constexpr Tag kReadyTag = 0xFEED'0000'0000'0000ULL;

void signal_ready(Worker& worker, Rank peer) {
  Request* r = worker.tag_send(peer, {}, kReadyTag);
  worker.wait(r);
  worker.release(r);
}

void await_ready(Worker& worker) {
  Request* r = worker.tag_recv({}, kReadyTag);
  worker.wait(r);
  worker.release(r);
}

/// Rank `me` sends messages 0..count-1 to `peer` back to back, once the
/// peer is ready and again before message `pause_at` (when not 0), and
/// waits for them all. Message i carries its pattern.
void send_stream(Worker& worker, Rank me, Rank peer, std::size_t count, const std::function<Tag(std::size_t)>& tag_of,
                 const std::function<Bytes(std::size_t)>& size_of, Problems& problems, std::size_t pause_at = 0) {
  std::deque<std::vector<std::byte>> buffers;
  std::vector<Request*> sends;
  for (std::size_t i = 0; i < count; ++i) {
    if (i == 0 || i == pause_at)
      await_ready(worker);
    buffers.push_back(pattern_bytes(me, i, size_of(i)));
    sends.push_back(worker.tag_send(peer, {buffers.back().data(), buffers.back().size()}, tag_of(i)));
  }
  for (std::size_t i = 0; i < count; ++i) {
    worker.wait(sends[i]);
    if (sends[i]->status != Status::Ok)
      problems.push_back("send of message " + std::to_string(i) + " failed");
  }
}

/// What one receive should get.
struct Expected {
  Rank sender = 0;
  std::uint64_t index = 0;
  Bytes size = 0;
  Tag tag = 0;
};

/// Receives of one rank, in post order, each into a buffer of its own
/// followed by a guard that nothing may write.
class Inbox {
 public:
  explicit Inbox(Worker& worker) : worker_(worker) {}

  std::size_t post(Bytes capacity, Tag tag, Tag mask = kTagMaskAll) {
    buffers_.emplace_back(capacity + kGuard, kGuardByte);
    requests_.push_back(worker_.tag_recv({buffers_.back().data(), capacity}, tag, mask));
    return requests_.size() - 1;
  }
  const Request& request(std::size_t i) const { return *requests_[i]; }

  void wait_all() {
    for (const Request* r : requests_)
      worker_.wait(r);
  }

  /// Checks that receive `i` got `want` whole or, when `truncated` (its
  /// buffer too small for `want`), failed with the bytes that fit in place;
  /// and that nothing was written past its buffer.
  void check(std::size_t i, const Expected& want, Problems& problems, bool truncated = false) const {
    const Request& r = *requests_[i];
    const Bytes capacity = buffers_[i].size() - kGuard;
    const std::string what = "receive " + std::to_string(i) + " (message " + std::to_string(want.index) +
                             " of rank " + std::to_string(want.sender) + ")";
    if (!r.done || (r.status == Status::Error) != truncated)
      problems.push_back(what + (!r.done ? ": not complete" : truncated ? ": no truncation error" : ": failed"));
    else if (r.peer != want.sender || r.tag != want.tag || r.length != want.size)
      problems.push_back(what + ": got " + std::to_string(r.length) + " bytes from rank " + std::to_string(r.peer) +
                         " with tag " + hex(r.tag) + ", want " + std::to_string(want.size) + " with tag " +
                         hex(want.tag));
    else if (auto at = first_difference({buffers_[i].data(), std::min(capacity, want.size)}, want.sender, want.index))
      problems.push_back(what + ": byte " + std::to_string(*at) + " differs");
    if (std::any_of(buffers_[i].end() - kGuard, buffers_[i].end(), [](std::byte x) { return x != kGuardByte; }))
      problems.push_back(what + ": bytes written past the end of the receive buffer");
  }

 private:
  static constexpr Bytes kGuard = 64;
  static constexpr std::byte kGuardByte{0xA5};

  Worker& worker_;
  std::deque<std::vector<std::byte>> buffers_;
  std::vector<Request*> requests_;
};

// --- Settings and sizes ---------------------------------------------------

/// Settings under which sizes take every protocol, on the test platform:
///   0..112 eager/short, 113..500 eager/bcopy (both on r1), 501..16384
///   eager/multi/bcopy (r0 then r1, 992 bytes a fragment), 16385..35462
///   rndv/am, 35463.. rndv/get (`xover proto-info --platform ... --set ...`).
SelectConfig every_protocol() {
  SelectConfig config;
  config.set("proto", "eager/short,eager/bcopy,eager/multi/bcopy,rndv");
  config.set("max_eager_lanes", "2");
  config.set("eager_limit", "500");
  config.set("multi_eager_limit", "16KiB");
  config.set("rndv_thresh", "16385");
  return config;
}

struct SizedProtocol {
  Bytes size;
  std::string protocol;
};

/// Sizes, with their protocol under every_protocol(), in an order where
/// messages on r1 overtake earlier ones on r0 (600 B, one fragment on r0,
/// then 0 B on r1), and the bounds of every range.
const std::vector<SizedProtocol>& mixed_sizes() {
  static const std::vector<SizedProtocol> sizes = {
      {600, "eager/multi/bcopy"}, {0, "eager/short"},   {16384, "eager/multi/bcopy"}, {8, "eager/short"},
      {100000, "rndv/get"},       {300, "eager/bcopy"}, {30000, "rndv/am"},           {501, "eager/multi/bcopy"},
      {112, "eager/short"},       {35463, "rndv/get"},  {113, "eager/bcopy"},         {500, "eager/bcopy"},
      {16385, "rndv/am"},         {35462, "rndv/am"},   {5000, "eager/multi/bcopy"},
  };
  return sizes;
}

/// Message i of a long stream: every 97th rndv/get, every 41st rndv/am,
/// every 7th multi-eager of several fragments, the rest up to 1008 bytes
/// (short, bcopy or one-fragment multi-eager).
Bytes stream_size(std::size_t i) {
  if (i % 97 == 0)
    return 70000 + i;
  if (i % 41 == 0)
    return 20000 + i;
  if (i % 7 == 0)
    return 1009 + (13 * i) % 8000;
  return (37 * i) % 1009;
}

/// A problem when `worker` would not send `size` bytes to `peer` with
/// `protocol` (over `lanes` lanes, when given): the test would not test
/// what it says.
void check_protocol(Worker& worker, Rank peer, Bytes size, const std::string& protocol, Problems& problems,
                    std::size_t lanes = 0) {
  const ProtoChoice* choice = worker.table(peer).lookup(size);
  const std::string got = choice ? std::string(choice->protocol->name) : "no protocol";
  if (!strict_premises)
    return;
  if (got != protocol)
    problems.push_back("premise: " + std::to_string(size) + " bytes take " + got + ", not " + protocol);
  else if (lanes && choice->candidate.lanes.size() != lanes)
    problems.push_back("premise: " + protocol + " uses " + std::to_string(choice->candidate.lanes.size()) +
                       " lanes, not " + std::to_string(lanes));
}

/// Checks check_protocol() for every case (multi-eager over two lanes) and,
/// on hardware, that the sizes took at least `at_least` distinct protocols
/// toward `peer`.
void check_protocols(Worker& worker, Rank peer, const std::vector<SizedProtocol>& cases, std::size_t at_least,
                     Problems& problems) {
  std::set<std::string> names;
  for (const SizedProtocol& c : cases) {
    check_protocol(worker, peer, c.size, c.protocol, problems, c.protocol == "eager/multi/bcopy" ? 2 : 0);
    if (const ProtoChoice* choice = worker.table(peer).lookup(c.size))
      names.insert(std::string(choice->protocol->name));
  }
  if (!strict_premises && names.size() < at_least) {
    std::string taken;
    for (const std::string& name : names)
      taken += (taken.empty() ? "" : ", ") + name;
    problems.push_back("premise: the sizes took " + std::to_string(names.size()) + " protocols (" + taken +
                       "), want at least " + std::to_string(at_least));
  }
}

/// Rank 1's receives: posted by `post_all` before rank 0 starts sending
/// (`posted_first`) or once `messages` messages wait unexpected.
void post_receives(Worker& worker, bool posted_first, std::size_t messages, const std::function<void()>& post_all) {
  if (posted_first)
    post_all();
  signal_ready(worker, 0);
  while (!posted_first && worker.stats().unexpected < messages)
    worker.progress();
  if (!posted_first)
    post_all();
}

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

/// Runs the bodies over the backend of the test's parameter; a test made of
/// several runs labels each run's problems.
class Matching : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (const std::string why = unavailable(GetParam()); !why.empty())
      GTEST_SKIP() << why;
  }
  Problems run(Rank nranks, const RankBody& body) const {
    strict_premises = runtime::find_backend(GetParam())->simulated();
    return run_ranks(GetParam(), nranks, platform(), body);
  }
  void run(const std::string& label, Rank nranks, const RankBody& body, Problems& all) const {
    for (const std::string& problem : run(nranks, body))
      all.push_back(label + ": " + problem);
  }
};

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
    if (GetParam() == "shm" && protocol == "eager/multi/zcopy")
      continue;  // shared memory has no zero-copy active messages (nor has UCX's mm)
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
    if (id == wire::kAmRtr)
      inner_.am_send(lane, peer, id, header, payload, mode, [](Status) {});
    return inner_.am_send(lane, peer, id, header, payload, mode, std::move(done));
  }
};

// 9. A second RTR for one rndv/am send is dropped as a bad header: the
// sender has left its Rts stage and sends the data once.
TEST_P(Matching, SecondRtrIsDropped) {
  static constexpr Tag kTag = 0x99;
  static constexpr Bytes kSize = 30000;
  if (GetParam() == "shm")
    GTEST_SKIP() << "shared memory has no am_zcopy lane, so rndv/am does not run there";
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

INSTANTIATE_TEST_SUITE_P(Backends, Matching, ::testing::ValuesIn(all_backends()), param_name);

}  // namespace
}  // namespace xover::test
