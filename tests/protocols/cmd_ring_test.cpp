// The proxy's command ring (protocols/coll/cmd_ring.hpp): entries round
// trip and every malformed one is refused by the pure decoder; the flag
// flips each lap; several writer threads against a slow proxy fill the ring,
// are held back until it has room, and every command is taken once, each
// writer's in its order.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "protocols/coll/cmd_ring.hpp"
#include "tests/support/ring_memory.hpp"

namespace xover {
namespace {

using test::RingMemory;

const CommandLimits kLimits{8, 8 * 4096, 0x10000, 7 * 4096};

Command good() {
  Command c;
  c.pe = 3;
  c.offset = 2 * 4096;
  c.local = 0x10000 + 4096;
  c.size = 4096;
  c.posted_ns = 0x3ff0000000000000;  // 1.0 s
  return c;
}

TEST(CmdRing, AnEntryRoundTrips) {
  const DecodedCommand d = decode_command(encode_command(good(), 1), kLimits);
  EXPECT_EQ(d.error, "");
  EXPECT_EQ(d.command.op, CommandOp::PutSignal);
  EXPECT_EQ(d.command.pe, 3u);
  EXPECT_EQ(d.command.offset, 2u * 4096);
  EXPECT_EQ(d.command.local, 0x10000u + 4096);
  EXPECT_EQ(d.command.size, 4096u);
  EXPECT_EQ(d.command.posted_ns, 0x3ff0000000000000u);
}

TEST(CmdRing, TheDecoderRefusesEveryMalformedEntry) {
  struct Bad {
    const char* why;
    CommandWords words;
  };
  const CommandWords ok = encode_command(good(), 0);
  auto with = [&](std::size_t word, std::uint64_t value) {
    CommandWords w = ok;
    w[word] = value;
    return w;
  };
  Command far = good();
  far.pe = 8;
  Command past = good();
  past.offset = 8 * 4096 - 100;
  Command wraps = good();
  wraps.offset = ~std::uint64_t{0} - 10;
  Command before = good();
  before.local = 0x10000 - 8;
  Command beyond = good();
  beyond.local = 0x10000 + 6 * 4096 + 8;
  for (const Bad& bad : {Bad{"unknown op", with(0, (ok[0] & ~0xffULL) | 9)},
                         Bad{"reserved bits set", with(0, ok[0] | 0x100)}, Bad{"reserved bits set", with(5, 1)},
                         Bad{"reserved bits set", with(6, 1)}, Bad{"flag is neither 0 nor 1", with(7, 2)},
                         Bad{"no such PE", encode_command(far, 0)},
                         Bad{"bytes past the target's buffer", encode_command(past, 0)},
                         Bad{"bytes past the target's buffer", encode_command(wraps, 0)},
                         Bad{"bytes past the local buffer", encode_command(before, 0)},
                         Bad{"bytes past the local buffer", encode_command(beyond, 0)}})
    EXPECT_EQ(decode_command(bad.words, kLimits).error, bad.why);
}

TEST(CmdRing, CreateRefusesShortOrMisalignedMemory) {
  RingMemory memory(4);
  const std::span<std::byte> span = memory.span(4);
  EXPECT_THROW(CommandRing::create(span.subspan(8), 4), std::invalid_argument);
  EXPECT_THROW(CommandRing::create(span.first(span.size() - 1), 4), std::invalid_argument);
  EXPECT_THROW(CommandRing::create(span, 0), std::invalid_argument);
}

TEST(CmdRing, TheFlagFlipsEachLap) {
  RingMemory memory(4);
  const CommandRing ring = CommandRing::create(memory.span(4), 4);
  for (std::uint64_t pos = 0; pos < 12; ++pos) {
    EXPECT_FALSE(ring.ready(pos)) << pos;
    ASSERT_EQ(ring.reserve(), pos);
    ASSERT_TRUE(ring.has_room(pos));
    Command c = good();
    c.offset = pos;
    ring.write(pos, c);
    ASSERT_TRUE(ring.ready(pos)) << pos;
    const CommandWords w = ring.read(pos);
    EXPECT_EQ(w[7], ((pos / 4) & 1) ^ 1) << pos;
    EXPECT_EQ(w[1], pos);
    EXPECT_FALSE(ring.has_room(pos + 4));
    ring.publish(pos + 1);
    EXPECT_TRUE(ring.has_room(pos + 4));
  }
}

TEST(CmdRing, ManyWritersAgainstASlowProxyFillTheRing) {
  constexpr std::uint32_t kEntries = 8;
  constexpr std::uint32_t kWriters = 4;
  constexpr std::uint64_t kEach = 2000;
  RingMemory memory(kEntries);
  const CommandRing ring = CommandRing::create(memory.span(kEntries), kEntries);
  std::atomic<std::uint64_t> held_back{0};
  std::vector<std::thread> writers;
  for (std::uint32_t w = 0; w < kWriters; ++w)
    writers.emplace_back([&, w] {
      for (std::uint64_t k = 0; k < kEach; ++k) {
        const std::uint64_t pos = ring.reserve();
        bool waited = false;
        while (!ring.has_room(pos)) {
          waited = true;
          std::this_thread::yield();
        }
        held_back += waited;
        Command c;
        c.pe = w;
        c.offset = k;
        ring.write(pos, c);
      }
    });
  std::vector<std::uint64_t> next(kWriters, 0);
  const CommandLimits limits{kWriters, ~std::uint64_t{0}, 0, ~std::uint64_t{0}};
  std::uint64_t taken = 0;
  for (std::uint64_t pos = 0; pos < kWriters * kEach; ++pos) {
    while (!ring.ready(pos))
      std::this_thread::yield();
    const DecodedCommand d = decode_command(ring.read(pos), limits);
    ASSERT_EQ(d.error, "") << pos;
    ASSERT_EQ(d.command.offset, next[d.command.pe]) << "writer " << d.command.pe << " out of order at " << pos;
    ++next[d.command.pe];
    ++taken;
    // A slow proxy: the writers catch up with it and wait.
    for (int spin = 0; spin < 200; ++spin)
      std::atomic_signal_fence(std::memory_order_seq_cst);
    if (pos % 64 == 0)
      std::this_thread::yield();
    ring.publish(pos + 1);
  }
  for (std::thread& t : writers)
    t.join();
  EXPECT_EQ(taken, kWriters * kEach);
  for (std::uint32_t w = 0; w < kWriters; ++w)
    EXPECT_EQ(next[w], kEach);
  EXPECT_GT(held_back.load(), 0u) << "the ring never filled";
  EXPECT_EQ(ring.consumed(), kWriters * kEach);
}

}  // namespace
}  // namespace xover
