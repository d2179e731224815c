#include <gtest/gtest.h>

#include <limits>

#include "protocols/perf/envelope.hpp"

namespace xover {
namespace {

using Ranges = std::vector<EnvelopeRange>;

PiecewiseFunc line(double c, double m, Bytes from = 0, Bytes to = kSizeMax) {
  return {Piece{from, to, LinearFunc{c, m}}};
}

TEST(Envelope, TwoLinesCrossOnce) {
  //  T
  //  |  A: 10 + 2n      /
  //  |               / B: 40 + 1n
  //  |            /__-----
  //  |      __--/
  //  |  __--   /
  //  +--------30-------- n
  // A wins up to 30 (a tie at 30 goes to A, the earlier), B from 31.
  EXPECT_EQ(lower_envelope({line(10, 2), line(40, 1)}, 0, 1000), (Ranges{{0, 30, 0}, {31, 1000, 1}}));
  // With B first, the tie at 30 goes to B.
  EXPECT_EQ(lower_envelope({line(40, 1), line(10, 2)}, 0, 1000), (Ranges{{0, 29, 1}, {30, 1000, 0}}));
}

// Two lines of infinite fixed cost (a peer's card whose figures overflow)
// cross nowhere: the first keeps the range, and no NaN size is made (the
// tcp_hello fuzzer's regression input reached a NaN cast to a size here).
TEST(Envelope, InfiniteFixedCostsNeverCross) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(lower_envelope({line(inf, 2), line(inf, 1)}, 0, 1000), (Ranges{{0, 1000, 0}}));
}

TEST(Envelope, CrossingBetweenWholeSizesHandsOverAtTheNextSize) {
  // 0 + 3n and 10 + 1n meet at n = 5 exactly; 0 + 3n and 11 + 1n at 5.5.
  EXPECT_EQ(lower_envelope({line(0, 3), line(11, 1)}, 0, 100), (Ranges{{0, 5, 0}, {6, 100, 1}}));
}

TEST(Envelope, ThreeLinesWithAMiddleWinner) {
  //  short: 1 + 4n    mid: 5 + 2n    long: 25 + 1n
  //  short|mid at n = 2, mid|long at n = 20, short|long at 8 (hidden).
  //  0..2 short, 3..20 mid, 21.. long
  EXPECT_EQ(lower_envelope({line(1, 4), line(5, 2), line(25, 1)}, 0, kSizeMax),
            (Ranges{{0, 2, 0}, {3, 20, 1}, {21, kSizeMax, 2}}));
}

TEST(Envelope, LineThatNeverWinsIsAbsent) {
  EXPECT_EQ(lower_envelope({line(1, 1), line(2, 2)}, 0, 50), (Ranges{{0, 50, 0}}));
}

TEST(Envelope, EqualLinesGoToTheEarlier) {
  EXPECT_EQ(lower_envelope({line(3, 1), line(3, 1)}, 0, 50), (Ranges{{0, 50, 0}}));
}

TEST(Envelope, RangeLimitsHandOverWhereALineEnds) {
  //  A: 0 + 1n on 0..100 only;  B: 50 + 1n everywhere.
  //  A is cheaper wherever it exists: 0..100 A, 101.. B.
  EXPECT_EQ(lower_envelope({line(0, 1, 0, 100), line(50, 1)}, 0, kSizeMax), (Ranges{{0, 100, 0}, {101, kSizeMax, 1}}));
}

TEST(Envelope, UncoveredSizesAreLeftOut) {
  EXPECT_EQ(lower_envelope({line(0, 1, 0, 10), line(0, 1, 20, 30)}, 0, 40), (Ranges{{0, 10, 0}, {20, 30, 1}}));
}

TEST(Envelope, PiecewiseFunctionsAreComparedPieceByPiece) {
  //  A: 0 + 2n on 0..10, then 15 + 0.5n;  B: 8 + 1n.
  //  0..8: A (2n ≤ 8 + n up to n = 8, the tie to A); 9..10: B;
  //  from 11 A's second piece 15 + 0.5n meets B at n = 14 (both 22): B on
  //  11..13 (merged with 9..10), A from 14 on, the tie again to A.
  const PiecewiseFunc a{Piece{0, 10, {0, 2}}, Piece{11, kSizeMax, {15, 0.5}}};
  EXPECT_EQ(lower_envelope({a, line(8, 1)}, 0, kSizeMax), (Ranges{{0, 8, 0}, {9, 13, 1}, {14, kSizeMax, 0}}));
}

TEST(Envelope, CrossingBeyondSizeMaxNeverHappens) {
  EXPECT_EQ(lower_envelope({line(0, 1e-9), line(1e30, 0)}, 0, kSizeMax), (Ranges{{0, kSizeMax, 0}}));
}

TEST(UpperEnvelope, IsTheLargestLine) {
  // max(5, n): 5 on 0..5, n from 6.
  const PiecewiseFunc u = upper_envelope({LinearFunc{5, 0}, LinearFunc{0, 1}}, 0, 100);
  ASSERT_EQ(u.size(), 2u);
  EXPECT_EQ(u[0].to, 5u);
  EXPECT_EQ(u[1].from, 6u);
  Seconds t = 0;
  ASSERT_TRUE(evaluate(u, 80, t));
  EXPECT_EQ(t, 80);
  EXPECT_FALSE(evaluate(u, 101, t));
}

}  // namespace
}  // namespace xover
