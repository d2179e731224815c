// A lane: one way to move bytes from a local resource to a remote one (a
// rail, a NIC pair, a socket), described by LogGP parameters, size limits
// and capabilities. Lanes are plain values: the simulator reads them from a
// SimGrid platform, the hardware backends measure or know them.
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string_view>
#include <string>
#include <vector>

#include "protocols/lanes/size_steps.hpp"
#include "protocols/units.hpp"

namespace xover {

/// What a lane can do, after UCT's interface capability flags.
enum class LaneCap : std::uint32_t {
  AmShort = 1U << 0,         ///< active message with the payload inline
  AmBcopy = 1U << 1,         ///< active message copied into a bounce buffer
  AmZcopy = 1U << 2,         ///< active message sent from a registered buffer
  PutZcopy = 1U << 3,        ///< RDMA write
  GetZcopy = 1U << 4,        ///< RDMA read
  Atomics = 1U << 5,         ///< remote atomics
  ConnectToIface = 1U << 6,  ///< can connect from a published address alone
};

/// A set of LaneCap values.
class LaneCaps {
 public:
  constexpr LaneCaps() = default;
  constexpr LaneCaps(std::initializer_list<LaneCap> caps) {
    for (LaneCap cap : caps)
      bits_ |= static_cast<std::uint32_t>(cap);
  }
  static constexpr LaneCaps all() {
    return {LaneCap::AmShort,  LaneCap::AmBcopy, LaneCap::AmZcopy,       LaneCap::PutZcopy,
            LaneCap::GetZcopy, LaneCap::Atomics, LaneCap::ConnectToIface};
  }
  constexpr bool has(LaneCap cap) const { return (bits_ & static_cast<std::uint32_t>(cap)) != 0; }
  constexpr bool has_any(LaneCaps caps) const { return (bits_ & caps.bits_) != 0; }
  constexpr void add(LaneCap cap) { bits_ |= static_cast<std::uint32_t>(cap); }
  constexpr bool operator==(const LaneCaps&) const = default;

  /// Comma-separated names as in a platform file: "am_short,am_bcopy,get_zcopy".
  std::string to_string() const;
  /// Parses the same form; an unknown name throws std::invalid_argument.
  static LaneCaps parse(std::string_view text);

