// The verbs address card, where no RDMA device exists: every field comes
// back, and every card a corrupt or hostile peer could publish is refused
// with its sender and its fault named, before any of it is used.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <random>

#include "runtime/verbs/verbs_card.hpp"

namespace xover::runtime::verbs {
namespace {

using ::testing::HasSubstr;

constexpr std::uint64_t kJob = 0x1234567890abcdefULL;

Card sample(std::uint32_t rank = 1, std::uint32_t ranks = 3) {
  Card c;
  c.ranks = ranks;
  c.rank = rank;
  c.pid = 4242;
  c.job = kJob;
  c.memcpy_bw = 9.5e9;
  c.signal_addr = 0x7f0012340000ULL;
  c.host = "node-a";
  LaneAddress ib;
  ib.link_layer = LinkLayer::Infiniband;
  ib.lid = 17;
  ib.mtu = 4096;
  ib.rd_atomic = 16;
  ib.gid = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8};
  ib.window = 512;
  ib.signal_rkey = 0x1234;
  LaneAddress roce;
  roce.link_layer = LinkLayer::Ethernet;
  roce.gid_type = GidType::RoceV2;
  roce.gid_index = 3;
  roce.mtu = 1024;
  roce.rd_atomic = 8;
  roce.gid = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 7};
  roce.prefix = 24;
  roce.window = 40;
  roce.signal_rkey = 0x5678;
  c.lanes = {ib, roce};
  for (std::size_t lane = 0; lane < c.lanes.size(); ++lane)
    for (std::uint32_t r = 0; r < ranks; ++r)
      c.qps.push_back(r == rank ? QpAddress{} : QpAddress{static_cast<std::uint32_t>(0x100 + lane * 16 + r),
                                                           static_cast<std::uint32_t>(0xabc00 + r)});
  return c;
}

std::string refusal(const std::vector<std::byte>& bytes, std::uint32_t from = 1, std::uint32_t ranks = 3,
                    std::size_t lanes = 2, std::uint64_t job = kJob) {
  try {
    decode_card(bytes, from, ranks, lanes, job);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "accepted";
}

TEST(VerbsCard, EveryFieldComesBack) {
  const Card c = sample();
  const std::vector<std::byte> bytes = encode_card(c);
  EXPECT_EQ(bytes.size(), 46 + c.host.size() + 2 * 32 + 2 * 3 * 8);
  const Card back = decode_card(bytes, 1, 3, 2, kJob);
  EXPECT_EQ(back, c);
  EXPECT_EQ(back.qp(1, 2), (QpAddress{0x112, 0xabc02}));
  EXPECT_EQ(job_hash("abc"), job_hash("abc"));
  EXPECT_NE(job_hash("abc"), job_hash("abd"));
}

TEST(VerbsCard, ACardThatDoesNotFitIsRefused) {
  const std::vector<std::byte> good = encode_card(sample());
  for (std::size_t n = 0; n < good.size(); ++n)
    EXPECT_THAT(refusal({good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n)}), HasSubstr("rank 1's address card: "))
        << n << " bytes";
  std::vector<std::byte> longer = good;
  longer.push_back(std::byte{0});
  EXPECT_THAT(refusal(longer), HasSubstr("bytes, its counts say"));
  EXPECT_THAT(refusal(good, 1, 4), HasSubstr("says rank 1 of 3, expected rank 1 of 4"));
  EXPECT_THAT(refusal(good, 2), HasSubstr("says rank 1 of 3, expected rank 2 of 3"));
  EXPECT_THAT(refusal(good, 1, 3, 1), HasSubstr("2 lanes, this rank has 1 (give every rank the same number of ports"));
  EXPECT_THAT(refusal(good, 1, 3, 2, kJob + 1), HasSubstr("from another job"));
}

