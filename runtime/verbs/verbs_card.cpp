#include "runtime/verbs/verbs_card.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "runtime/verbs/verbs_wire.hpp"

namespace xover::runtime::verbs {
namespace {

constexpr std::size_t kFixed = 4 + 2 + 2 + 4 + 4 + 4 + 8 + 8 + 8 + 2;
constexpr std::size_t kLaneBytes = 32;
constexpr std::size_t kQpBytes = 8;
constexpr std::uint32_t kMaxPsn = 0xffffff;  // 24 bits, as QPNs

class Writer {
 public:
  explicit Writer(std::vector<std::byte>& out) : out_(out) {}
  Writer& put(std::uint64_t v, std::size_t n) {
    const std::size_t at = out_.size();
    out_.resize(at + n);
    store_le(out_.data() + at, v, n);
    return *this;
  }
  Writer& bytes(const void* p, std::size_t n) {
    const auto* b = static_cast<const std::byte*>(p);
    out_.insert(out_.end(), b, b + n);
    return *this;
  }

 private:
  std::vector<std::byte>& out_;
};

class Reader {
 public:
  explicit Reader(std::span<const std::byte> in) : in_(in) {}
  std::uint64_t get(std::size_t n) {
    const std::uint64_t v = load_le(in_.data() + at_, n);
    at_ += n;
    return v;
  }
  void bytes(void* p, std::size_t n) {
    std::memcpy(p, in_.data() + at_, n);
    at_ += n;
  }

 private:
  std::span<const std::byte> in_;
  std::size_t at_ = 0;
};

/// Lane `i` of a card, read from `r` and checked against `ranks`; `bad`
/// makes the error naming the card.
template <typename Bad>
LaneAddress read_lane(Reader& r, std::size_t i, std::uint32_t ranks, const Bad& bad) {
  LaneAddress l;
  const auto link = r.get(1);
  l.gid_index = static_cast<std::uint8_t>(r.get(1));
  const auto gid_type = r.get(1);
  const auto mtu = static_cast<std::uint8_t>(r.get(1));
  l.lid = static_cast<std::uint16_t>(r.get(2));
  l.rd_atomic = static_cast<std::uint8_t>(r.get(1));
  l.prefix = static_cast<std::uint8_t>(r.get(1));
  r.bytes(l.gid.data(), l.gid.size());
  l.window = static_cast<std::uint16_t>(r.get(2));
  const auto zero = r.get(2);
  l.signal_rkey = static_cast<std::uint32_t>(r.get(4));
  const std::string lane = "lane " + std::to_string(i) + ": ";
  if (link != static_cast<std::uint8_t>(LinkLayer::Infiniband) && link != static_cast<std::uint8_t>(LinkLayer::Ethernet))
    throw bad(lane + "unknown link layer " + std::to_string(link));
  l.link_layer = static_cast<LinkLayer>(link);
  if (gid_type > static_cast<std::uint8_t>(GidType::RoceV2))
    throw bad(lane + "unknown GID type " + std::to_string(gid_type));
  l.gid_type = static_cast<GidType>(gid_type);
  l.mtu = mtu_bytes(mtu);
  if (l.mtu == 0)
    throw bad(lane + "MTU code " + std::to_string(mtu) + " is not 1 (256 B) to 5 (4096 B)");
  if (l.link_layer == LinkLayer::Infiniband && l.lid == 0)
    throw bad(lane + "an InfiniBand port with LID 0 (is the subnet manager running?)");
  if (zero != 0)
    throw bad(lane + "a reserved field is not zero");
  if (l.prefix > 32 || (l.prefix != 0 && !is_ipv4_gid(l.gid)))
    throw bad(lane + "a subnet prefix of " + std::to_string(l.prefix) + " bits on " +
              (is_ipv4_gid(l.gid) ? "an IPv4 GID (at most 32)" : "a GID without an IPv4 address"));
  if (l.window > kMaxCardWindow || (ranks > 1 && l.window == 0))
    throw bad(lane + "a credit window of " + std::to_string(l.window) + " (1 to " +
              std::to_string(kMaxCardWindow) + " with peers)");
  return l;
}

}  // namespace

std::uint64_t job_hash(const std::string& job) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : job)
    h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
  return h;
}