 private:
  std::uint32_t bits_ = 0;
};

/// The attributes of one lane between two nodes. Defaults are the values a
/// platform property takes when it is absent (platforms/README.md lists them).
struct LaneAttrs {
  std::string name;                 ///< rail name, used in tables and logs ("r0")
  Seconds latency = 0;              ///< L: wire latency of one message
  BytesPerSecond bandwidth = 0;     ///< 1/G: bytes per second of one flow
  Seconds o_send = 0.2e-6;          ///< o_s: CPU time to post one message
  /// The part of o_s the sender's CPU still spends after the message has
  /// left (on a loopback socket the send call carries the message through
  /// the receiver's stack before it returns): the sender is busy o_s in
  /// all, but the message is injected after o_s − o_send_after. A plain
  /// figure, not by size: at an operation whose o_s is smaller, the whole
  /// o_s comes after the message leaves (sent_after()).
  Seconds o_send_after = 0;
  Seconds o_recv = 0.2e-6;          ///< o_r: CPU time to take one message in
  Seconds gap = 0;                  ///< g: least time between two injections on the NIC
  Seconds reg_cost = 0;             ///< registration cost of one buffer (fixed part)
  SecondsPerByte reg_growth = 0;    ///< registration cost per byte
  Bytes max_short = 128;            ///< largest inline active message, header included
  Bytes max_bcopy = 8192;           ///< largest copied active message, header included
  Bytes max_zcopy = Bytes{1} << 30; ///< largest zero-copy operation
  Bytes seg_size = 8192;            ///< receive segment: the largest active message that lands
  LaneCaps caps = LaneCaps::all();
  /// Whether an active message in AmMode::Bcopy costs the sender a copy
  /// into a buffer of the transport (n/M_s of its CPU): shared memory copies
  /// into the ring cell, verbs into a registered bounce buffer; TCP writes
  /// the user's bytes straight into the socket, the kernel's copy being in
  /// the stream's per-byte cost (1/G), and makes none. A cost figure, not a
  /// LaneCap: it changes what a bcopy costs, not whether a lane can do one.
  bool bcopy_copies = true;
  /// Whether the initiator's CPU moves an operation's bytes itself, so that
  /// it overlaps none of them with its next operation (platform property
  /// `xover:cpu_moves`): a TCP send copies the message into the socket
  /// before it returns, busy (h + n)/B more after the message leaves; a
  /// cross-memory get (process_vm_readv) is the initiator's own copy, busy
  /// until the data is in (2L + h/B + n/B from the request's leaving, at
  /// least o_send_after). A stream on such a lane is paced by o_s + (h +
  /// n)/B, not by max(o_s, g, (h + n)/B); one message's sum is unchanged
  /// but for a control message its receiver sends before the receive
  /// completes (rndv/get's ACK: 8/B more, cost::post_cpu).
  /// Puts are as on any lane.
  bool cpu_moves = false;
  /// The sender's CPU time per payload byte of an active message, on top of
  /// o_s and spent after the message has left (platform property
  /// `xover:o_send_per_byte`): a TCP send() copies the payload into the
  /// socket, segment by segment, while the first segments already cross.
  /// The sender is busy o_s + n·m_s, the message leaves after o_s −
  /// o_send_after as before: one message's sum is unchanged, a stream is
  /// paced by o_s + n·m_s. A copy, so scaled as the memcpy bandwidths are:
  /// by the path's message factor, not the lane's own (Path::for_message).
  SecondsPerByte o_send_per_byte = 0;
  /// The receiver's CPU time per payload byte of taking an active message
  /// in, on top of o_r (platform property `xover:o_recv_per_byte`): a TCP
  /// recv() copies the bytes out of the socket. The receiver is busy o_r +
  /// n·m_r once the message has landed. Scaled as o_send_per_byte is.
  SecondsPerByte o_recv_per_byte = 0;
  /// Whether a get's target serves it with its CPU (platform property
  /// `xover:get_served`), as TCP does: the read request is a message the
  /// target takes in (o_r at 0) and answers with a send of the bytes from
  /// its buffer (o_s at n, the reply leaving o_send_after before its end,
  /// then n·m_s, o_send_per_byte); the initiator takes the reply in with o_r
  /// and n·m_r (o_recv_per_byte). One get costs (o_s − a) + L + 16/B +
  /// o_r(0) + (o_s − a) + L + n/B + o_r + n·m_r; the target's CPU is busy
  /// o_r(0) + o_s + n·m_s a get, which a window of gets does not overlap.
  /// Otherwise a NIC serves it: 2L + 16/B + n/B after the post, no CPU of
  /// the target's. Ignored where the initiator's CPU moves the bytes
  /// (cpu_moves).
  bool get_served = false;
  /// The protocol core's own time per message inside o_s and inside o_r
  /// (platform properties `xover:o_core_send`, `xover:o_core_recv`): a
  /// Worker's request, matching and progress, which calibrate folds into
  /// the lane's overheads and times apart over a transport whose sends cost
  /// nothing (tools/calib/core_probe.hpp). Every operation of the core pays
  /// the whole o_s and o_r; a served get's target (get_served), whose
  /// transport answers the request without the core, pays them less these
  /// (serving_o_send_at, serving_o_recv_at). 0: no part known.
  Seconds o_core_send = 0;
  Seconds o_core_recv = 0;
  /// o_s, o_r and 1/G by the size of the operation (an active message's
  /// payload, a get's or put's bytes), where they change with it; empty when
  /// the plain field holds at every size. With steps, o_send, o_recv and
  /// bandwidth hold the figures of the operation size the lane was resolved
  /// at (at()): the first step's as loaded. A simulated lane with bandwidth
  /// steps moves each operation's bytes at its step's rate, at most the
  /// links' bandwidth.
  SizeSteps o_send_steps = {};
  SizeSteps o_recv_steps = {};
  SizeSteps bandwidth_steps = {};
  /// The lane's own message factor (link property `xover:bw_factor`): the
  /// pace of this lane's transfers of a message of n bytes, in (0, 1], in
  /// place of the path's (Path::message_factor); the copies at both ends
  /// keep the path's. Empty: the lane's transfers take the path's factor.
  SizeSteps message_factor = {};

