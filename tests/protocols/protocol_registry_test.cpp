#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "protocols/registry.hpp"

namespace xover {
namespace {

// The wire ids as they went out: an RTS names its protocol by these
// numbers, so renumbering one breaks every peer built before. A new protocol
// takes the next unused number and adds its line here; a retired
// protocol's line is deleted and its number never given again.
const std::map<std::string, ProtoWireId> kPinnedWireIds{
    {"eager/short", 0},       {"eager/bcopy", 1}, {"eager/zcopy", 2},  {"eager/multi/bcopy", 3},
    {"eager/multi/zcopy", 4}, {"rndv/am", 5},     {"rndv/get", 6},     {"eager/staged", 7},
    {"rndv/pipe", 8},         {"rndv/ipc", 9},
};

TEST(ProtocolRegistry, WireIdsArePinned) {
  std::map<std::string, ProtoWireId> registered;
  for (const Protocol* protocol : protocol_registry())
    registered.emplace(protocol->name, protocol->wire_id);
  EXPECT_EQ(registered, kPinnedWireIds);
}

TEST(ProtocolRegistry, WireIdsAreUnique) {
  std::set<ProtoWireId> seen;
  for (const Protocol* protocol : protocol_registry())
    EXPECT_TRUE(seen.insert(protocol->wire_id).second) << protocol->name << " reuses wire id " << +protocol->wire_id;
}

TEST(ProtocolRegistry, RtsDecodingFindsTheProtocolByWireId) {
  for (const Protocol* protocol : protocol_registry())
    EXPECT_EQ(protocol_by_wire_id(protocol->wire_id), protocol) << protocol->name;
  EXPECT_EQ(protocol_by_wire_id(255), nullptr);
  EXPECT_EQ(protocol_by_wire_id(std::uint64_t{1} << 32), nullptr);
}

TEST(ProtocolRegistry, LaneSelectionResolvesEveryDeclaredRequirementOnce) {
  const std::span<const LaneRequirement> requirements = lane_requirements();
  for (const Protocol* protocol : protocol_registry()) {
    if (protocol->bw_lanes) {
      EXPECT_EQ(std::count(requirements.begin(), requirements.end(), *protocol->bw_lanes), 1) << protocol->name;
    }
  }
  EXPECT_EQ(requirements.size(), 5u);  // multi-eager bcopy and zcopy, rndv/am, rndv/get, rndv/pipe
}

}  // namespace
}  // namespace xover
