// The verbs transport's address card: what every rank publishes through
// the bootstrap's allgather so that each pair can connect its RC queue
// pairs. Device-free, so that its encoding and its checks are unit-tested.
//
// Little-endian throughout:
//
//   u32 magic "XVBC" | u16 version | u16 lanes | u32 ranks | u32 rank |
//   u32 pid | u64 job | f64 memcpy_bw | u64 signal words' address |
//   u16 host length | host bytes |
//   lanes × { u8 link layer | u8 gid index | u8 gid type | u8 mtu code |
//             u16 lid | u8 rd_atomic | u8 IPv4 prefix | 16 gid bytes |
//             u16 window | u16 zero | u32 signal words' rkey }         (32 bytes)
//   lanes × ranks × { u32 qpn | u32 psn }  (the queue pair of this rank's
//             lane toward each rank; zero toward itself)
//
// A card is checked whole before any of it is used: its length against
// its counts, every code against its range, the counts and the job against
// this rank's. A card that fails says which rank sent it and what is wrong.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "runtime/verbs/verbs_port.hpp"

namespace xover::runtime::verbs {

/// One lane's port, as the peers need it.
struct LaneAddress {
  LinkLayer link_layer = LinkLayer::Infiniband;
  std::uint8_t gid_index = 0;
  GidType gid_type = GidType::Ib;
  std::uint32_t mtu = 0;         ///< active MTU in bytes
  std::uint16_t lid = 0;
  std::uint8_t rd_atomic = 0;    ///< RDMA reads the port's queue pairs serve at once (max_qp_rd_atom)
  std::uint8_t prefix = 0;       ///< the subnet prefix length of an IPv4 GID (RoCE), 0 when unknown or none
  Gid gid{};
  std::uint16_t window = 0;      ///< active messages each peer may have unconsumed at this port (its SRQ share)
  std::uint32_t signal_rkey = 0; ///< the rkey of this rank's signal words on this port's device (put_signal)
  bool operator==(const LaneAddress&) const = default;
};

/// One queue pair's end: its number and first packet sequence number.
struct QpAddress {
  std::uint32_t qpn = 0;
  std::uint32_t psn = 0;
  bool operator==(const QpAddress&) const = default;
};

struct Card {
  std::uint32_t ranks = 0;
  std::uint32_t rank = 0;
  std::uint32_t pid = 0;
  std::uint64_t job = 0;         ///< hash of the bootstrap's job name
  double memcpy_bw = 0;
  std::uint64_t signal_addr = 0; ///< where this rank's signal words start (Transport::signal_word)
  std::string host;
  std::vector<LaneAddress> lanes;
  std::vector<QpAddress> qps;    ///< [lane * ranks + rank]

  const QpAddress& qp(std::size_t lane, std::uint32_t toward) const { return qps[lane * ranks + toward]; }
  bool operator==(const Card&) const = default;
};

inline constexpr std::uint32_t kCardMagic = 0x43425658;  // "XVBC"
inline constexpr std::uint16_t kCardVersion = 2;
inline constexpr std::size_t kMaxCardLanes = 64;
inline constexpr std::size_t kMaxHostName = 255;
inline constexpr std::uint16_t kMaxCardWindow = 512;  ///< kMaxWindow (verbs_credits.hpp)

std::vector<std::byte> encode_card(const Card& card);

/// The card `bytes` that rank `from` published, checked against what this
/// rank expects (its rank count, lane count and job hash). Throws
/// std::invalid_argument saying what is wrong.
Card decode_card(std::span<const std::byte> bytes, std::uint32_t from, std::uint32_t ranks, std::size_t lanes,
                 std::uint64_t job);

/// FNV-1a of the job name: the same on every rank of one run.
std::uint64_t job_hash(const std::string& job);

}  // namespace xover::runtime::verbs
