#include <gtest/gtest.h>

#include "protocols/select/select_config.hpp"
#include "protocols/select/threshold_table.hpp"
#include "protocols/units.hpp"
#include "tests/support/paths.hpp"

namespace xover {
namespace {

TEST(Units, TimesSizesAndBandwidths) {
  EXPECT_DOUBLE_EQ(parse_time("1.5us"), 1.5e-6);
  EXPECT_DOUBLE_EQ(parse_time("2ms"), 2e-3);
  EXPECT_DOUBLE_EQ(parse_time("3ns"), 3e-9);
  EXPECT_DOUBLE_EQ(parse_time("0.5"), 0.5);
  EXPECT_EQ(parse_size("8"), 8u);
  EXPECT_EQ(parse_size("4KiB"), 4096u);
  EXPECT_EQ(parse_size("1MiB"), 1048576u);
  EXPECT_EQ(parse_size("10kB"), 10000u);
  EXPECT_EQ(parse_size("inf"), kSizeMax);
  EXPECT_DOUBLE_EQ(parse_bandwidth("12.5GBps"), 12.5e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("100Gbps"), 12.5e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("1GiBps"), 1073741824.0);
}

TEST(Units, BadStringsSayWhatIsWrong) {
  EXPECT_THROW(parse_time("1.5parsecs"), std::invalid_argument);
  EXPECT_THROW(parse_time("fast"), std::invalid_argument);
  EXPECT_THROW(parse_size("1.5B"), std::invalid_argument);
  EXPECT_THROW(parse_size("-4KiB"), std::invalid_argument);
  EXPECT_THROW(parse_bandwidth("0GBps"), std::invalid_argument);
  EXPECT_THROW(parse_bandwidth("12GB"), std::invalid_argument);
  try {
    parse_time("3 fortnights");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("unknown time unit"), std::string::npos) << e.what();
  }
}

TEST(Units, FormatSizeForPeople) {
  EXPECT_EQ(format_size(8), "8");
  EXPECT_EQ(format_size(1024), "1K");
  EXPECT_EQ(format_size(65536), "64K");
  EXPECT_EQ(format_size(1 << 20), "1M");
  EXPECT_EQ(format_size(1000), "1000");
  EXPECT_EQ(format_size(kSizeMax), "inf");
}

TEST(SelectConfig, SetsKnownKeysAndRejectsTheRest) {
  SelectConfig c;
  c.set("eager_limit=4KiB");
  c.set("rndv_thresh", "64KiB");
  c.set("reg_cache=off");
  c.set("perf=streaming");
  c.set("proto=eager/multi,rndv");
  EXPECT_EQ(c.eager_limit, 4096u);
  EXPECT_EQ(c.rndv_thresh, 65536u);
  EXPECT_FALSE(c.reg_cache);
  EXPECT_EQ(c.perf, PerfType::Streaming);
  EXPECT_EQ(c.forced, (std::vector<std::string>{"eager/multi", "rndv"}));
  EXPECT_THROW(c.set("eagr_limit=4"), std::invalid_argument);
  EXPECT_THROW(c.set("reg_cache=maybe"), std::invalid_argument);
  EXPECT_THROW(c.set("rndv_perf_diff=-1"), std::invalid_argument);
  EXPECT_THROW(c.set("no_equals"), std::invalid_argument);
}

class Overrides : public ::testing::Test {
 protected:
  Path path_ = test::path({test::lane("r0", 1, 10, 0.25), test::lane("r1", 1, 10, 0.25)}, 5);

  std::vector<std::string> protocols(const SelectConfig& c) {
    std::vector<std::string> out;
    const ThresholdTable table = ThresholdTable::build(path_, c);
    for (const ThresholdRange& r : table.ranges())
      out.emplace_back(table.choices()[r.choice].protocol->name);
    return out;
  }
};

TEST_F(Overrides, ForcedPrefixKeepsOnlyThatFamily) {
  SelectConfig c;
  c.set("proto=rndv");
  const ThresholdTable table = ThresholdTable::build(path_, c);
  for (const ProtoChoice& choice : table.choices())
    EXPECT_TRUE(choice.protocol->name.starts_with("rndv/"));
  EXPECT_EQ(table.lookup(0)->protocol->family, ProtoFamily::Rndv);
  EXPECT_EQ(table.lookup(1 << 20)->protocol->name, "rndv/get");
}

TEST_F(Overrides, DisabledProtocolNeverAppears) {
  SelectConfig c;
  c.set("disable=rndv/get");
  for (const std::string& name : protocols(c))
    EXPECT_NE(name, "rndv/get");
}

TEST_F(Overrides, RndvThreshSplitsTheAxisExactly) {
  SelectConfig c;
  c.set("rndv_thresh=1000");
  const ThresholdTable table = ThresholdTable::build(path_, c);
  EXPECT_EQ(table.lookup(999)->protocol->family, ProtoFamily::Eager);
  EXPECT_EQ(table.lookup(1000)->protocol->name, "rndv/get");
}

TEST_F(Overrides, EagerAndMultiEagerLimitsCapTheirFamilies) {
  SelectConfig c;
  c.set("eager_limit=100");
  c.set("multi_eager_limit=20000");
  const ThresholdTable table = ThresholdTable::build(path_, c);
  EXPECT_EQ(table.lookup(100)->protocol->family, ProtoFamily::Eager);
  EXPECT_NE(table.lookup(101)->protocol->family, ProtoFamily::Eager);
  EXPECT_NE(table.lookup(20001)->protocol->family, ProtoFamily::MultiEager);
}

TEST_F(Overrides, ForcingAProtocolThatCannotCoverLeavesAGap) {
  SelectConfig c;
  c.set("proto=eager/short");
  const ThresholdTable table = ThresholdTable::build(path_, c);
  EXPECT_NE(table.lookup(0), nullptr);
  EXPECT_EQ(table.lookup(1 << 20), nullptr);
}

TEST_F(Overrides, UnknownProtocolNameIsAnError) {
  SelectConfig c;
  c.set("proto=eager/mul");
  EXPECT_THROW(ThresholdTable::build(path_, c), std::invalid_argument);
}

TEST_F(Overrides, RndvPerfDiffMovesTheThresholdDown) {
  SelectConfig none;
  none.set("rndv_perf_diff=0");
  SelectConfig ten;
  ten.set("rndv_perf_diff=10");
  auto first_rndv = [&](const SelectConfig& c) {
    const ThresholdTable table = ThresholdTable::build(path_, c);
    for (const ThresholdRange& r : table.ranges())
      if (table.choices()[r.choice].protocol->family == ProtoFamily::Rndv)
        return r.from;
    return kSizeMax;
  };
  EXPECT_LT(first_rndv(ten), first_rndv(none));
}

}  // namespace
}  // namespace xover
