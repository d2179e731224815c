#include "protocols/registry.hpp"

#include <algorithm>
#include <array>
#include <vector>

#include "protocols/coll/alltoall.hpp"
#include "protocols/eager/eager.hpp"
#include "protocols/mtype/mtype.hpp"
#include "protocols/rndv/rndv.hpp"

namespace xover {
namespace {

const std::array kRegistry{
    &eager_short_proto,       &eager_bcopy_proto, &eager_zcopy_proto, &eager_multi_bcopy_proto,
    &eager_multi_zcopy_proto, &rndv_am_proto,     &rndv_get_proto,    &eager_staged_proto,
    &rndv_pipe_proto,         &rndv_ipc_proto,    &coll_alltoall_proxy_proto, &coll_alltoall_direct_proto,
};

/// The registry's protocols of `op`, in order.
std::vector<const Protocol*> of_op(ProtoOp op) {
  std::vector<const Protocol*> out;
  for (const Protocol* protocol : kRegistry)
    if (protocol->op == op)
      out.push_back(protocol);
  return out;
}

}  // namespace

std::span<const Protocol* const> protocol_registry() {
  return kRegistry;
}

std::span<const Protocol* const> protocols_for(ProtoOp op) {
  static const std::vector<const Protocol*> tag_send = of_op(ProtoOp::TagSend);
  static const std::vector<const Protocol*> alltoall = of_op(ProtoOp::Alltoall);
  return op == ProtoOp::Alltoall ? alltoall : tag_send;
}

std::span<const AmKind> am_kinds() {
  static const std::vector<AmKind> kinds = [] {
    std::vector<AmKind> out;
    for (const Protocol* protocol : kRegistry)
      for (const AmKind& kind : protocol->messages)
        if (std::none_of(out.begin(), out.end(), [&](const AmKind& k) { return k.id == kind.id; }))
          out.push_back(kind);
    return out;
  }();
  return kinds;
}

const Protocol* protocol_named(std::string_view name) {
  for (const Protocol* protocol : kRegistry)
    if (protocol->name == name)
      return protocol;
  return nullptr;
}

const Protocol* protocol_named(std::string_view name, ProtoOp op) {
  const Protocol* protocol = protocol_named(name);
  return protocol && protocol->op == op ? protocol : nullptr;
}

std::span<const LaneRequirement> lane_requirements() {
  static const std::vector<LaneRequirement> requirements = [] {
    std::vector<LaneRequirement> out;
    for (const Protocol* protocol : protocols_for(ProtoOp::TagSend))
      if (protocol->bw_lanes && std::find(out.begin(), out.end(), *protocol->bw_lanes) == out.end())
        out.push_back(*protocol->bw_lanes);
    return out;
  }();
  return requirements;
}

const Protocol* protocol_by_wire_id(std::uint64_t id) {
  for (const Protocol* protocol : protocols_for(ProtoOp::TagSend))
    if (protocol->wire_id == id)
      return protocol;
  return nullptr;
}

bool protocol_matches(const Protocol& protocol, std::string_view pattern) {
  return protocol.name == pattern ||
         (protocol.name.size() > pattern.size() && protocol.name.starts_with(pattern) &&
          protocol.name[pattern.size()] == '/');
}

bool protocol_name_known(std::string_view name) {
  for (const Protocol* protocol : protocols_for(ProtoOp::TagSend))
    if (protocol_matches(*protocol, name))
      return true;
  return false;
}

bool protocols_serve(MemType mem) {
  for (const Protocol* protocol : protocols_for(ProtoOp::TagSend))
    if ((protocol->mem_types & mem_bit(mem)) != 0)
      return true;
  return false;
}

}  // namespace xover
