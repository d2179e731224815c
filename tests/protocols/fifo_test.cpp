// Fifo: first in, first out, also across a middle erase and while it never
// runs empty (when it drops what it has taken).
#include <gtest/gtest.h>

#include <algorithm>

#include "protocols/core/fifo.hpp"

namespace xover {
namespace {

TEST(Fifo, TakesInOrderAcrossAMiddleErase) {
  Fifo<int> q;
  EXPECT_TRUE(q.empty());
  for (int i = 0; i < 5; ++i)
    q.push_back(i);
  q.erase(std::find(q.begin(), q.end(), 2));
  q.erase(q.begin());
  std::vector<int> out;
  while (!q.empty()) {
    out.push_back(q.front());
    q.pop_front();
  }
  EXPECT_EQ(out, (std::vector<int>{1, 3, 4}));
}

TEST(Fifo, KeepsOrderWhileItNeverRunsEmpty) {
  Fifo<int> q;
  int next_in = 0;
  int next_out = 0;
  for (int i = 0; i < 3; ++i)
    q.push_back(next_in++);
  for (int round = 0; round < 1000; ++round) {
    ASSERT_EQ(q.front(), next_out++);
    q.pop_front();
    q.push_back(next_in++);
    ASSERT_EQ(q.size(), 3u);
  }
}

}  // namespace
}  // namespace xover
