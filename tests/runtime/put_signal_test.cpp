// put_signal on every backend (sim, shm, tcp), one body each: the signal's
// add is never visible before its put's last byte. Rank 0 hammers rank 1
// with rounds of puts of sizes from 1 B to 192 KiB into slots of its
// receive buffer, put i of a round adding 2^i to one signal word, all in
// flight at once; rank 1 polls the word and, for every bit it sees appear,
// checks every byte of that put's slot against the round's pattern. Puts
// may land in any order (in simulation the small ones overtake the large
// ones); a bit that shows before its bytes is a failure. Then: a put_signal
// of no bytes adds alone, and a signal word that was never handed out is
// refused.
#include <gtest/gtest.h>

#include <bit>
#include <string>
#include <vector>

#include "protocols/core/worker.hpp"
#include "protocols/core/payload_pattern.hpp"
#include "tests/support/backend.hpp"

namespace xover::test {
namespace {

std::string platform() {
  return std::string(XOVER_SOURCE_DIR) + "/platforms/alltoall-star.xml";
}

constexpr std::size_t kPuts = 24;
constexpr std::size_t kRounds = 30;
constexpr Bytes kSizes[] = {1, 8, 100, 4096, 65536, 196608};
constexpr std::uint64_t kAllBits = (std::uint64_t{1} << kPuts) - 1;
constexpr Tag kCardTag = 1;
constexpr Tag kAckTag = 2;
constexpr Tag kCheckTag = 3;

Bytes size_of(std::size_t i) {
  return kSizes[i % std::size(kSizes)];
}

/// Where put i goes in the receive buffer.
Bytes offset_of(std::size_t i) {
  Bytes at = 0;
  for (std::size_t j = 0; j < i; ++j)
    at += size_of(j);
  return at;
}

/// What rank 1 tells rank 0: its buffer, its signal word.
struct Card {
  RemoteAddr buffer;
  RemoteAddr signal;
};

std::size_t put_lane(Transport& t, Rank peer) {
  const std::vector<LaneAttrs>& lanes = t.path(peer).lanes;
  for (std::size_t i = 0; i < lanes.size(); ++i)
    if (lanes[i].caps.has(LaneCap::PutZcopy))
      return i;
  return lanes.size();
}

void wait(Worker& w, Request* r, Problems& p, const char* what) {
  w.wait(r);
  if (r->status != Status::Ok)
    p.push_back(std::string(what) + " failed");
  w.release(r);
}

void receiver(Transport& t, Worker& w, Problems& p) {
  const Bytes total = offset_of(kPuts);
  std::vector<std::byte> buffer(total);
  const SignalWord signal = t.signal_word();
  if (!signal.local) {
    p.push_back("no signal word");
    return;
  }
  const MemoryRegion region = t.reg(0, put_lane(t, 0), buffer.data(), total);
  const Card card{t.remote_addr(region, buffer.data()), signal.remote};
  wait(w, w.tag_send(0, {reinterpret_cast<const std::byte*>(&card), sizeof card}, kCardTag), p, "the card");
  std::uint64_t base = 0;
  for (std::size_t round = 0; round < kRounds; ++round) {
    std::uint64_t seen = 0;
    for (std::uint64_t polls = 0; seen != kAllBits && t.failure().empty(); ++polls) {
      const std::uint64_t shows = signal_load(signal) - base;
      if (shows & ~kAllBits) {
        p.push_back("round " + std::to_string(round) + ": the signal shows " + std::to_string(shows));
        return;
      }
      for (std::uint64_t fresh = shows & ~seen; fresh != 0; fresh &= fresh - 1) {
        const std::size_t i = static_cast<std::size_t>(std::countr_zero(fresh));
        const Bytes wrong = first_wrong_byte(buffer.data() + offset_of(i), size_of(i), 9, 0, round * kPuts + i);
        if (wrong < size_of(i))
          p.push_back("round " + std::to_string(round) + ", put " + std::to_string(i) + " (" +
                      std::to_string(size_of(i)) + " B): its add showed before byte " + std::to_string(wrong));
      }
      seen = shows;
      if (seen != kAllBits)
        t.progress();
    }
    base += kAllBits;
    wait(w, w.tag_send(0, {}, kAckTag | (round << 8)), p, "an ack");
  }
}

void sender(Transport& t, Worker& w, Problems& p) {
  Card card{};
  wait(w, w.tag_recv({reinterpret_cast<std::byte*>(&card), sizeof card}, kCardTag), p, "the card");
  std::vector<std::byte> bytes(offset_of(kPuts));
  const std::size_t lane = put_lane(t, 1);
  for (std::size_t round = 0; round < kRounds && p.empty(); ++round) {
    for (std::size_t i = 0; i < kPuts; ++i)
      fill_payload(bytes.data() + offset_of(i), size_of(i), 9, 0, round * kPuts + i);
    std::size_t done = 0;
    for (std::size_t i = 0; i < kPuts; ++i) {
      const RemoteAddr to{card.buffer.key, card.buffer.addr + offset_of(i)};
      const Status s = t.put_signal(lane, 1, {bytes.data() + offset_of(i), size_of(i)}, to, card.signal,
                                    std::uint64_t{1} << i, [&](Status st) {
                                      if (st != Status::Ok)
                                        p.push_back("a put_signal completed with an error");
                                      ++done;
                                    });
      if (s == Status::Error)
        p.push_back("put_signal " + std::to_string(i) + " returned Error");
      if (s != Status::InProgress)
        ++done;
    }
    while (done < kPuts && t.failure().empty())
      w.progress();
    wait(w, w.tag_recv({}, kAckTag | (round << 8)), p, "an ack");
  }
}

class PutSignal : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (const std::string why = unavailable(GetParam()); !why.empty())
      GTEST_SKIP() << why;
  }
};

