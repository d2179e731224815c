// PeerStates: a peer's numbers, table and window read back as they were
// set, across the step from the small word to the full record.
#include <gtest/gtest.h>

#include "protocols/core/peer_states.hpp"

namespace xover {
namespace {

TEST(PeerStates, NumbersCountPastTheSmallWord) {
  PeerStates peers;
  peers.grow(3);
  for (std::uint64_t i = 0; i < 10000; ++i) {
    ASSERT_EQ(peers.take_send_seq(1), i);
    ASSERT_EQ(peers.expected(2), i);
    peers.advance_expected(2);
  }
  EXPECT_EQ(peers.take_send_seq(1), 10000u);
  EXPECT_EQ(peers.expected(2), 10000u);
  // The others keep theirs.
  EXPECT_EQ(peers.take_send_seq(2), 0u);
  EXPECT_EQ(peers.expected(1), 0u);
  EXPECT_EQ(peers.expected(0), 0u);
}

TEST(PeerStates, TablesAndWindowsKeepTheNumbers) {
  PeerStates peers;
  peers.grow(4);
  for (Rank r = 0; r < 4; ++r)
    for (int i = 0; i < 5; ++i) {
      peers.take_send_seq(r);
      peers.advance_expected(r);
    }
  peers.set_table(0, 7);
  peers.set_table(1, 500);  // past the small word's 127
  peers.set_window(2, 3);
  peers.set_window(3, PeerStates::kNoWindow);
  EXPECT_EQ(peers.table(0), 7u);
  EXPECT_EQ(peers.table(1), 500u);
  EXPECT_EQ(peers.window(2), 3u);
  EXPECT_EQ(peers.window(3), PeerStates::kNoWindow);
  peers.set_window(2, PeerStates::kNoWindow);
  EXPECT_EQ(peers.window(2), PeerStates::kNoWindow);
  for (Rank r = 0; r < 4; ++r) {
    EXPECT_EQ(peers.take_send_seq(r), 5u) << r;
    EXPECT_EQ(peers.expected(r), 5u) << r;
  }
  peers.clear_tables();
  EXPECT_EQ(peers.table(0), 0u);
  EXPECT_EQ(peers.table(1), 0u);
  EXPECT_EQ(peers.expected(1), 5u);
  peers.grow(6);
  EXPECT_EQ(peers.expected(5), 0u);
  EXPECT_EQ(peers.table(2), 0u);
}

}  // namespace
}  // namespace xover
