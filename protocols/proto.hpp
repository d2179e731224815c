// A protocol is one value: a hierarchical name, what it does, the operation
// it serves (a tagged send, or an alltoall), the family whose limits apply
// to it, a probe, its stages and the active messages they receive. The
// probe is a pure function of the lanes and the configuration: it says
// whether the protocol can run and, if so, its cost over one or more size
// ranges and the lanes it uses. Selection (protocols/select/) never names a
// protocol; protocols never see each other.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "protocols/lanes/lane_select.hpp"
#include "protocols/perf/perf_factors.hpp"
#include "protocols/select/select_config.hpp"

namespace xover {

/// Which user limits apply to a protocol.
enum class ProtoFamily {
  Eager,       ///< one message, no handshake: eager_limit
  MultiEager,  ///< eager fragments, no handshake: multi_eager_limit
  Rndv,        ///< handshake first: rndv_thresh and rndv_perf_diff
};

/// The kind of memory the user's buffer lives in (UCX's memory types):
/// each has a thresholds table of its own, of the protocols that serve it.
enum class MemType : std::uint8_t { Host, Cuda };

/// "host", "cuda": as --mem spells them.
constexpr std::string_view mem_type_name(MemType mem) {
  return mem == MemType::Cuda ? "cuda" : "host";
}
/// The memory type spelled `name`, or none.
constexpr std::optional<MemType> mem_type_named(std::string_view name) {
  for (MemType mem : {MemType::Host, MemType::Cuda})
    if (mem_type_name(mem) == name)
      return mem;
  return std::nullopt;
}

/// A set of memory types, one bit each.
using MemTypes = std::uint8_t;
constexpr MemTypes mem_bit(MemType mem) {
  return static_cast<MemTypes>(1U << static_cast<unsigned>(mem));
}

/// The cost of a protocol on sizes [from, to].
struct PerfRange {
  Bytes from = 0;
  Bytes to = kSizeMax;
  PerfFactors factors;
};

/// What a probe offers: its cost ranges and the lanes it moves bytes on.
struct ProtoCandidate {
  std::vector<PerfRange> ranges;
  std::vector<LaneShare> lanes;
};

/// Everything a probe may read.
/// A probe runs once for each range of sizes over which no figure of the path
/// changes step (Path::breakpoints()); selection keeps the candidate's
/// ranges inside that range.
struct ProbeContext {
  /// Resolved at the range's sizes (Path::at): the figures of an operation
  /// as large as the message. An operation of another size takes its own,
  /// `path.at(size)`: a control message's are at 0, a fragment's at its size.
  const Path& path;
  const EndpointLanes& lanes;  ///< the AM lane carries the protocol's messages or its control
  /// The probed protocol's bandwidth lanes: its Protocol::bw_lanes resolved;
  /// empty when it declares none or no lane meets it.
  const std::vector<LaneShare>& bw_lanes;
  const SelectConfig& config;
  MemType mem = MemType::Host;
};

class Worker;
struct Request;
struct AmMessage;

/// A protocol's number on the wire: the RTS names the protocol whose
/// receive stages run by it.
using ProtoWireId = std::uint8_t;

/// An active message's number on the wire, one per kind of message. Like a
/// protocol's wire id it is never renumbered, and a retired one is not
/// given again; the ids are pinned in tests/protocols/protocol_registry_test.cpp.
using AmId = std::uint8_t;

/// One kind of active message a protocol's receiving stages take: its id,
/// its name and its handler (the receiving stage it runs).
struct AmKind {
  AmId id;
  std::string_view name;  ///< "rts": the pinned table's name for it
  void (*handle)(Worker& worker, const AmMessage& msg);
};

/// The operation a protocol carries out: each operation selects among its
/// own protocols.
enum class ProtoOp : std::uint8_t {
  TagSend,   ///< a tagged message to one peer: the point-to-point protocols (eager/, rndv/, mtype/)
  Alltoall,  ///< every PE's n bytes to every other PE (coll/)
};

/// How the PEs of an alltoall protocol post their puts (coll/alltoall.hpp).
enum class AlltoallFlavour {
  Proxy,   ///< a CPU proxy serves a command ring (IBRC)
  Direct,  ///< device threads post work requests themselves (IBGDA)
};

/// The fields after `op` up to `messages` are a TagSend protocol's, and
/// `flavour` an Alltoall protocol's: an alltoall's cost and stages are the
/// flavour's (coll/alltoall.hpp, coll/alltoall_pe.hpp).
struct Protocol {
  std::string_view name;         ///< "rndv/get": used in logs, overrides, tables and tests
  std::string_view description;  ///< one line for proto-info
  ProtoOp op = ProtoOp::TagSend;
  /// Unique and never renumbered, so that the registry's order (which breaks
  /// ties) is free to change without changing the wire format; the ids are
  /// pinned in tests/protocols/protocol_registry_test.cpp. A retired protocol's id is
  /// not given to another.
  ProtoWireId wire_id = 0;
  ProtoFamily family = ProtoFamily::Eager;
  /// The bandwidth lanes it moves bytes on, if any beside the AM lane;
  /// resolved once per endpoint by select_lanes (lanes/lane_select.hpp).
  std::optional<LaneRequirement> bw_lanes = std::nullopt;
  std::optional<ProtoCandidate> (*probe)(const ProbeContext& ctx) = nullptr;
  /// The first stage, at the sender: starts sending `req`, whose lanes,
  /// sequence number and buffer are set. Later stages run from active-message
  /// handlers and completions; a protocol with more than one stage at an end
  /// names them in an enum of its own and keeps the current one in the
  /// request (Request::stage).
  void (*send)(Worker& worker, Request& req) = nullptr;
  /// Rendezvous only: the first receive stage, once a receive has matched
  /// the RTS (`req` carries the sender's request id and addresses).
  void (*recv_start)(Worker& worker, Request& req) = nullptr;
  /// The memory types its stages move bytes from and to (mem_bit()s); the
  /// thresholds table of any other type leaves it out: the host protocols
  /// read and write buffers with the CPU or the NIC, the memory-type ones
  /// (protocols/mtype/) stage or map device buffers.
  MemTypes mem_types = mem_bit(MemType::Host);
  /// The active messages its stages receive. A kind several protocols
  /// receive (the eager message, the RTS) is listed by each, with the same
  /// id, name and handler; the Worker installs each kind once.
  std::span<const AmKind> messages = {};
  /// Alltoall only: the flavour its PEs run.
  AlltoallFlavour flavour = AlltoallFlavour::Proxy;
};

}  // namespace xover