TEST_P(PutSignal, TheAddNeverShowsBeforeTheBytes) {
  const Problems problems = run_ranks(GetParam(), 2, platform(), [](Rank rank, Transport& t, Problems& p) {
    Worker w(t, {});
    if (rank == 0)
      sender(t, w, p);
    else
      receiver(t, w, p);
  });
  EXPECT_TRUE(problems.empty()) << join(problems);
}

TEST_P(PutSignal, NoBytesAddsAloneAndAStrangeWordIsRefused) {
  const Problems problems = run_ranks(GetParam(), 2, platform(), [](Rank rank, Transport& t, Problems& p) {
    Worker w(t, {});
    if (rank == 1) {
      const SignalWord signal = t.signal_word();
      wait(w, w.tag_send(0, {reinterpret_cast<const std::byte*>(&signal.remote), sizeof(RemoteAddr)}, kCardTag), p,
           "the card");
      for (std::uint64_t polls = 0; signal_load(signal) < 5 && t.failure().empty(); ++polls)
        t.progress();
      wait(w, w.tag_recv({}, kCheckTag), p, "the check");
      if (signal_load(signal) != 5)
        p.push_back("the signal shows " + std::to_string(signal_load(signal)) + ", not 5");
      return;
    }
    RemoteAddr signal;
    wait(w, w.tag_recv({reinterpret_cast<std::byte*>(&signal), sizeof signal}, kCardTag), p, "the card");
    const std::size_t lane = put_lane(t, 1);
    bool done = false;
    Status status = t.put_signal(lane, 1, {}, {}, signal, 5, [&](Status s) {
      done = true;
      if (s != Status::Ok)
        p.push_back("the add alone completed with an error");
    });
    if (status == Status::Ok)
      done = true;
    else if (status != Status::InProgress)
      p.push_back("the add alone was refused");
    while (!done && t.failure().empty())
      w.progress();
    // A word rank 1 never handed out: refused at once, or at its target.
    bool refused = false;
    status = t.put_signal(lane, 1, {}, {}, {signal.key, signal.addr + 4096}, 1, [&](Status s) {
      refused = s != Status::Ok;
      done = false;
    });
    if (status == Status::InProgress)
      while (done && t.failure().empty())
        w.progress();
    else
      refused = status == Status::Error;
    if (!refused)
      p.push_back("an add to a word never handed out was taken");
    wait(w, w.tag_send(1, {}, kCheckTag), p, "the check");
  });
  EXPECT_TRUE(problems.empty()) << join(problems);
}

INSTANTIATE_TEST_SUITE_P(Backends, PutSignal, ::testing::ValuesIn(all_backends()), param_name);

}  // namespace
}  // namespace xover::test
