// The one list of protocols, in order: the point-to-point ones and the
// collectives, each serving one operation (Protocol::op). The order breaks
// ties in selection and nothing else: the wire names a protocol by its own
// wire id, not by its place here.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "protocols/proto.hpp"

namespace xover {

/// Every protocol, in registry order.
std::span<const Protocol* const> protocol_registry();

/// The protocols of operation `op`, in registry order: those its selection
/// chooses among (an envelope's indices are positions in this list).
std::span<const Protocol* const> protocols_for(ProtoOp op);

/// The active messages the protocols receive (their Protocol::messages),
/// each kind once, in registry order: the handlers a Worker installs.
std::span<const AmKind> am_kinds();

/// The protocol called `name`, or null.
const Protocol* protocol_named(std::string_view name);

/// The protocol of operation `op` called `name`, or null.
const Protocol* protocol_named(std::string_view name, ProtoOp op);

/// The bandwidth-lane requirements of the TagSend protocols, each once, in
/// registry order: what lane selection resolves for every endpoint.
std::span<const LaneRequirement> lane_requirements();

/// The TagSend protocol whose wire id is `id` (as an RTS carries it), or null.
const Protocol* protocol_by_wire_id(std::uint64_t id);

/// True when `name` names a TagSend protocol or is a prefix of some ("eager/multi").
bool protocol_name_known(std::string_view name);

/// True when some TagSend protocol serves buffers of memory type `mem` (Protocol::mem_types).
bool protocols_serve(MemType mem);

/// True when `protocol` is `pattern` or lies under it ("eager/multi/bcopy"
/// under "eager/multi"; not "eager/mul").
bool protocol_matches(const Protocol& protocol, std::string_view pattern);

}  // namespace xover
