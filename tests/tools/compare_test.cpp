// The numbers of `xover compare` on hand-written results files: relative
// errors, their median and worst per protocol, sizes found in one file only,
// crossovers by log-interpolation, the simulation's thresholds and the
// within-1.25x verdict; and every malformed results file at its line.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "protocols/workload/results.hpp"
#include "tools/compare.hpp"

namespace xover::tools {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

/// The header of files written before the median's confidence interval:
/// the rows these tests write by hand end at `notes`.
std::string notes_header() {
  std::string header = kCsvHeader;
  for (int column = 0; column < 2; ++column)
    header.erase(header.rfind(','));
  return header;
}

struct Row {
  std::string protocol;
  std::string selected;
  Bytes size;
  double t_us;
};

// One row of a results CSV with median t_us (p10 and p90 the same).
std::string csv_row(const std::string& backend, const Row& r, const std::string& scenario = "s") {
  std::ostringstream os;
  os << scenario << "," << backend << ",p.xml,pingpong," << r.protocol << "," << r.selected << ",r0:1," << r.size
     << ",20," << r.t_us << "," << r.t_us << "," << r.t_us << ",1.0,,0,\n";
  return os.str();
}

ResultsFile results(const std::string& name, const std::string& backend, const std::vector<Row>& rows) {
  std::string text = notes_header() + "\n";
  for (const Row& r : rows)
    text += csv_row(backend, r);
  std::istringstream in(text);
  return read_results_csv(in, name);
}

ResultsFile parse(const std::string& text) {
  std::istringstream in(text);
  return read_results_csv(in, "bad.csv");
}

const std::string kZ = "eager/zcopy";
const std::string kG = "rndv/get";

// Simulation: eager/zcopy and rndv/get forced, auto hands over between 4K
// and 8K.
ResultsFile golden_sim() {
  return results("sim.csv", "sim",
                 {{"auto", kZ, 1024, 2.0}, {"auto", kZ, 2048, 3.0}, {"auto", kZ, 4096, 5.0}, {"auto", kG, 8192, 7.0},
                  {kZ, kZ, 1024, 2.0}, {kZ, kZ, 2048, 3.0}, {kZ, kZ, 4096, 5.0}, {kZ, kZ, 8192, 9.0},
                  {kG, kG, 1024, 4.0}, {kG, kG, 2048, 4.5}, {kG, kG, 4096, 5.5}, {kG, kG, 8192, 7.0}});
}

// Hardware: auto stops at 4K (and chose rndv/get there), rndv/get goes on
// to 16K, and an eager/bcopy curve the simulation lacks.
ResultsFile golden_hw() {
  return results("hw.csv", "shm",
                 {{"auto", kZ, 1024, 2.5}, {"auto", kZ, 2048, 4.0}, {"auto", kG, 4096, 5.0},
                  {kZ, kZ, 1024, 2.5}, {kZ, kZ, 2048, 4.0}, {kZ, kZ, 4096, 6.0}, {kZ, kZ, 8192, 10.0},
                  {kG, kG, 1024, 5.0}, {kG, kG, 2048, 5.0}, {kG, kG, 4096, 5.0}, {kG, kG, 8192, 8.0},
                  {kG, kG, 16384, 11.0}, {"eager/bcopy", "eager/bcopy", 1024, 1.0},
                  {"eager/bcopy", "eager/bcopy", 2048, 1.5}});
}

TEST(Compare, RelativeErrorsPerPointAndProtocol) {
  const Comparison c = compare_results(golden_sim(), golden_hw());
  ASSERT_EQ(c.protocols.size(), 4u);

  // auto: (2−2.5)/2.5 = −0.2, (3−4)/4 = −0.25, (5−5)/5 = 0; 8K only in sim.
  // |rel| sorted 0, 0.2, 0.25: median 0.2, worst 0.25 at 2K.
  const ProtocolErrors& a = c.protocols[0];
  EXPECT_EQ(a.protocol, "auto");
  EXPECT_EQ(a.matched, 3u);
  EXPECT_DOUBLE_EQ(a.median_abs_rel, 0.2);
  EXPECT_DOUBLE_EQ(a.worst_abs_rel, 0.25);
  EXPECT_DOUBLE_EQ(a.worst_rel, -0.25);
  EXPECT_EQ(a.worst_size, 2048u);
  EXPECT_THAT(a.only_sim, ElementsAre(8192u));
  EXPECT_TRUE(a.only_hw.empty());

  // eager/zcopy: −0.2, (3−4)/4 = −0.25, (5−6)/6 = −1/6, (9−10)/10 = −0.1.
  // |rel| sorted 0.1, 1/6, 0.2, 0.25: median (1/6 + 0.2)/2 = 11/60.
  const ProtocolErrors& z = c.protocols[1];
  EXPECT_EQ(z.protocol, kZ);
  EXPECT_EQ(z.matched, 4u);
  EXPECT_DOUBLE_EQ(z.median_abs_rel, 11.0 / 60);
  EXPECT_DOUBLE_EQ(z.worst_abs_rel, 0.25);
  EXPECT_EQ(z.worst_size, 2048u);

  // rndv/get: (4−5)/5 = −0.2, (4.5−5)/5 = −0.1, (5.5−5)/5 = +0.1,
  // (7−8)/8 = −0.125; 16K only on hardware. Median (0.1 + 0.125)/2.
  const ProtocolErrors& g = c.protocols[2];
  EXPECT_EQ(g.protocol, kG);
  EXPECT_EQ(g.matched, 4u);
  EXPECT_DOUBLE_EQ(g.median_abs_rel, 0.1125);
  EXPECT_DOUBLE_EQ(g.worst_abs_rel, 0.2);
  EXPECT_DOUBLE_EQ(g.worst_rel, -0.2);
  EXPECT_EQ(g.worst_size, 1024u);
  EXPECT_TRUE(g.only_sim.empty());
  EXPECT_THAT(g.only_hw, ElementsAre(16384u));

  // A curve only on hardware: nothing matched, every size listed.
  const ProtocolErrors& b = c.protocols[3];
  EXPECT_EQ(b.protocol, "eager/bcopy");
  EXPECT_EQ(b.matched, 0u);
  EXPECT_THAT(b.only_hw, ElementsAre(1024u, 2048u));

  // Points by protocol, then size; auto at 4K ran different protocols.
  ASSERT_EQ(c.points.size(), 11u);
  EXPECT_EQ(c.points[2].protocol, "auto");
  EXPECT_EQ(c.points[2].size, 4096u);
  EXPECT_EQ(c.points[2].sim_selected, kZ);
  EXPECT_EQ(c.points[2].hw_selected, kG);
  EXPECT_DOUBLE_EQ(c.points[2].rel, 0.0);
  EXPECT_EQ(c.points[5].protocol, kZ);
  EXPECT_DOUBLE_EQ(c.points[5].rel, -1.0 / 6);
  EXPECT_DOUBLE_EQ(c.points[5].sim_us, 5.0);
  EXPECT_DOUBLE_EQ(c.points[5].hw_us, 6.0);
}

TEST(Compare, CrossoversByLogInterpolation) {
  const Comparison c = compare_results(golden_sim(), golden_hw());
  // Simulation, d = t_zcopy − t_get: −2, −1.5, −0.5, +2 at 1K..8K. Between
  // 4K and 8K, f = −0.5/(−0.5 − 2) = 0.2: size 4096·2^0.2 ≈ 4705.07,
  // time 5 + 0.2·(9 − 5) = 5.8.
  ASSERT_EQ(c.sim_crossovers.size(), 1u);
  const Crossover& s = c.sim_crossovers[0];
  EXPECT_EQ(s.faster_below, kZ);
  EXPECT_EQ(s.faster_above, kG);
  EXPECT_EQ(s.last_below, 4096u);
  EXPECT_EQ(s.first_above, 8192u);
  EXPECT_NEAR(s.size, 4096 * std::pow(2.0, 0.2), 1e-9);
  EXPECT_NEAR(s.t_us, 5.8, 1e-12);
  // Hardware: d = −2.5, −1, +1, +2. Between 2K and 4K, f = 0.5: size
  // 2048·√2 ≈ 2896.31, time 4 + 0.5·2 = 5. eager/bcopy never crosses:
  // it is faster at both sizes it shares with the others.
  ASSERT_EQ(c.hw_crossovers.size(), 1u);
  EXPECT_NEAR(c.hw_crossovers[0].size, 2048 * std::sqrt(2.0), 1e-9);
  EXPECT_NEAR(c.hw_crossovers[0].t_us, 5.0, 1e-12);
}

TEST(Compare, ThresholdAgainstTheMeasuredCrossover) {
  const Comparison c = compare_results(golden_sim(), golden_hw());
  // auto hands over between 4K and 8K: estimate √(4096·8192) = 4096·√2.
  // Against 2048·√2 measured, the factor is exactly 2: not within 1.25.
  ASSERT_EQ(c.thresholds.size(), 1u);
  const ThresholdCheck& t = c.thresholds[0];
  EXPECT_EQ(t.sim.from, kZ);
  EXPECT_EQ(t.sim.to, kG);
  EXPECT_EQ(t.sim.last_from, 4096u);
  EXPECT_EQ(t.sim.first_to, 8192u);
  EXPECT_DOUBLE_EQ(t.sim.estimate(), 4096 * std::sqrt(2.0));
  ASSERT_TRUE(t.hw.has_value());
  EXPECT_EQ(t.hw_crossings, 1u);
  EXPECT_NEAR(*t.factor, 2.0, 1e-12);
  EXPECT_FALSE(t.within);
  // With a limit of 2, it holds.
  EXPECT_TRUE(compare_results(golden_sim(), golden_hw(), 2.0).thresholds[0].within);
}

// Hardware crossing back and forth: d = t_zcopy − t_get = −1, +1, −1, +3 at
// 512..4K. zcopy→get crossings at 512·√2 ≈ 724.08 and, with f = 1/4,
// 2048·2^(1/4) ≈ 2435.50; get→zcopy at 1024·√2 in between. The simulated
// hand-over between 2K and 4K (estimate 2048·√2 ≈ 2896.31) takes the
// nearer, 2435.50: factor 2^(1/4) ≈ 1.189, within 1.25.
TEST(Compare, NearestOfSeveralHardwareCrossings) {
  const ResultsFile sim = results(
      "sim.csv", "sim",
      {{"auto", kZ, 512, 1.0}, {"auto", kZ, 1024, 2.0}, {"auto", kZ, 2048, 3.0}, {"auto", kG, 4096, 4.0}});
  const ResultsFile hw = results("hw.csv", "tcp",
                                 {{"auto", kZ, 512, 1.0}, {"auto", kZ, 1024, 2.0}, {"auto", kZ, 2048, 3.0},
                                  {"auto", kG, 4096, 3.0}, {kZ, kZ, 512, 1.0}, {kZ, kZ, 1024, 3.0},
                                  {kZ, kZ, 2048, 3.0}, {kZ, kZ, 4096, 6.0}, {kG, kG, 512, 2.0},
                                  {kG, kG, 1024, 2.0}, {kG, kG, 2048, 4.0}, {kG, kG, 4096, 3.0}});
  const Comparison c = compare_results(sim, hw);
  ASSERT_EQ(c.hw_crossovers.size(), 3u);
  EXPECT_NEAR(c.hw_crossovers[0].size, 512 * std::sqrt(2.0), 1e-9);
  EXPECT_EQ(c.hw_crossovers[1].faster_below, kG);
  EXPECT_NEAR(c.hw_crossovers[1].size, 1024 * std::sqrt(2.0), 1e-9);
  EXPECT_NEAR(c.hw_crossovers[2].size, 2048 * std::pow(2.0, 0.25), 1e-9);
  EXPECT_TRUE(c.sim_crossovers.empty());

  ASSERT_EQ(c.thresholds.size(), 1u);
  const ThresholdCheck& t = c.thresholds[0];
  EXPECT_EQ(t.hw_crossings, 2u);
  EXPECT_NEAR(t.hw->size, 2048 * std::pow(2.0, 0.25), 1e-9);
  EXPECT_NEAR(*t.factor, std::pow(2.0, 0.25), 1e-12);
  EXPECT_TRUE(t.within);
}

// Equal times are skipped: d = −1, 0, +1 crosses between the first and the
// last size, f = 1/2 of the way from 1K to 4K in log: at 2K exactly.
TEST(Compare, EqualTimesAreSkippedWhenInterpolating) {
  const ResultsFile r = results("r.csv", "sim",
                                {{kZ, kZ, 1024, 1.0}, {kZ, kZ, 2048, 2.0}, {kZ, kZ, 4096, 4.0}, {kG, kG, 1024, 2.0},
                                 {kG, kG, 2048, 2.0}, {kG, kG, 4096, 3.0}});
  const auto crossings = find_crossovers(r);
  ASSERT_EQ(crossings.size(), 1u);
  EXPECT_EQ(crossings[0].last_below, 1024u);
  EXPECT_EQ(crossings[0].first_above, 4096u);
  EXPECT_NEAR(crossings[0].size, 2048, 1e-9);
  EXPECT_TRUE(selection_thresholds(r).empty()) << "no auto curve, no thresholds";
}

// 0 B has no logarithm: a hand-over or a crossing from 0 B to 8 B is not
// one (the engine's first range starts at 0 anyway).
TEST(Compare, ZeroBytesIsSkipped) {
  const ResultsFile r = results("r.csv", "shm",
                                {{"auto", "eager/short", 0, 1.0}, {"auto", kZ, 8, 1.0}, {"auto", kZ, 64, 1.0},
                                 {kZ, kZ, 0, 3.0}, {kZ, kZ, 8, 1.0}, {kG, kG, 0, 2.0}, {kG, kG, 8, 2.0}});
  EXPECT_TRUE(selection_thresholds(r).empty());
  EXPECT_TRUE(find_crossovers(r).empty());
}

TEST(Compare, UnmeasuredThresholdsSayWhy) {
  // eager/short has no curve on hardware; eager/multi/zcopy is measured by
  // the eager/multi curve it lies under, which rndv/get never undercuts.
  const ResultsFile sim = results("sim.csv", "sim",
                                  {{"auto", "eager/short", 8, 1.0},
                                   {"auto", "eager/multi/zcopy", 64, 2.0},
                                   {"auto", kG, 512, 3.0}});
  const ResultsFile hw = results("hw.csv", "shm",
                                 {{"auto", "eager/short", 8, 1.0},
                                  {"eager/multi", "eager/multi/zcopy", 64, 1.0},
                                  {"eager/multi", "eager/multi/zcopy", 512, 2.0},
                                  {kG, kG, 64, 3.0},
                                  {kG, kG, 512, 4.0}});
  const Comparison c = compare_results(sim, hw);
  ASSERT_EQ(c.thresholds.size(), 2u);
  EXPECT_FALSE(c.thresholds[0].hw.has_value());
  EXPECT_FALSE(c.thresholds[0].factor.has_value());
  EXPECT_EQ(c.thresholds[0].unmeasured, "the hardware file has no eager/short curve");
  EXPECT_EQ(c.thresholds[1].unmeasured, "rndv/get never drops below eager/multi on hardware");
  EXPECT_FALSE(c.thresholds[1].within);
}

TEST(Compare, RunsThatCannotBeComparedThrow) {
  const ResultsFile sim = golden_sim();
  std::istringstream other(notes_header() + "\n" + csv_row("shm", {kZ, kZ, 1024, 1.0}, "other"));
  EXPECT_THAT([&] { compare_results(sim, read_results_csv(other, "o.csv")); },
              ::testing::ThrowsMessage<CompareError>(HasSubstr("o.csv holds 'other'")));
  std::istringstream stream(notes_header() + "\ns,shm,p.xml,stream,auto,eager/zcopy,r0:1,1024,20,1,1,1,1,,0,\n");
  EXPECT_THAT([&] { compare_results(sim, read_results_csv(stream, "st.csv")); },
              ::testing::ThrowsMessage<CompareError>(HasSubstr("st.csv a stream one")));
  const ResultsFile disjoint = results("d.csv", "shm", {{kZ, kZ, 3, 1.0}});
  EXPECT_THAT([&] { compare_results(sim, disjoint); },
              ::testing::ThrowsMessage<CompareError>(HasSubstr("no (protocol, size) in common")));
}

/// The header of files written before the notes column.
std::string old_header() {
  const std::string header = notes_header();
  return header.substr(0, header.rfind(','));
}

// A file from before the notes column, which this one also checks is read.
TEST(ResultsCsv, ReadsQuotedFieldsAndAnEmptyModel) {
  const ResultsFile r = parse(old_header() +
                              "\r\ns,sim,\"dir,with \"\"comma\"\"/p.xml\",pingpong,auto,eager/short,r0:0.5 r1:0.5,8,20,"
                              "1.5,1.25,2,5.333,1.5,0\r\ns,sim,\"dir,with \"\"comma\"\"/p.xml\",pingpong,auto,"
                              "eager/short,r0:1,16,20,1.5,1.25,2,5.333,,3\n");
  EXPECT_EQ(r.platform, "dir,with \"comma\"/p.xml");
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_EQ(r.rows[0].lanes, "r0:0.5 r1:0.5");
  EXPECT_DOUBLE_EQ(r.rows[0].t_p10_us, 1.25);
  EXPECT_EQ(r.rows[0].model_us, 1.5);
  EXPECT_FALSE(r.rows[1].model_us.has_value());
  EXPECT_EQ(r.rows[1].errors, 3u);
  EXPECT_EQ(r.rows[1].line, 3u);
  EXPECT_EQ(r.rows[1].notes, "");
}

TEST(ResultsCsv, ReadsNotes) {
  const ResultsFile r = parse(notes_header() +
                              "\ns,shm,vm,alltoall,auto,coll/alltoall/direct,cma,8,20,1.5,1.25,2,5.333,1.5,0,"
                              "\"verified=yes; oversubscribed: 8 ranks × 2 threads on 2 cores\"\n");
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0].notes, "verified=yes; oversubscribed: 8 ranks × 2 threads on 2 cores");
}

