// A send or receive request, as UCP's: created by Worker::tag_send or
// tag_recv, moved through its protocol's stages by progress(), complete when
// `done`. Requests live in the worker's pool until released.
#pragma once

#include <concepts>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "protocols/core/arrived.hpp"
#include "protocols/core/transport.hpp"
#include "protocols/lanes/lane_select.hpp"
#include "protocols/proto.hpp"

namespace xover {

struct Protocol;

using Tag = std::uint64_t;
inline constexpr Tag kTagMaskAll = ~Tag{0};

enum class RequestKind { Send, Recv };

/// The stages of one protocol: an `enum class XStage : std::uint8_t` in the
/// protocol's own file, its first stage numbered 0.
template <typename S>
concept ProtoStage = std::is_enum_v<S> && std::same_as<std::underlying_type_t<S>, std::uint8_t>;

struct Request {
  using Id = std::uint32_t;

  Id id = 0;  ///< index in the worker's pool; carried in rendezvous headers
  bool live = false;  ///< allocated and not yet released
  /// Set by whoever writes a field past `lanes` (Worker::reg, next_lane and
  /// bind, stages::take_fragment, rndv/pipe's fill_pipeline), so that
  /// reuse() resets those only then: an eager request never touches them,
  /// and a pooled request's last cache lines stay out of its next eager
  /// message's way (at P = 1024 in the simulator every rank's request is
  /// cold again by its next step).
  bool tail_used = false;
  RequestKind kind = RequestKind::Send;
  bool done = false;

 private:
  std::uint8_t stage_ = 0;  ///< stage(): the protocol's own enum as a number; here, in the first cache line

 public:
  Status status = Status::Ok;  ///< Error when truncated or failed
  Rank peer = 0;               ///< send: destination; receive: the matched source
  Tag tag = 0;                 ///< send: the tag; receive: the matched sender's tag
  Tag tag_mask = kTagMaskAll;  ///< receive: bits of `tag` that must match
  Tag want = 0;                ///< receive: the posted tag
  ConstBuffer send_buf;
  MutableBuffer recv_buf;
  Bytes length = 0;            ///< the message's size
  MemType mem = MemType::Host; ///< where the user's buffer lives (Worker asks the transport's DeviceMemory)
  const Protocol* protocol = nullptr;  ///< the protocol that carries it
  std::uint64_t seq = 0;       ///< per-pair sequence number: the matching order

  // Protocol state: offsets, counters, lanes and keys of the current stage.
  Bytes offset = 0;            ///< send: next byte to hand to the transport
  Bytes received = 0;          ///< receive: bytes in the user buffer
  std::size_t outstanding = 0; ///< completions still awaited
  std::vector<LaneShare> lanes;

  // Only rendezvous, registration and striping use these (see tail_used).
  std::vector<double> lane_credit;      ///< smooth weighted round-robin over `lanes` (Worker::next_lane)
  std::vector<MemoryRegion> regions;    ///< registrations to release at the end
  bool regions_cached = false;          ///< `regions` are the Worker's cache's (released to it, not deregistered)
  std::vector<RemoteAddr> remote;       ///< rndv/get: the sender's buffer, per lane
  Request::Id remote_id = 0;            ///< rendezvous: the peer's request
  Arrived arrived;                      ///< rndv/am receive: the data fragments' bytes in, each once
  bool pumping = false;                 ///< rndv/pipe: its pipeline is being filled (no re-entry)
  /// rndv/pipe receive: a fragment that landed while the pipeline's depth of
  /// copies into the device buffer was in flight, waiting for a staging slot.
  struct HeldFragment {
    Bytes offset = 0;
    std::vector<std::byte> bytes;
  };
  std::vector<HeldFragment> held;
  /// Device copies started for it and not yet complete (Worker::copy_started,
  /// copy_done): while any is, a released request stays out of the pool,
  /// so that no copy's completion finds it reused. 0 whenever it is reused.
  std::uint32_t copies = 0;

  /// Makes a pooled request new again, as `id` of `kind`: every field as a
  /// fresh Request has it, the vectors emptied but keeping their capacity,
  /// so that reuse allocates nothing; the rendezvous fields only where
  /// `tail_used` says they were written. A field added above is reset here.
  void reuse(Id new_id, RequestKind new_kind) {
    id = new_id;
    live = true;
    kind = new_kind;
    done = false;
    status = Status::Ok;
    peer = 0;
    tag = 0;
    tag_mask = kTagMaskAll;
    want = 0;
    send_buf = {};
    recv_buf = {};
    length = 0;
    mem = MemType::Host;
    protocol = nullptr;
    seq = 0;
    offset = 0;
    received = 0;
    outstanding = 0;
    lanes.clear();
    stage_ = 0;
    if (tail_used) {
      lane_credit.clear();
      regions.clear();
      regions_cached = false;
      remote.clear();
      remote_id = 0;
      arrived.clear();
      pumping = false;
      held.clear();
      tail_used = false;
    }
  }

  /// The stage of its protocol the request is in, read as that protocol's
  /// own enum; a new request is in the stage numbered 0.
  template <ProtoStage S>
  S stage() const {
    return static_cast<S>(stage_);
  }
  template <ProtoStage S>
  void set_stage(S stage) {
    stage_ = static_cast<std::uint8_t>(stage);
  }
};

}  // namespace xover
