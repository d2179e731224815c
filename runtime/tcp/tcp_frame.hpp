// The TCP transport's wire format: the frame every message travels in on a
// lane, the hello that opens a lane, and the hard limits a receiver checks
// before it uses any length a peer sent.
//
// A frame is a fixed 16-byte header, then `header_length` bytes of header,
// then `payload_length` bytes of payload, all integers little-endian:
//
//   u8 type | u8 am_id | u16 header_length | u32 zero | u64 payload_length
//
//   Am           header: the active message's header (<= kMaxAmHeader);
//                header + payload <= kSegSize
//   PutRequest   header: {id, key, address}; payload: the bytes to write (<= kMaxZcopy)
//   PutAck       header: {id, status}
//   GetRequest   header: {id, key, address, length}; length <= kMaxZcopy
//   GetResponse  header: {id, status}; payload: `length` bytes, none when refused
//   PutSignal    header: {id, key, address, signal key, signal index, value};
//                payload: the bytes to write (<= kMaxZcopy); the target writes
//                them, then adds value to its signal word, then acknowledges
//                with a PutAck
//   Bye          the sender is closing the lane on purpose: its end of file is no fault
//
// RMA headers are runs of u64. A frame that breaks any of these rules comes
// from a corrupt or hostile peer: the receiver gives up on it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "protocols/units.hpp"

namespace xover::runtime::tcp {

/// The largest inline active message, header included. On a socket short and
/// bcopy travel alike (one sendmsg, copied only when queued); this keeps
/// "short" to what the cost model's copy-free premise fits, the platforms'
/// default.
inline constexpr Bytes kMaxShort = 128;
/// The largest active message that lands, header included; bcopy and AM zcopy
/// share it (UCX's tcp transport receives into 64 KiB segments too).
inline constexpr Bytes kSegSize = 64 * 1024;
/// The largest copied active message, header included.
inline constexpr Bytes kMaxBcopy = kSegSize;
/// The largest get or put: the bytes go straight between user memory and
/// the socket, so only the sanity of a length sets this.
inline constexpr Bytes kMaxZcopy = Bytes{1} << 30;
/// The largest active-message header (an RTS over 32 lanes takes 816 bytes).
inline constexpr std::size_t kMaxAmHeader = 1024;

inline constexpr std::size_t kFrameHeader = 16;

enum class FrameType : std::uint8_t {
  Am = 1,
  PutRequest = 2,
  PutAck = 3,
  GetRequest = 4,
  GetResponse = 5,
  Bye = 6,
  PutSignal = 7,
};

/// The status word of a PutAck or GetResponse.
enum class RmaStatus : std::uint64_t {
  Ok = 0,
  Refused = 1,  ///< no such key, or the range is not wholly inside the region
};

inline constexpr std::size_t kPutRequestHeader = 24;
inline constexpr std::size_t kPutSignalHeader = 48;
inline constexpr std::size_t kRmaReplyHeader = 16;
inline constexpr std::size_t kGetRequestHeader = 32;

inline void put_le(std::byte* at, std::uint64_t v, std::size_t n = 8) {
  for (std::size_t i = 0; i < n; ++i)
    at[i] = static_cast<std::byte>(v >> (8 * i));
}

inline std::uint64_t get_le(const std::byte* at, std::size_t n = 8) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < n; ++i)
    v |= static_cast<std::uint64_t>(at[i]) << (8 * i);
  return v;
}

/// A frame header, decoded but not yet checked.
struct FrameHeader {
  std::uint8_t type = 0;
  std::uint8_t am_id = 0;
  std::uint16_t header_length = 0;
  std::uint32_t zero = 0;
  std::uint64_t payload_length = 0;

  void encode(std::byte* at) const {
    put_le(at, type, 1);
    put_le(at + 1, am_id, 1);
    put_le(at + 2, header_length, 2);
    put_le(at + 4, zero, 4);
    put_le(at + 8, payload_length);
  }
  static FrameHeader decode(const std::byte* at) {
    return {static_cast<std::uint8_t>(get_le(at, 1)), static_cast<std::uint8_t>(get_le(at + 1, 1)),
            static_cast<std::uint16_t>(get_le(at + 2, 2)), static_cast<std::uint32_t>(get_le(at + 4, 4)),
            get_le(at + 8)};
  }
};

/// What a connecting rank says first on a new lane, and what the accepting
/// rank answers (with its own rank).
struct Hello {
  static constexpr std::uint64_t kMagic = 0x7063742d7265766fULL;  // "over-tcp"
  static constexpr std::size_t kSize = 24;
  std::uint64_t magic = kMagic;
  std::uint64_t job = 0;  ///< hash of the bootstrap's job name
  std::uint32_t rank = 0;
  std::uint32_t lane = 0;

  void encode(std::byte* at) const {
    put_le(at, magic);
    put_le(at + 8, job);
    put_le(at + 16, rank, 4);
    put_le(at + 20, lane, 4);
  }
  static Hello decode(const std::byte* at) {
    return {get_le(at), get_le(at + 8), static_cast<std::uint32_t>(get_le(at + 16, 4)),
            static_cast<std::uint32_t>(get_le(at + 20, 4))};
  }
};

}  // namespace xover::runtime::tcp