// What `xover run` writes now reads back with the median's interval.
TEST(ResultsCsv, ReadsTheMediansConfidenceIntervalItWrote) {
  Results written;
  Point& p = written.point("auto", 64);
  p.selected = "eager/short";
  for (int i = 1; i <= 50; ++i)
    p.samples.push_back(i * 1e-6);
  std::ostringstream csv;
  write_csv(csv, written, "s", "shm", "vm", "pingpong");
  const ResultsFile r = parse(csv.str());
  ASSERT_EQ(r.rows.size(), 1u);
  // 50 samples: ranks floor(25 − 0.98·√50) = 18 and ceil(26 + 0.98·√50) = 33.
  EXPECT_DOUBLE_EQ(r.rows[0].t_median_us, 25);
  EXPECT_EQ(r.rows[0].t_ci_lo_us, 18);
  EXPECT_EQ(r.rows[0].t_ci_hi_us, 33);
}

TEST(ResultsCsv, AnIntervalThatMissesTheMedianIsRefused) {
  const std::string head = std::string(kCsvHeader) + "\ns,shm,vm,pingpong,auto,eager/short,r0:1,8,20,1.5,1,2,5,,0,,";
  EXPECT_THAT([&] { parse(head + "1.6,2\n"); },
              ::testing::ThrowsMessage<ResultsCsvError>(
                  "bad.csv:2: the median's confidence interval [1.6, 2] does not hold t_median_us 1.5"));
  EXPECT_THAT([&] { parse(head + "1,\n"); },
              ::testing::ThrowsMessage<ResultsCsvError>("bad.csv:2: t_ci_hi_us '' is not a non-negative number"));
}

