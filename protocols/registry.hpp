// The one list of protocols, in order, and the one list of collective
// protocols. The order breaks ties in selection and nothing else: the wire
// names a protocol by its own wire id, not by its place here.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "protocols/coll/alltoall.hpp"
#include "protocols/proto.hpp"

namespace xover {

/// Every protocol, in registry order.
std::span<const Protocol* const> protocol_registry();

/// Every collective protocol, in registry order.
std::span<const CollProtocol* const> coll_registry();

/// The collective protocol called `name`, or null.
const CollProtocol* coll_protocol(std::string_view name);

/// The active messages the protocols receive (their Protocol::messages),
/// each kind once, in registry order: the handlers a Worker installs.
std::span<const AmKind> am_kinds();

/// The protocol called `name`, or null.
const Protocol* protocol_named(std::string_view name);

/// The bandwidth-lane requirements of the protocols, each once, in registry
/// order: what lane selection resolves for every endpoint.
std::span<const LaneRequirement> lane_requirements();

/// The protocol whose wire id is `id` (as an RTS carries it), or null.
const Protocol* protocol_by_wire_id(std::uint64_t id);

/// True when `name` names a protocol or is a prefix of some ("eager/multi").
bool protocol_name_known(std::string_view name);

/// True when some protocol serves buffers of memory type `mem` (Protocol::mem_types).
bool protocols_serve(MemType mem);

/// True when `protocol` is `pattern` or lies under it ("eager/multi/bcopy"
/// under "eager/multi"; not "eager/mul").
bool protocol_matches(const Protocol& protocol, std::string_view pattern);

}  // namespace xover
