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

// The active messages' ids as they went out: a peer built before reads
// each kind of message by its number. A new kind takes the next unused
// number (10 today) and adds its line here; a retired kind's line is
// deleted and its number never given again.
const std::map<std::string, AmId> kPinnedAmIds{
    {"eager", 1},      {"multi", 2},    {"rts", 3},       {"rtr", 4},     {"rndv-data", 5},
    {"ack", 6},        {"pipe-rtr", 7}, {"pipe-data", 8}, {"ipc-ack", 9},
};

TEST(ProtocolRegistry, ActiveMessageIdsArePinned) {
  std::map<std::string, AmId> installed;
  for (const AmKind& kind : am_kinds())
    EXPECT_TRUE(installed.emplace(kind.name, kind.id).second) << kind.name << " is installed twice";
  EXPECT_EQ(installed, kPinnedAmIds);
}

// Every protocol receives some message; a kind that several receive (the
// eager message, the RTS) is listed by each with the id, name and handler
// the Worker installs, so that no id is two kinds of message.
TEST(ProtocolRegistry, EachProtocolsMessagesAreTheOnesInstalled) {
  for (const Protocol* protocol : protocols_for(ProtoOp::TagSend)) {
    EXPECT_FALSE(protocol->messages.empty()) << protocol->name << " receives no message";
    for (const AmKind& kind : protocol->messages) {
      const auto installed = std::find_if(am_kinds().begin(), am_kinds().end(),
                                          [&](const AmKind& k) { return k.id == kind.id; });
      ASSERT_NE(installed, am_kinds().end()) << protocol->name << ": " << kind.name;
      EXPECT_EQ(installed->name, kind.name) << protocol->name << ": id " << +kind.id;
      EXPECT_EQ(installed->handle, kind.handle) << protocol->name << ": " << kind.name;
    }
  }
}

TEST(ProtocolRegistry, WireIdsArePinned) {
  std::map<std::string, ProtoWireId> registered;
  for (const Protocol* protocol : protocols_for(ProtoOp::TagSend))
    registered.emplace(protocol->name, protocol->wire_id);
  EXPECT_EQ(registered, kPinnedWireIds);
}

TEST(ProtocolRegistry, WireIdsAreUnique) {
  std::set<ProtoWireId> seen;
  for (const Protocol* protocol : protocols_for(ProtoOp::TagSend))
    EXPECT_TRUE(seen.insert(protocol->wire_id).second) << protocol->name << " reuses wire id " << +protocol->wire_id;
}

TEST(ProtocolRegistry, RtsDecodingFindsTheProtocolByWireId) {
  for (const Protocol* protocol : protocols_for(ProtoOp::TagSend))
    EXPECT_EQ(protocol_by_wire_id(protocol->wire_id), protocol) << protocol->name;
  EXPECT_EQ(protocol_by_wire_id(255), nullptr);
  EXPECT_EQ(protocol_by_wire_id(std::uint64_t{1} << 32), nullptr);
}

// One registry for every operation: each operation's list holds its own
// protocols in registry order, together they are the registry, and a name
// is one protocol's across all of them.
TEST(ProtocolRegistry, OneRegistryListsEveryOperationsProtocols) {
  std::set<std::string_view> names;
  for (const Protocol* protocol : protocol_registry())
    EXPECT_TRUE(names.insert(protocol->name).second) << protocol->name;
  std::size_t listed = 0;
  for (const ProtoOp op : {ProtoOp::TagSend, ProtoOp::Alltoall}) {
    auto at = protocol_registry().begin();
    for (const Protocol* protocol : protocols_for(op)) {
      EXPECT_EQ(protocol->op, op) << protocol->name;
      EXPECT_EQ(protocol_named(protocol->name, op), protocol);
      const auto found = std::find(at, protocol_registry().end(), protocol);
      EXPECT_NE(found, protocol_registry().end()) << protocol->name << " out of registry order";
      at = found;
      ++listed;
    }
  }
  EXPECT_EQ(listed, protocol_registry().size());
  ASSERT_EQ(protocols_for(ProtoOp::Alltoall).size(), 2u);
  EXPECT_EQ(protocols_for(ProtoOp::Alltoall)[0]->flavour, AlltoallFlavour::Proxy);
  EXPECT_EQ(protocols_for(ProtoOp::Alltoall)[1]->flavour, AlltoallFlavour::Direct);
  EXPECT_EQ(protocol_named("coll/alltoall/direct", ProtoOp::TagSend), nullptr);
  EXPECT_EQ(protocol_named("rndv/get", ProtoOp::Alltoall), nullptr);
  EXPECT_FALSE(protocol_name_known("coll/alltoall")) << "a curve of a point-to-point workload";
}

TEST(ProtocolRegistry, LaneSelectionResolvesEveryDeclaredRequirementOnce) {
  const std::span<const LaneRequirement> requirements = lane_requirements();
  for (const Protocol* protocol : protocols_for(ProtoOp::TagSend)) {
    if (protocol->bw_lanes) {
      EXPECT_EQ(std::count(requirements.begin(), requirements.end(), *protocol->bw_lanes), 1) << protocol->name;
    }
  }
  EXPECT_EQ(requirements.size(), 5u);  // multi-eager bcopy and zcopy, rndv/am, rndv/get, rndv/pipe
}

}  // namespace
}  // namespace xover
