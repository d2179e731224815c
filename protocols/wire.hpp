// The wire format of the protocol headers. Every header is a fixed run of
// little-endian 64-bit fields (the RTS adds one key and address per lane),
// packed and unpacked here and length-checked before use, so that a corrupt
// peer cannot make a handler read past what arrived.
//
// A header takes room in a receive segment, so it shrinks what a fragment can
// carry, and its bytes cross the wire with the payload: the cost models
// charge (header + payload)/B and the simulator's transfers carry both.
//
// An active message's id is its protocols': each family's header names the
// ids its messages take (eager/eager.hpp, ...), and each protocol lists the
// ones it receives in its value (Protocol::handlers).
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <vector>

#include "protocols/units.hpp"

namespace xover::wire {

inline constexpr Bytes kEagerHdr = 16;     ///< tag, sequence
inline constexpr Bytes kMultiHdr = 32;     ///< tag, sequence, total size, offset
inline constexpr Bytes kRtsHdr = 48;       ///< tag, sequence, size, sender request, protocol wire id, lanes
inline constexpr Bytes kRtsLaneHdr = 24;   ///< per lane of an RTS: lane, key, address
inline constexpr Bytes kRtrHdr = 16;       ///< sender request, receiver request
inline constexpr Bytes kRndvDataHdr = 16;  ///< receiver request, offset
inline constexpr Bytes kAckHdr = 8;        ///< sender request
/// An RDMA read request or write header: address, key, length (the
/// transport's, not the protocols'; used by the models of rndv/get).
inline constexpr Bytes kRmaHdr = 16;

/// The most lanes a rendezvous stripes over, and so the most an RTS
/// names (UCX's UCP_MAX_LANES is 8 to 16).
inline constexpr std::size_t kMaxLanes = 16;

/// Packs 64-bit fields, little-endian (one 8-byte copy on a little-endian
/// host), into a header of at most `Capacity` bytes. A header
/// is copied into the operation that sends it (which may wait behind
/// back-pressure), so it lives in place, in an array sized for its kind of
/// message: no allocation per message.
template <std::size_t Capacity>
class HeaderWriter {
 public:
  HeaderWriter& put(std::uint64_t v) {
    assert(size_ + 8 <= Capacity && "a header past the capacity of its kind");
    if constexpr (std::endian::native == std::endian::little) {
      std::memcpy(bytes_.data() + size_, &v, 8);
    } else {
      for (std::size_t i = 0; i < 8; ++i)
        bytes_[size_ + i] = static_cast<std::byte>(v >> (8 * i));
    }
    size_ += 8;
    return *this;
  }
  std::span<const std::byte> bytes() const { return {bytes_.data(), size_}; }

 private:
  std::array<std::byte, Capacity> bytes_{};
  std::size_t size_ = 0;
};

/// An eager message's header.
using EagerHeader = HeaderWriter<kEagerHdr>;
/// A fragment's header: multi-eager or rndv/am data.
using FragmentHeader = HeaderWriter<std::max(kMultiHdr, kRndvDataHdr)>;
/// A control message's header: an RTS with up to kMaxLanes lanes, an RTR,
/// an ACK.
using ControlHeader = HeaderWriter<kRtsHdr + kMaxLanes * kRtsLaneHdr>;

/// Unpacks 64-bit fields; `ok()` turns false, and every later get() returns
/// 0, once a read would pass the end of what arrived.
class HeaderReader {
 public:
  explicit HeaderReader(std::span<const std::byte> bytes) : bytes_(bytes) {}
  std::uint64_t get() {
    if (pos_ + 8 > bytes_.size()) {
      ok_ = false;
      return 0;
    }
    std::uint64_t v = 0;
    if constexpr (std::endian::native == std::endian::little) {
      std::memcpy(&v, bytes_.data() + pos_, 8);
    } else {
      for (int i = 0; i < 8; ++i)
        v |= static_cast<std::uint64_t>(bytes_[pos_ + i]) << (8 * i);
    }
    pos_ += 8;
    return v;
  }
  bool ok() const { return ok_; }
  /// True when every byte was read and none was missing.
  bool exact() const { return ok_ && pos_ == bytes_.size(); }

 private:
  std::span<const std::byte> bytes_;
  std::size_t pos_ = 0;
  bool ok_ = true;
};

}  // namespace xover::wire