TEST(VerbsCard, EveryFieldIsChecked) {
  auto with = [](auto change) {
    Card c = sample();
    change(c);
    return refusal(encode_card(c));
  };
  auto at = [](std::size_t offset, std::uint8_t value) {
    std::vector<std::byte> b = encode_card(sample());
    b[offset] = std::byte{value};
    return refusal(b);
  };
  const std::size_t lanes_at = 46 + 6;  // fixed part, then "node-a"
  EXPECT_THAT(at(0, 0), HasSubstr("bad magic"));
  EXPECT_THAT(at(4, 1), HasSubstr("version 1, this build speaks 2"));
  EXPECT_THAT(at(lanes_at, 3), HasSubstr("lane 0: unknown link layer 3"));
  EXPECT_THAT(at(lanes_at + 2, 7), HasSubstr("lane 0: unknown GID type 7"));
  EXPECT_THAT(at(lanes_at + 3, 6), HasSubstr("lane 0: MTU code 6 is not 1 (256 B) to 5 (4096 B)"));
  EXPECT_THAT(at(lanes_at + 3, 0), HasSubstr("MTU code 0"));
  EXPECT_THAT(at(lanes_at + 26, 1), HasSubstr("lane 0: a reserved field is not zero"));
  EXPECT_THAT(at(lanes_at + 7, 33), HasSubstr("lane 0: a subnet prefix of 33 bits"));
  EXPECT_THAT(at(lanes_at + 7, 24), HasSubstr("a GID without an IPv4 address"));  // lane 0's GID is IPv6
  EXPECT_THAT(with([](Card& c) { c.lanes[1].window = 0; }), HasSubstr("lane 1: a credit window of 0"));
  EXPECT_THAT(with([](Card& c) { c.lanes[1].window = 513; }), HasSubstr("a credit window of 513 (1 to 512"));
  EXPECT_THAT(with([](Card& c) { c.lanes[0].lid = 0; }), HasSubstr("an InfiniBand port with LID 0"));
  EXPECT_EQ(with([](Card& c) { c.lanes[1].lid = 0; }), "accepted");  // RoCE has no LID
  EXPECT_THAT(with([](Card& c) { c.qps[0].qpn = 0x1000000; }), HasSubstr("lane 0 toward rank 0: queue pair 16777216"));
  EXPECT_THAT(with([](Card& c) { c.qps[2].psn = 0x1000000; }), HasSubstr("toward rank 2"));
  EXPECT_THAT(with([](Card& c) { c.qps[0].qpn = 0; }), HasSubstr("non-zero toward a peer"));
  EXPECT_THAT(with([](Card& c) { c.qps[1].qpn = 5; }), HasSubstr("toward rank 1"));  // toward itself: none
  EXPECT_THAT(with([](Card& c) { c.memcpy_bw = std::numeric_limits<double>::quiet_NaN(); }),
              HasSubstr("memcpy bandwidth"));
  EXPECT_THAT(with([](Card& c) { c.memcpy_bw = -1; }), HasSubstr("memcpy bandwidth"));
  EXPECT_THAT(with([](Card& c) { c.host = std::string(300, 'h'); }), HasSubstr("a host name of 300 bytes"));
}

// Random corruptions of a good card: each one is refused with a reason or,
// when it happens to keep every rule, decoded into a card that keeps them.
TEST(VerbsCard, CorruptCardsNeverGetThrough) {
  const std::vector<std::byte> good = encode_card(sample());
  std::mt19937_64 rng(7);
  int refused = 0;
  for (int i = 0; i < 20000; ++i) {
    std::vector<std::byte> b = good;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f)
      b[rng() % b.size()] = static_cast<std::byte>(rng());
    if (rng() % 8 == 0)
      b.resize(rng() % (b.size() + 16));
    try {
      const Card c = decode_card(b, 1, 3, 2, kJob);
      ASSERT_EQ(c.lanes.size(), 2U);
      ASSERT_EQ(c.qps.size(), 6U);
      for (const LaneAddress& l : c.lanes) {
        EXPECT_NE(l.mtu, 0U);
        EXPECT_TRUE(l.link_layer == LinkLayer::Ethernet || l.lid != 0);
      }
      EXPECT_TRUE(c.memcpy_bw > 0 && std::isfinite(c.memcpy_bw));
    } catch (const std::invalid_argument& e) {
      ++refused;
      EXPECT_THAT(e.what(), HasSubstr("rank 1's address card: "));
    }
  }
  EXPECT_GT(refused, 10000);
}

}  // namespace
}  // namespace xover::runtime::verbs