struct BadCsv {
  std::string name;
  std::string text;
  ::testing::Matcher<std::string> message;
};

void PrintTo(const BadCsv& b, std::ostream* os) {
  *os << b.name;
}

class ResultsCsvBad : public ::testing::TestWithParam<BadCsv> {};

TEST_P(ResultsCsvBad, SaysWhereAndWhat) {
  EXPECT_THAT([&] { parse(GetParam().text); }, ::testing::ThrowsMessage<ResultsCsvError>(GetParam().message));
}

const std::string kHead = notes_header() + "\n";
const std::string kGood = "s,sim,p.xml,pingpong,auto,eager/short,r0:1,8,20,1.5,1.5,1.5,5.3,1.5,0,\n";

INSTANTIATE_TEST_SUITE_P(
    Files, ResultsCsvBad,
    ::testing::Values(
        BadCsv{"Empty", "", ::testing::StartsWith("bad.csv:1: empty file")},
        BadCsv{"WrongHeader", "size,time\n8,1\n", ::testing::StartsWith("bad.csv:1: not a results CSV header")},
        BadCsv{"NoRows", kHead, "bad.csv:2: no results rows after the header"},
        BadCsv{"ShortRow", kHead + kGood + "s,sim,p.xml,pingpong,auto\n", "bad.csv:3: 5 fields, the header has 16"},
        BadCsv{"BadSize", kHead + "s,sim,p.xml,pingpong,auto,eager/short,r0:1,8B,20,1.5,1.5,1.5,5.3,1.5,0,\n",
               "bad.csv:2: size '8B' is not a whole number"},
        BadCsv{"BadTime", kHead + "s,sim,p.xml,pingpong,auto,eager/short,r0:1,8,20,fast,1.5,1.5,5.3,1.5,0,\n",
               "bad.csv:2: t_median_us 'fast' is not a non-negative number"},
        BadCsv{"ZeroTime", kHead + "s,sim,p.xml,pingpong,auto,eager/short,r0:1,8,20,0,0,0,5.3,1.5,0,\n",
               "bad.csv:2: t_median_us must be positive"},
        BadCsv{"Repeated", kHead + kGood + kGood, "bad.csv:3: a second row for auto at 8 B"},
        BadCsv{"TwoScenarios", kHead + kGood + "t,sim,p.xml,pingpong,auto,eager/short,r0:1,16,20,1,1,1,1,1,0,\n",
               "bad.csv:3: scenario 't' differs from the first row's 's'; one file holds one run"},
        BadCsv{"OpenQuote", kHead + "s,sim,\"p.xml,pingpong\n", "bad.csv:2: a quoted field is not closed"}),
    [](const auto& info) { return info.param.name; });

TEST(ResultsCsv, MissingFile) {
  EXPECT_THAT([] { read_results_csv("no-such-results.csv"); },
              ::testing::ThrowsMessage<ResultsCsvError>(
                  "no-such-results.csv: cannot open (no such file, or not readable)"));
}

}  // namespace
}  // namespace xover::tools
