// The verbs transport's wire header: the 8 bytes in front of every SEND
// that lands in a peer's receive segment. Device-free, so that its checks
// are unit-tested where no RDMA device exists.
//
//   u8 kind | u8 am_id | u16 grant | u16 header_length | u16 magic   (little-endian)
//
//   Am     an active message: `header_length` bytes of AM header follow,
//          then the payload, up to the byte count the receive completion
//          reports; `grant` credits ride along (piggybacked, often 0)
//   Grant  an explicit credit grant and nothing else: 8 bytes exactly
//   Probe  the wire-up's measurements (ping-pong, addresses, figures); the
//          data path refuses it
//
// A receiver trusts only the completion's byte count (the HCA wrote it) and
// checks every field against it before it touches a byte past the header:
// a peer that breaks the rules is corrupt or hostile, and the transport
// gives up on it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace xover::runtime::verbs {

inline constexpr std::size_t kWireHeader = 8;
inline constexpr std::uint16_t kWireMagic = 0x5856;  // "VX" on the wire

enum class WireKind : std::uint8_t { Am = 1, Grant = 2, Probe = 3 };

inline void store_le(std::byte* at, std::uint64_t v, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    at[i] = static_cast<std::byte>(v >> (8 * i));
}

inline std::uint64_t load_le(const std::byte* at, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < n; ++i)
    v |= static_cast<std::uint64_t>(at[i]) << (8 * i);
  return v;
}

struct WireHeader {
  WireKind kind = WireKind::Am;
  std::uint8_t am_id = 0;
  std::uint16_t grant = 0;          ///< credits handed back to the receiver of this message
  std::uint16_t header_length = 0;  ///< AM header bytes after the wire header

  void encode(std::byte* at) const {
    store_le(at, static_cast<std::uint8_t>(kind), 1);
    store_le(at + 1, am_id, 1);
    store_le(at + 2, grant, 2);
    store_le(at + 4, header_length, 2);
    store_le(at + 6, kWireMagic, 2);
  }
};

/// A message as it arrived, checked: its header, and its AM header and
/// payload as views into the receive segment.
struct WireMessage {
  WireHeader header;
  std::span<const std::byte> am_header;
  std::span<const std::byte> payload;
};

/// Checks the `length` bytes that landed at `at` (length from the receive
/// completion) against the rules above, with grants up to `max_grant`.
/// Returns an empty string and fills `out` when they hold; otherwise what is
/// wrong, for the line that ends the transport.
inline std::string decode_wire(const std::byte* at, std::size_t length, std::uint16_t max_grant, WireMessage& out) {
  if (length < kWireHeader)
    return "a message of " + std::to_string(length) + " bytes, shorter than the 8-byte header";
  if (load_le(at + 6, 2) != kWireMagic)
    return "a message without the xover magic (another program on this queue pair?)";
  const auto kind = static_cast<std::uint8_t>(load_le(at, 1));
  WireHeader h;
  h.am_id = static_cast<std::uint8_t>(load_le(at + 1, 1));
  h.grant = static_cast<std::uint16_t>(load_le(at + 2, 2));
  h.header_length = static_cast<std::uint16_t>(load_le(at + 4, 2));
  if (kind != static_cast<std::uint8_t>(WireKind::Am) && kind != static_cast<std::uint8_t>(WireKind::Grant) &&
      kind != static_cast<std::uint8_t>(WireKind::Probe))
    return "a message of unknown kind " + std::to_string(kind);
  h.kind = static_cast<WireKind>(kind);
  if (h.grant > max_grant)
    return "a grant of " + std::to_string(h.grant) + " credits, over the window of " + std::to_string(max_grant);
  if (h.header_length > length - kWireHeader)
    return "an AM header of " + std::to_string(h.header_length) + " bytes in a message of " + std::to_string(length);
  if (h.kind == WireKind::Grant && (length != kWireHeader || h.header_length != 0 || h.am_id != 0))
    return "a grant message of " + std::to_string(length) + " bytes (a grant is the 8-byte header alone)";
  out.header = h;
  out.am_header = {at + kWireHeader, h.header_length};
  out.payload = {at + kWireHeader + h.header_length, length - kWireHeader - h.header_length};
  return {};
}

}  // namespace xover::runtime::verbs