std::vector<std::byte> encode_card(const Card& card) {
  std::vector<std::byte> out;
  out.reserve(kFixed + card.host.size() + card.lanes.size() * kLaneBytes + card.qps.size() * kQpBytes);
  Writer w(out);
  w.put(kCardMagic, 4).put(kCardVersion, 2).put(card.lanes.size(), 2).put(card.ranks, 4).put(card.rank, 4);
  w.put(card.pid, 4).put(card.job, 8).put(std::bit_cast<std::uint64_t>(card.memcpy_bw), 8).put(card.signal_addr, 8);
  w.put(card.host.size(), 2).bytes(card.host.data(), card.host.size());
  for (const LaneAddress& l : card.lanes) {
    w.put(static_cast<std::uint8_t>(l.link_layer), 1).put(l.gid_index, 1).put(static_cast<std::uint8_t>(l.gid_type), 1);
    w.put(mtu_code(l.mtu), 1).put(l.lid, 2).put(l.rd_atomic, 1).put(l.prefix, 1).bytes(l.gid.data(), l.gid.size());
    w.put(l.window, 2).put(0, 2).put(l.signal_rkey, 4);
  }
  for (const QpAddress& q : card.qps)
    w.put(q.qpn, 4).put(q.psn, 4);
  return out;
}

Card decode_card(std::span<const std::byte> bytes, std::uint32_t from, std::uint32_t ranks, std::size_t lanes,
                 std::uint64_t job) {
  const std::string who = "rank " + std::to_string(from) + "'s address card: ";
  auto bad = [&](const std::string& what) { return std::invalid_argument(who + what); };
  if (bytes.size() < kFixed)
    throw bad(std::to_string(bytes.size()) + " bytes, shorter than its fixed part (" + std::to_string(kFixed) + ")");
  Reader r(bytes);
  Card card;
  if (r.get(4) != kCardMagic)
    throw bad("bad magic (not an xover verbs card)");
  if (const auto version = r.get(2); version != kCardVersion)
    throw bad("version " + std::to_string(version) + ", this build speaks " + std::to_string(kCardVersion));
  const std::size_t card_lanes = r.get(2);
  card.ranks = static_cast<std::uint32_t>(r.get(4));
  card.rank = static_cast<std::uint32_t>(r.get(4));
  card.pid = static_cast<std::uint32_t>(r.get(4));
  card.job = r.get(8);
  card.memcpy_bw = std::bit_cast<double>(r.get(8));
  card.signal_addr = r.get(8);
  const std::size_t host = r.get(2);
  if (card.ranks != ranks || card.rank != from)
    throw bad("says rank " + std::to_string(card.rank) + " of " + std::to_string(card.ranks) + ", expected rank " +
              std::to_string(from) + " of " + std::to_string(ranks));
  if (card.job != job)
    throw bad("from another job");
  if (card_lanes != lanes)
    throw bad(std::to_string(card_lanes) + " lanes, this rank has " + std::to_string(lanes) +
              " (give every rank the same number of ports, with --ib-dev)");
  if (host > kMaxHostName)
    throw bad("a host name of " + std::to_string(host) + " bytes");
  if (!(card.memcpy_bw > 0) || !std::isfinite(card.memcpy_bw))
    throw bad("a memcpy bandwidth that is not a positive number");
  const std::size_t want = kFixed + host + lanes * kLaneBytes + lanes * std::size_t{ranks} * kQpBytes;
  if (bytes.size() != want)
    throw bad(std::to_string(bytes.size()) + " bytes, its counts say " + std::to_string(want));
  card.host.resize(host);
  r.bytes(card.host.data(), host);
  for (std::size_t i = 0; i < lanes; ++i)
    card.lanes.push_back(read_lane(r, i, ranks, bad));
  card.qps.resize(lanes * std::size_t{ranks});
  for (std::size_t i = 0; i < card.qps.size(); ++i) {
    QpAddress& q = card.qps[i];
    q.qpn = static_cast<std::uint32_t>(r.get(4));
    q.psn = static_cast<std::uint32_t>(r.get(4));
    const std::uint32_t toward = static_cast<std::uint32_t>(i % ranks);
    const bool self = toward == from;
    if (q.qpn > kMaxPsn || q.psn > kMaxPsn || (self ? q.qpn != 0 : q.qpn == 0))
      throw bad("lane " + std::to_string(i / ranks) + " toward rank " + std::to_string(toward) + ": queue pair " +
                std::to_string(q.qpn) + " with PSN " + std::to_string(q.psn) + " (24-bit, non-zero toward a peer)");
  }
  return card;
}

}  // namespace xover::runtime::verbs