  /// o_s for an operation of n bytes.
  Seconds o_send_at(Bytes n) const { return o_send_steps.at(n, o_send); }
  /// The part of o_s spent after the message has left, for an operation of
  /// n bytes: o_send_after, at most o_s at n. The message leaves after
  /// o_send_at(n) − o_send_after_at(n) = max(0, o_s(n) − o_send_after).
  Seconds o_send_after_at(Bytes n) const { return std::min(o_send_after, o_send_at(n)); }
  /// The same on a lane resolved at its operation's size (at()).
  Seconds sent_after() const { return std::min(o_send_after, o_send); }
  /// o_r for an operation of n bytes.
  Seconds o_recv_at(Bytes n) const { return o_recv_steps.at(n, o_recv); }
  /// What a transport spends without the protocol core, for an operation of
  /// n bytes: o_s and o_r less the core's part, at least 0, and the part of
  /// that o_s spent after the message has left (at most all of it).
  Seconds serving_o_send_at(Bytes n) const { return std::max(0.0, o_send_at(n) - o_core_send); }
  Seconds serving_o_recv_at(Bytes n) const { return std::max(0.0, o_recv_at(n) - o_core_recv); }
  Seconds serving_sent_after_at(Bytes n) const { return std::min(o_send_after, serving_o_send_at(n)); }
  /// The same three on a lane resolved at its operation's size (at()).
  Seconds serving_o_send() const { return std::max(0.0, o_send - o_core_send); }
  Seconds serving_o_recv() const { return std::max(0.0, o_recv - o_core_recv); }
  Seconds serving_sent_after() const { return std::min(o_send_after, serving_o_send()); }
  /// 1/G for an operation of n bytes.
  BytesPerSecond bandwidth_at(Bytes n) const { return bandwidth_steps.at(n, bandwidth); }
  /// The lane as an operation of n bytes sees it: o_send, o_recv and bandwidth at n,
  /// the steps kept.
  LaneAttrs at(Bytes n) const;

  bool operator==(const LaneAttrs&) const = default;
};

/// One end's device memory, as the protocols for device buffers price it
/// (protocols/mtype/; host properties `xover:stage_o`, `xover:stage_bw`,
/// `xover:ipc_bw`): a copy of n bytes between device and host memory costs
/// stage_o + n/stage_bw of that end's time, and a copy out of a peer's
/// buffer mapped through IPC stage_o + n/ipc_bw. Zeros: no device memory
/// (no staging protocol is offered), no IPC toward the other end. The
/// stage figures are a copy's through pinned host memory; a copy from
/// pageable host memory into the device (a transport's receive segment)
/// costs pageable_o + n/pageable_bw, where they are given (pageable_bw 0:
/// as the pinned one; the simulator's platforms give none).
struct DeviceCopy {
  Seconds stage_o = 0;          ///< fixed part of one copy: the call, the DMA start, the wait
  BytesPerSecond stage_bw = 0;  ///< device↔host copy bandwidth (PCIe, or the C2C link), pinned host memory
  BytesPerSecond ipc_bw = 0;    ///< device-to-device copy from a peer's mapped buffer
  Seconds pageable_o = 0;          ///< fixed part of one copy from pageable host memory to the device
  BytesPerSecond pageable_bw = 0;  ///< its bandwidth; 0: as stage_bw (and pageable_o as stage_o)

  bool operator==(const DeviceCopy&) const = default;
};

/// Everything the protocol core knows about one direction between two nodes:
/// the lanes, in the platform's order, and each end's copy bandwidth and
/// device memory.
struct Path {
  std::string from;                          ///< sending node
  std::string to;                            ///< receiving node
  std::vector<LaneAttrs> lanes;
  BytesPerSecond memcpy_bw_local = 10e9;     ///< sender's memcpy bandwidth
  BytesPerSecond memcpy_bw_remote = 10e9;    ///< receiver's memcpy bandwidth
  /// Each end's memcpy bandwidth by the size of the copy, where it changes
  /// with it (in cache, past the last level); empty when the figure above
  /// holds at every size. With steps, the figures above are the ones at the
  /// size the path was resolved at (at()): the first step's as loaded.
  SizeSteps memcpy_local_steps = {};
  SizeSteps memcpy_remote_steps = {};
  DeviceCopy device_local = {};              ///< sender's device memory
  DeviceCopy device_remote = {};             ///< receiver's device memory
  /// The pace of a message's bytes by the message's size (SMPI's
  /// bw-factor): every per-byte figure above — each lane's bandwidth, each
  /// end's memcpy bandwidth, at every size step, each lane's CPU time per
  /// payload byte (LaneAttrs::o_send_per_byte, o_recv_per_byte) — runs at this fraction of
  /// itself for a message of n bytes, the operations it is cut into
  /// included; device copies keep theirs, and a lane with its own factor
  /// (LaneAttrs::message_factor) takes that one for its bandwidth instead.
  /// The smaller of the two ends' factors at each size; empty when it is 1
  /// at every size.
  SizeSteps message_factor = {};

