// One PE of the alltoall (alltoall.hpp) over its Transport, on every
// backend: its buffers, its signal word, what it knows of its peers, its
// command ring (cmd_ring.hpp), and the stages of one exchange, which the
// rank's threads run (RankThreads: std::threads on hardware, actors in
// simulation):
//
//   stage 1, post   posting thread j (of T' = min(T, P − 1)) takes puts
//                   i ≡ j (mod T'): direct, it calls put_signal itself;
//                   proxy, it writes a command into the ring. Charged o_d.
//   stage 2, serve  proxy only: one proxy thread takes the commands in ring
//                   order, no sooner than W after each was written, and
//                   posts each with put_signal. Charged o_p.
//   stage 3, land   the transport: the bytes, then the signal's add
//   complete        thread 0, once it has posted, waits until its signal
//                   word shows this exchange's P − 1 puts, then until its
//                   own puts have completed at their targets
//
// Simulation charges o_d, W and o_p from the node's device figures; on
// hardware they cost what they take, and the threads time them (post,
// serve and wake in ExchangeResult).
//
// Put i of PE p goes to PE (p + i + 1) mod P, at p·n in that PE's receive
// buffer. Its bytes are payload_byte(seed, p, alltoall_put_seq(e, target),
// offset) for the run's e-th exchange, so a byte names its source, its
// destination, its offset and its exchange; the receiver checks every one. Signal words
// count up over the run: after e exchanges, e·(P − 1).
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "protocols/coll/alltoall.hpp"
#include "protocols/coll/cmd_ring.hpp"
#include "protocols/core/host_memory.hpp"
#include "protocols/core/worker.hpp"

namespace xover {

/// The payload pattern's message number (core/payload_pattern.hpp) of the
/// bytes PE `to` gets in exchange `exchange`: e·2^32 + to. Every alltoall
/// engine writes and checks its puts' bytes with it (AlltoallPe, and a
/// backend's engine for device memory: device_alltoall.hpp).
constexpr std::uint64_t alltoall_put_seq(std::uint64_t exchange, Rank to) {
  return (exchange << 32) | to;
}

/// What one exchange gave one PE.
struct ExchangeResult {
  bool complete = false;  ///< the signal showed every put before the deadline
  Seconds done = 0;       ///< when it did, on RankThreads::now()'s clock
  std::vector<Seconds> post;   ///< per put: a posting thread's time (direct: put_signal; proxy: the command)
  std::vector<Seconds> serve;  ///< proxy, per command: from seen to posted
  std::vector<Seconds> wake;   ///< proxy, per command: from written to seen
};

/// What the PE found wrong; each error is one put.
struct Findings {
  std::size_t errors = 0;
  std::vector<std::string> problems;  ///< one line each
};

class AlltoallPe {
 public:
  /// Commands the ring holds.
  static constexpr std::uint32_t kRingEntries = 256;
  /// The tag kind of set-up messages (workload/alltoall.cpp uses the rest).
  static constexpr std::uint64_t kCardTag = 1;

  /// Collective over every PE of the transport: picks the lane to each peer
  /// (the first with put_zcopy), allocates and registers buffers for sizes
  /// up to `max_size`, takes a signal word, and swaps addresses with every
  /// peer through `worker`.
  /// @throws std::invalid_argument when a peer has no put_zcopy lane or the
  /// transport gives no signal word.
  AlltoallPe(Transport& transport, Worker& worker, Bytes max_size, std::uint64_t seed);

  /// The lane that carries puts to `peer`.
  std::size_t lane(Rank peer) const { return peers_[peer].lane; }

  /// Writes the next exchange's bytes for size `n` (before its clock starts).
  void prepare(Bytes n);
  /// Runs the exchange prepare() set up: from `start`, every thread waiting
  /// for it, `threads` posting threads (1 or more), giving up at `deadline`.
  ExchangeResult exchange(AlltoallFlavour flavour, Bytes n, std::uint32_t threads, Seconds start, Seconds deadline);
  /// Checks the bytes of the last exchange from every peer, and adds what
  /// went wrong in it (a failed put_signal, a malformed command).
  Findings verify(Bytes n);
  /// Where no put can be on its way (every PE done with its exchange): the
  /// signal word must show exactly every put so far. Puts missing and adds
  /// too many are errors; the count then starts from what the word shows.
  Findings check_signal();

 private:
  struct Peer {
    std::size_t lane = 0;
    RemoteAddr recv;    ///< its receive buffer
    RemoteAddr signal;  ///< its signal word
  };

  /// The put_signal of `local` to PE `to`, at `offset` in its receive
  /// buffer, retried while the transport says NoResource; the calling
  /// thread progresses the transport meanwhile when `may_progress` (thread
  /// 0, the only one that does).
  Status post(ConstBuffer local, Rank to, Bytes offset, bool may_progress);
  void poster(AlltoallFlavour flavour, std::size_t first, std::size_t stride, Bytes n, ExchangeResult& out);
  void proxy(Bytes n, ExchangeResult& out);
  void waiter(ExchangeResult& out);
  /// Whether the exchange is to stop: a failure, the deadline, or a thread that gave up.
  bool stopping();
  void problem(std::string what);
  Rank target(std::size_t i) const { return static_cast<Rank>((me_ + i + 1) % pes_); }

  Transport& t_;
  RankThreads& threads_;
  std::optional<DeviceAttrs> device_;
  Rank me_;
  Rank pes_;
  Bytes max_size_;
  std::uint64_t seed_;
  std::vector<Peer> peers_;
  HostBuffer send_;  ///< memory xover owns: its registrations are kept (host_memory.hpp)
  HostBuffer recv_;
  SignalWord signal_;
  std::uint64_t expected_ = 0;   ///< what the signal word shows once every put so far has landed
  std::uint64_t exchanges_ = 0;  ///< exchanges prepared so far
  std::vector<std::byte> ring_memory_;
  std::span<std::byte> ring_span_;  ///< the aligned part of ring_memory_
  CommandRing ring_;
  std::uint64_t next_command_ = 0;  ///< the proxy's next ring position

  // The exchange under way.
  Seconds deadline_ = 0;
  std::atomic<std::size_t> outstanding_{0};
  std::atomic<bool> stop_{false};
  std::mutex problems_mutex_;
  Findings found_;  ///< what the threads found, added to verify()'s
};

}  // namespace xover
