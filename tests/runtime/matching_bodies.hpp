// The matching suite's shared pieces (matching_test.cpp and
// matching_load_test.cpp): payload patterns of (sender, message index,
// offset), the ready signal, a stream of sends, an inbox of receives with
// guards, the settings under which sizes take every protocol and the
// premises those sizes rest on, and the fixture that runs a body over the
// backend of the test's parameter. matching_test.cpp's opening comment
// says what the suite checks and on which platform.
#pragma once

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

/// True where the premises (matching_test.cpp) are exact (in simulation); set by the
/// fixture before the ranks start, so forked ranks see it too.
inline bool strict_premises = true;

inline std::string platform() {
  return std::string(XOVER_SOURCE_DIR) + "/tests/data/platforms/two_rails_skewed.xml";
}

inline std::string hex(Tag tag) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%#llx", static_cast<unsigned long long>(tag));
  return buf;
}

// --- Payloads -------------------------------------------------------------

inline std::uint64_t mix(std::uint64_t x) {
  // splitmix64's finaliser.
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

inline std::uint64_t message_key(Rank sender, std::uint64_t index) {
  return mix((static_cast<std::uint64_t>(sender) << 40) ^ index);
}

inline std::byte pattern(std::uint64_t key, Bytes offset) {
  return static_cast<std::byte>(mix(key + offset));
}

inline std::vector<std::byte> pattern_bytes(Rank sender, std::uint64_t index, Bytes size) {
  std::vector<std::byte> out(size);
  const std::uint64_t key = message_key(sender, index);
  for (Bytes i = 0; i < size; ++i)
    out[i] = pattern(key, i);
  return out;
}

/// The first offset at which `got` is not message `index` of `sender`.
inline std::optional<Bytes> first_difference(std::span<const std::byte> got, Rank sender, std::uint64_t index) {
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

inline void signal_ready(Worker& worker, Rank peer) {
  Request* r = worker.tag_send(peer, {}, kReadyTag);
  worker.wait(r);
  worker.release(r);
}

inline void await_ready(Worker& worker) {
  Request* r = worker.tag_recv({}, kReadyTag);
  worker.wait(r);
  worker.release(r);
}

/// Rank `me` sends messages 0..count-1 to `peer` back to back, once the
/// peer is ready and again before message `pause_at` (when not 0), and
/// waits for them all. Message i carries its pattern.
inline void send_stream(Worker& worker, Rank me, Rank peer, std::size_t count,
                        const std::function<Tag(std::size_t)>& tag_of,
                        const std::function<Bytes(std::size_t)>& size_of, Problems& problems,
                        std::size_t pause_at = 0) {
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
inline SelectConfig every_protocol() {
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
inline const std::vector<SizedProtocol>& mixed_sizes() {
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
inline Bytes stream_size(std::size_t i) {
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
inline void check_protocol(Worker& worker, Rank peer, Bytes size, const std::string& protocol, Problems& problems,
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
inline void check_protocols(Worker& worker, Rank peer, const std::vector<SizedProtocol>& cases, std::size_t at_least,
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
inline void post_receives(Worker& worker, bool posted_first, std::size_t messages,
                          const std::function<void()>& post_all) {
  if (posted_first)
    post_all();
  signal_ready(worker, 0);
  while (!posted_first && worker.stats().unexpected < messages)
    worker.progress();
  if (!posted_first)
    post_all();
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
  /// Whether some lane of the backend's transport from rank 0 to rank 1 has
  /// `cap`, which a protocol a test forces needs: asked of the transport,
  /// not of the backend's name. A run that fails says so (true), for the
  /// test's own run to report.
  bool has_lane(LaneCap cap) const {
    const Problems found = run_ranks(GetParam(), 2, platform(), [cap](Rank rank, Transport& transport, Problems& p) {
      const std::vector<LaneAttrs> lanes = transport.path(1 - rank).lanes;
      if (rank == 0 && std::any_of(lanes.begin(), lanes.end(), [cap](const LaneAttrs& l) { return l.caps.has(cap); }))
        p.push_back("has");
    });
    return !found.empty();
  }
};

}  // namespace xover::test
