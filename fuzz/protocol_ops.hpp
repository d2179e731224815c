// The input of the protocol harness (protocol_fuzz.cpp), shared with the
// seed generator (protocol_seeds.cpp) that records real exchanges in it.
//
//   [setup: 2 bytes][decisions: 16 bytes][op]...
//
// setup: byte 0 picks the forced protocol (kForced), byte 1 bit 0 turns the
// registration cache off and bit 1 limits rendezvous to one lane.
// decisions: 2 bits per transport call (am_send, get, put), used in turn
// and again from the first: 0 Ok, 1 InProgress (completed Ok by a later
// progress), 2 NoResource, 3 Error. All zero: every call succeeds at once.
// An op is one byte, kind % kOps, then its fields, little-endian:
//
//   PostRecv  u32 size, u8 tag, u8 mask (0: all bits, else none)
//   Send      u8 peer (1 + p % 2), u32 size, u8 tag
//   Deliver   u8 source (1 + s % 2), u8 lane (% 2), u8 AM id, u16 header
//             length, header, u32 payload length, payload, u8 flags
//             (bit 0: a phantom payload, its length without bytes)
//   Progress  -
//   Release   u8 index into the requests still held (modulo their count)
//   Fail      - (the transport fails, as on a lost peer)
//
// A size field v gives (v >> 5) % (2^e + 1) bytes with e = min(v & 31,
// 18): sizes spread over every order of magnitude up to 256 KiB. Other
// lengths are taken modulo the harness's limits (kMax*), and a field cut
// short by the end of the input reads as zeros.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "protocols/lanes/lane.hpp"

namespace xover::fuzz::protocol {

inline constexpr std::size_t kSetup = 2;
inline constexpr std::size_t kDecisionBytes = 16;

enum class Op : std::uint8_t { PostRecv, Send, Deliver, Progress, Release, Fail };
inline constexpr std::uint8_t kOps = 6;

/// Byte 0 of the setup, modulo the size: the protocol every send is forced
/// to ("" leaves the choice to the table).
inline constexpr std::array<std::string_view, 8> kForced{
    "", "eager/short", "eager/bcopy", "eager/zcopy", "eager/multi/bcopy", "eager/multi/zcopy", "rndv/am", "rndv/get"};

inline constexpr unsigned kMaxSizeLog = 18;
inline constexpr std::uint32_t kMaxMessage = 1U << kMaxSizeLog;  ///< a send or receive buffer

/// The bytes a size field gives.
inline std::uint32_t size_of(std::uint32_t v) {
  const unsigned e = std::min(v & 31U, kMaxSizeLog);
  return (v >> 5) % ((1U << e) + 1);
}
/// The size field that gives `size` (at most kMaxMessage).
inline std::uint32_t size_field(std::uint32_t size) {
  return (size << 5) | kMaxSizeLog;
}
inline constexpr std::uint16_t kMaxHeader = 1100;       ///< an AM header: past any (an RTS over 16 lanes is 432 B)
inline constexpr std::uint32_t kMaxPayload = 1U << 17;  ///< an AM payload

/// The path from rank 0 to either peer: two equal rails with the lanes'
/// default limits (short 128 B, bcopy and segment 8 KiB, zcopy 1 GiB).
inline Path scripted_path() {
  Path path;
  path.from = "rank0";
  path.to = "peer";
  for (const char* name : {"r0", "r1"}) {
    LaneAttrs lane;
    lane.name = name;
    lane.latency = 1e-6;
    lane.bandwidth = 12.5e9;
    lane.reg_cost = 1e-6;
    path.lanes.push_back(lane);
  }
  return path;
}

/// Appends ops to a seed.
class OpWriter {
 public:
  /// Starts a seed with its setup and all-zero decisions.
  OpWriter(std::uint8_t forced, std::uint8_t flags) {
    bytes_ += static_cast<char>(forced);
    bytes_ += static_cast<char>(flags);
    bytes_.append(kDecisionBytes, '\0');
  }
  void post_recv(std::uint32_t size, std::uint8_t tag) {
    op(Op::PostRecv);
    le(size_field(size), 4);
    le(tag, 1);
    le(0, 1);
  }
  void send(std::uint8_t peer, std::uint32_t size, std::uint8_t tag) {
    op(Op::Send);
    le(peer - 1, 1);
    le(size_field(size), 4);
    le(tag, 1);
  }
  void deliver(std::uint8_t source, std::uint8_t lane, std::uint8_t id, std::span<const std::byte> header,
               std::span<const std::byte> payload) {
    op(Op::Deliver);
    le(source - 1, 1);
    le(lane, 1);
    le(id, 1);
    le(header.size(), 2);
    bytes_.append(reinterpret_cast<const char*>(header.data()), header.size());
    le(payload.size(), 4);
    bytes_.append(reinterpret_cast<const char*>(payload.data()), payload.size());
    le(0, 1);
  }
  void progress() { op(Op::Progress); }
  const std::string& bytes() const { return bytes_; }

 private:
  void op(Op kind) { bytes_ += static_cast<char>(kind); }
  void le(std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i)
      bytes_ += static_cast<char>(v >> (8 * i));
  }

  std::string bytes_;
};

}  // namespace xover::fuzz::protocol
