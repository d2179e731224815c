// The shared-memory Transport behind make_shm_transport() (shm_transport.hpp):
// its data path is in shm_transport.cpp, its wire-up and lane measurements
// in shm_wireup.cpp. Internal to the runtime library and its tests.
#pragma once

#include <array>
#include <atomic>
#include <vector>

#include "runtime/bootstrap.hpp"
#include "runtime/common.hpp"
#include "runtime/shm/shm_ring.hpp"

namespace xover::runtime::shm {

inline constexpr std::size_t kMmLane = 0;
inline constexpr std::size_t kCmaLane = 1;
/// Largest short message, AM header included: what lies inline in a cell.
inline constexpr Bytes kMaxShort = kInlineBytes;
/// Largest bcopy message, AM header included: what a descriptor holds (one
/// of up to kMaxShort still lies inline).
inline constexpr Bytes kMaxBcopy = kDescriptorBytes;
/// The key of a signal word's RemoteAddr (its addr is the word's index).
inline constexpr std::uint64_t kSignalKey = 0x7369676e616c;  // "signal"

/// What this rank knows of one rank of the run, itself included.
struct Peer {
  int pid = 0;
  Ring out;                   ///< this rank's ring in the peer's segment
  std::uint64_t out_pos = 0;  ///< the next position this rank writes there
  Ring in;                    ///< the peer's ring in this rank's segment
  std::uint64_t in_pos = 0;   ///< the next position this rank reads there
  bool cma = false;           ///< process_vm_readv/writev work both ways
  Path path;
};

class ShmTransport final : public Transport {
 public:
  ShmTransport(Rank rank, Rank size, Seconds timeout);
  ~ShmTransport() override;

  Rank rank() const override { return rank_; }
  Rank size() const override { return size_; }
  const Path& path(Rank peer) const override { return peers_[peer].path; }
  void set_am_handler(AmId id, AmHandler handler) override { handlers_[id] = std::move(handler); }
  Status am_send(std::size_t lane, Rank peer, AmId id, std::span<const std::byte> header, ConstBuffer payload,
                 AmMode mode, Completion done) override;
  Status get(std::size_t lane, Rank peer, MutableBuffer local, RemoteAddr remote, Completion done) override;
  Status put(std::size_t lane, Rank peer, ConstBuffer local, RemoteAddr remote, Completion done) override;
  /// process_vm_writev into the peer, then a release add on the word in the
  /// peer's segment through this rank's mapping of it: Ok at return. Shares
  /// no state with another put_signal or progress(): no lock.
  Status put_signal(std::size_t lane, Rank peer, ConstBuffer local, RemoteAddr remote, RemoteAddr signal,
                    std::uint64_t value, Completion done) override;
  /// A word of the signal page of this rank's segment (kSignalWords in all).
  SignalWord signal_word() override;
  MemoryRegion reg(Rank peer, std::size_t lane, const std::byte* base, Bytes size) override;
  void dereg(const MemoryRegion&) override {}
  RemoteAddr remote_addr(const MemoryRegion& region, const std::byte* base) const override;
  void copy(std::byte* dst, const std::byte* src, Bytes n) override;
  void progress(Seconds deadline) override;
  Seconds now() const override;
  /// Always true: a message is in the peer's ring when am_send returns, and
  /// get and put are done when they return.
  bool flushed() const override { return true; }

  // For the wire-up (shm_wireup.cpp) and the test hook.

  /// Copies one message into `peer`'s ring, inline in its cell when it
  /// fits, else into the descriptor its position owns; NoResource when the
  /// cell or that descriptor is not free yet.
  Status push(Rank peer, AmId id, std::span<const std::byte> header, ConstBuffer payload);
  /// Copies `n` bytes between `local` and address `remote` of `peer`'s
  /// process, looping on partial transfers; Error (said on stderr) if the
  /// kernel refuses.
  Status cma(Rank peer, std::byte* local, std::uint64_t remote, Bytes n, bool write);
  Peer& peer(Rank r) { return peers_[r]; }
  int peer_pid(Rank r) const { return peers_[r].pid; }
  Segment& own_segment() { return own_; }
  std::vector<Segment>& mapped_segments() { return mapped_; }
  /// Starts the fault watch from now: the wire-up's time is not idleness.
  void start_watch();

 private:
  void deliver(Rank source, const Ring& ring, Cell& cell, std::uint64_t pos);
  /// Says on stderr why the cell at `pos`, whose head is `h`, is dropped;
  /// off the path of a good message.
  [[gnu::cold, gnu::noinline]] void drop(Rank source, const Ring& ring, const CellHead& h, std::uint64_t pos) const;
  void watch();

  Rank rank_;
  Rank size_;
  IdleWatch idle_;
  Segment own_;                  ///< this rank's segment: the rings it reads
  std::vector<Segment> mapped_;  ///< per rank: its segment, where this rank's rings to it are
  std::vector<Peer> peers_;
  std::array<AmHandler, 256> handlers_;
  std::uint64_t next_key_ = 1;
  std::size_t signals_given_ = 0;
  std::atomic<bool> moved_{true};  ///< something was sent or arrived since the last watch (any thread)
  unsigned idle_polls_ = 0;      ///< polls that found nothing, counted to space the watches
  Seconds last_alive_check_ = 0;
};

}  // namespace xover::runtime::shm
