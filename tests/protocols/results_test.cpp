// Results: quantiles, the CSV, and the text that carries one rank's points
// to the rank that writes them.
#include <gtest/gtest.h>

#include <sstream>

#include "protocols/workload/results.hpp"

namespace xover {
namespace {

TEST(Results, QuantilesAreNearestRank) {
  Point p;
  for (int i = 10; i >= 1; --i)
    p.samples.push_back(i * 1e-6);
  EXPECT_DOUBLE_EQ(p.median(), 5e-6);
  EXPECT_DOUBLE_EQ(p.p10(), 1e-6);
  EXPECT_DOUBLE_EQ(p.p90(), 9e-6);
}

TEST(Results, MedianIntervalTakesTheOrderStatisticsOfLeBoudec) {
  EXPECT_EQ(median_interval({}), std::make_pair(0.0, 0.0));
  // Under 6 samples: the whole range.
  EXPECT_EQ(median_interval({3, 1, 2}), std::make_pair(1.0, 3.0));
  // 10 samples: ranks floor(5 − 0.98·√10) = 1 and ceil(6 + 0.98·√10) = 10.
  std::vector<double> ten;
  for (int i = 10; i >= 1; --i)
    ten.push_back(i);
  EXPECT_EQ(median_interval(ten), std::make_pair(1.0, 10.0));
  // 100 samples: ranks floor(50 − 9.8) = 40 and ceil(51 + 9.8) = 61.
  Point p;
  for (int i = 100; i >= 1; --i)
    p.samples.push_back(i * 1e-6);
  EXPECT_DOUBLE_EQ(p.median_ci().first, 40e-6);
  EXPECT_DOUBLE_EQ(p.median_ci().second, 61e-6);
  EXPECT_LE(p.median_ci().first, p.median());
  EXPECT_GE(p.median_ci().second, p.median());
}

TEST(Results, TextRoundTripKeepsEverySampleBitForBit) {
  Results a;
  Point& p = a.point("auto", 4096);
  p.selected = "eager/bcopy";
  p.lanes = "mm:1";
  p.samples = {1.0 / 3.0 * 1e-6, 2.5e-7};
  p.model = 0.1 + 0.2;
  p.errors = 2;
  p.buffered_peak = 77;
  p.moved = 7 * 4096;
  Point& q = a.point("rndv/get", 8);
  q.samples = {1e-3};

  Results b;
  b.merge_text(a.to_text());
  const auto points = b.points();
  ASSERT_EQ(points.size(), 2U);
  EXPECT_EQ(points[0]->curve, "auto");
  EXPECT_EQ(points[0]->selected, "eager/bcopy");
  EXPECT_EQ(points[0]->lanes, "mm:1");
  EXPECT_EQ(points[0]->samples, p.samples);
  EXPECT_EQ(points[0]->model, p.model);
  EXPECT_EQ(points[0]->errors, 2U);
  EXPECT_EQ(points[0]->buffered_peak, 77U);
  EXPECT_EQ(points[0]->moved, p.moved);
  EXPECT_EQ(points[1]->curve, "rndv/get");
  EXPECT_FALSE(points[1]->model.has_value());
  EXPECT_FALSE(points[1]->moved.has_value());
  EXPECT_EQ(points[1]->samples, q.samples);
}

TEST(Results, MergeAddsErrorsAndSamplesAndKeepsTheLeadersNames) {
  Results leader;
  Point& p = leader.point("auto", 64);
  p.selected = "eager/short";
  p.samples = {1e-6};
  Results follower;
  Point& f = follower.point("auto", 64);
  f.errors = 3;
  f.samples = {2e-6};
  leader.merge_text(follower.to_text());
  EXPECT_EQ(leader.errors(), 3U);
  EXPECT_EQ(leader.points()[0]->selected, "eager/short");
  EXPECT_EQ(leader.points()[0]->samples.size(), 2U);
}

TEST(Results, MalformedTextIsRefused) {
  Results r;
  EXPECT_THROW(r.merge_text("auto\tx\ty\n"), std::invalid_argument);
  EXPECT_THROW(r.merge_text("auto\tx\ty\t8\t0\t0\t-\t-\n"), std::invalid_argument);
  EXPECT_THROW(r.merge_text("auto\tx\ty\tbig\t0\t0\t-\t-\t\n"), std::invalid_argument);
  EXPECT_THROW(r.merge_text("auto\tx\ty\t8\t0\t0\t-\t-\t\t-1\n"), std::invalid_argument);
  EXPECT_THROW(r.merge_text("auto\tx\ty\t8\t0\t0\t-\tnan\t\n"), std::invalid_argument);
  EXPECT_THROW(r.merge_text("auto\tx\ty\t8\t0\t0\tmany\t-\t\n"), std::invalid_argument);
}

}  // namespace
}  // namespace xover

namespace xover {
namespace {

// A slow small message (8 B in 20 ms: 0.0004 MB/s) keeps a bandwidth in the
// CSV; three decimals of MB/s wrote it as 0.
TEST(Results, CsvKeepsTheBandwidthOfASlowSmallMessage) {
  Results results;
  Point& p = results.point("auto", 8);
  p.selected = "eager/short";
  p.samples = {0.02, 0.02, 0.02};
  std::ostringstream csv;
  write_csv(csv, results, "s", "shm", "host", "pingpong");
  std::istringstream in(csv.str());
  std::string header, row;
  std::getline(in, header);
  std::getline(in, row);
  std::vector<std::string> fields;
  std::stringstream cells(row);
  for (std::string f; std::getline(cells, f, ',');)
    fields.push_back(f);
  ASSERT_GE(fields.size(), 13u) << row;
  EXPECT_DOUBLE_EQ(std::stod(fields[12]), 8 / 0.02 / 1e6) << row;
}

TEST(Results, NotesTravelAndMergeOnceEach) {
  Results leader;
  Point& p = leader.point("auto", 64);
  p.add_note("verified=yes");
  p.add_note("verified=yes");
  p.add_note("PE 0: tab\there");
  Results follower;
  Point& f = follower.point("auto", 64);
  f.add_note("PE 1: its signal shows 3, not 2: 1 adds too many");
  f.add_note("verified=yes");
  leader.merge_text(follower.to_text());
  EXPECT_EQ(leader.points()[0]->notes,
            "verified=yes; PE 0: tab here; PE 1: its signal shows 3, not 2: 1 adds too many");
  leader.note_all("oversubscribed: 2 ranks × 2 threads on 2 cores");
  EXPECT_EQ(leader.points()[0]->notes.substr(leader.points()[0]->notes.rfind("; ") + 2),
            "oversubscribed: 2 ranks × 2 threads on 2 cores");
  std::ostringstream csv;
  write_csv(csv, leader, "s", "shm", "vm", "alltoall");
  EXPECT_NE(csv.str().find(",0,\"verified=yes; PE 0: tab here; PE 1: its signal shows 3, not 2: 1 adds too many; "
                           "oversubscribed: 2 ranks × 2 threads on 2 cores\",0.000000,0.000000\n"),
            std::string::npos)
      << csv.str();
}

}  // namespace
}  // namespace xover
