// TableStore: paths that cost the same share one thresholds table, whatever
// their nodes and lanes are called; a path, memory type or setting that
// differs gets a table of its own.
#include <gtest/gtest.h>

#include "protocols/select/table_store.hpp"
#include "tests/support/paths.hpp"

namespace xover {
namespace {

// Two lanes named after their source's links, as the simulator names them.
Path from_node(const std::string& node) {
  Path p = test::path({test::lane(node + "_r0", 1, 12.5, 0.2), test::lane(node + "_r1", 2, 25, 0.3)}, 10);
  p.from = node;
  p.to = "n9";
  return p;
}

TEST(TableStore, PathsAlikeButForTheirNamesShareOneTable) {
  TableStore store;
  const SelectConfig config;
  const ThresholdTable& a = store.table(from_node("n0"), config, MemType::Host);
  const ThresholdTable& b = store.table(from_node("n1"), config, MemType::Host);
  EXPECT_EQ(&a, &b);
  EXPECT_EQ(store.size(), 1u);
}

TEST(TableStore, AFigureThatDiffersGetsItsOwnTable) {
  TableStore store;
  const SelectConfig config;
  const ThresholdTable& base = store.table(from_node("n0"), config, MemType::Host);
  Path slower = from_node("n1");
  slower.lanes[1].latency *= 2;
  Path paced = from_node("n2");
  paced.message_factor = SizeSteps({{0, 1.0}, {65536, 0.5}});
  Path copies = from_node("n3");
  copies.memcpy_bw_remote /= 2;
  const ThresholdTable& s = store.table(slower, config, MemType::Host);
  const ThresholdTable& p = store.table(paced, config, MemType::Host);
  const ThresholdTable& c = store.table(copies, config, MemType::Host);
  EXPECT_NE(&s, &base);
  EXPECT_NE(&p, &base);
  EXPECT_NE(&c, &base);
  EXPECT_EQ(store.size(), 4u);
  // Each asked again: the same one back.
  EXPECT_EQ(&store.table(paced, config, MemType::Host), &p);
  EXPECT_EQ(store.size(), 4u);
}

TEST(TableStore, SettingsAndMemoryTypesKeepTheirOwnTables) {
  TableStore store;
  SelectConfig config;
  const ThresholdTable& plain = store.table(from_node("n0"), config, MemType::Host);
  SelectConfig forced = config;
  forced.forced = {"eager/bcopy"};
  const ThresholdTable& only_bcopy = store.table(from_node("n0"), forced, MemType::Host);
  EXPECT_NE(&plain, &only_bcopy);
  EXPECT_EQ(std::string(only_bcopy.lookup(8)->protocol->name), "eager/bcopy");
  EXPECT_EQ(std::string(plain.lookup(8)->protocol->name), "eager/short");
  const ThresholdTable& device = store.table(from_node("n0"), config, MemType::Cuda);
  EXPECT_NE(&plain, &device);
  EXPECT_EQ(device.mem(), MemType::Cuda);
  EXPECT_EQ(store.size(), 3u);
}

}  // namespace
}  // namespace xover