  /// The sender's memcpy bandwidth for a copy of n bytes.
  BytesPerSecond memcpy_local_at(Bytes n) const { return memcpy_local_steps.at(n, memcpy_bw_local); }
  /// The receiver's memcpy bandwidth for a copy of n bytes.
  BytesPerSecond memcpy_remote_at(Bytes n) const { return memcpy_remote_steps.at(n, memcpy_bw_remote); }
  /// The factor of a message of n bytes' per-byte figures, in (0, 1].
  double message_factor_at(Bytes n) const { return message_factor.at(n, 1); }
  /// The factor of a message of n bytes' transfers on `lane`: the lane's
  /// own where it has one, else message_factor_at(n).
  double lane_factor_at(const LaneAttrs& lane, Bytes n) const {
    return lane.message_factor.empty() ? message_factor_at(n) : lane.message_factor.at(n, 1);
  }
  /// Whether any message factor, the path's or a lane's, is set.
  bool has_message_factor() const;
  /// The path as operations of n bytes see it: every lane and copy figure
  /// at n, the steps kept.
  Path at(Bytes n) const;
  /// The path as the operations of one message of n bytes see it: at(n),
  /// with every memcpy bandwidth times message_factor_at(n) and every CPU
  /// time per payload byte divided by it, every lane
  /// bandwidth times lane_factor_at(lane, n), each with its size steps, and
  /// every message factor cleared, so that the protocols' at(fragment)
  /// keeps the message's pace.
  Path for_message(Bytes n) const;
  /// The sizes where any figure of the path changes step, ascending, each once.
  std::vector<Bytes> breakpoints() const;
  /// What the path costs: the path with its nodes' and lanes' names
  /// cleared, which no cost reads. Two paths alike but for their names have
  /// equal costs (a thresholds table is shared by them, TableStore).
  Path costs() const;

  bool operator==(const Path&) const = default;
};

/// What a node's device and its proxy thread do per alltoall step
/// (protocols/coll/alltoall.hpp; host properties `xover:device_o`,
/// `xover:threads`, `xover:proxy_o`, `xover:proxy_wake`, and the GPU lane's
/// `xover:launch`, `xover:post_slope`, `xover:doorbell_batch`,
/// `xover:engine_gap`, `xover:engine_bw`, `xover:proxy_threads`,
/// `xover:ring_capacity`, platforms/README.md). The GPU lane's defaults
/// change nothing: no launch, no contention, a doorbell per request, no
/// engine slower than the lane, one proxy thread, a ring the exchange never
/// fills.
struct DeviceAttrs {
  Seconds device_o = 0.1e-6;   ///< o_d: a device thread builds and posts one command or work request
  std::uint32_t threads = 32;  ///< T, the posting width: device threads posting at once (32, a warp; 1024, a block)
  Seconds proxy_o = 1e-6;      ///< o_p: the proxy's serial work per command: parse, fence, post, poll
  Seconds proxy_wake = 2e-6;   ///< W: from a command written to the proxy seeing it (fence, PCIe, wake-up)
  Seconds launch = 0;          ///< the kernel's launch, paid once before the first post
  Seconds post_slope = 0;      ///< s: a post costs o_d + s·(k − 1) with k threads posting at once
  std::uint32_t doorbell_batch = 1;  ///< D: work requests per doorbell; the engine sees a request when its doorbell rings
  Seconds engine_gap = 0;      ///< the engine's least time per work request (the lane's gap, if larger, holds)
  BytesPerSecond engine_bw = std::numeric_limits<double>::infinity();  ///< the engine's copy bandwidth
  std::uint32_t proxy_threads = 1;    ///< R: proxy threads per PE; command i is thread i mod R's
  std::uint32_t ring_capacity = 65536;  ///< C: commands the ring holds (NVSHMEM's 4 MiB of 64-byte commands)

  bool operator==(const DeviceAttrs&) const = default;
};

}  // namespace xover
