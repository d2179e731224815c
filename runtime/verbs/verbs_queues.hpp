// The bookkeeping of the verbs transport's queues, device-free and
// unit-tested: which receive segments wait to be posted again, which send
// work requests are still the HCA's, which bounce buffers are free. None of
// it allocates after construction.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "protocols/core/transport.hpp"

namespace xover::runtime::verbs {

/// The receive segments of one shared receive queue. Every segment is
/// either posted (the HCA may fill it) or waiting to be posted again; a
/// completion hands its segment back, and the waiting ones go back to the
/// queue in batches (one ibv_post_srq_recv for a linked list of them), or
/// all of them at once when fewer than `low_water` are still posted.
class RecvSegments {
 public:
  /// `count` segments, all waiting at first (the first refills post them).
  RecvSegments(std::uint32_t count, std::uint32_t batch, std::uint32_t low_water);

  /// A completion took segment `index` (its handler is done with it).
  void consumed(std::uint32_t index);
  /// The segments to post now: a batch once one is waiting, everything
  /// waiting when the posted ones have fallen below the low water, or
  /// nothing. They count as posted from here; a failed post calls
  /// unpost() with as many.
  std::span<const std::uint32_t> refill();
  /// The last refill() could not be posted: its segments wait again.
  void unpost(std::size_t n) { posted_ -= static_cast<std::uint32_t>(n); waiting_end_ += n; }

  std::uint32_t count() const { return count_; }
  std::uint32_t posted() const { return posted_; }
  std::uint32_t waiting() const { return static_cast<std::uint32_t>(waiting_end_); }

 private:
  std::uint32_t count_;
  std::uint32_t batch_;
  std::uint32_t low_water_;
  std::uint32_t posted_ = 0;
  std::vector<std::uint32_t> waiting_;  ///< [0, waiting_end_): segment indices
  std::size_t waiting_end_ = 0;
  std::vector<std::uint32_t> handed_;   ///< the last refill
};

inline constexpr std::uint32_t kNone = 0xffffffffU;

/// What the transport keeps about one posted send work request until the
/// HCA is known to be done with it.
struct SendRecord {
  enum class Op : std::uint8_t { Send, Write, Read, Atomic, Flush };
  std::uint32_t sn = 0;          ///< sequence number on its queue pair (wraps)
  Op op = Op::Send;
  bool signaled = false;
  std::uint32_t bounce = kNone;  ///< the bounce buffer it reads from, if any
  Completion done;               ///< called once it completes, if any
};

/// RDMA reads and atomics: the requests max_rd_atomic bounds on a queue pair.
inline bool is_read(SendRecord::Op op) {
  return op == SendRecord::Op::Read || op == SendRecord::Op::Atomic;
}

/// Selective signalling on one RC queue pair, after UCX: a send is
/// signalled when it has a completion to call (zcopy, get, put), when it is
/// an RDMA read or an atomic (so that those in flight are counted exactly), every
/// `signal_every`-th send otherwise, when it fills the queue's last slot but
/// one (so that a full queue always holds a signalled request that frees
/// it), and when the caller forces it (bounce buffers running low). RC
/// completes a queue pair's requests in order, so the completion of a
/// signalled request retires it and every request posted before it.
class SendTracker {
 public:
  /// A send queue of `depth` requests (one slot kept for a flush), at most
  /// `max_reads` RDMA reads in flight (the QP's max_rd_atomic), numbered
  /// from `first_sn` (tests start near the wrap).
  SendTracker(std::uint32_t depth, std::uint32_t signal_every, std::uint32_t max_reads, std::uint32_t first_sn = 0);

  /// Room for one more request (`flush`: the kept slot may be used).
  bool has_room(bool flush = false) const { return count_ + (flush ? 0 : 1) < depth_; }
  /// Room for `n` more requests, the flush slot kept.
  bool has_room_for(std::uint32_t n) const { return count_ + n < depth_; }
  bool read_allowed() const { return reads_ < max_reads_; }
  /// Records a request about to be posted; returns it, with its sequence
  /// number and whether it must be signalled. Only after has_room() (and
  /// read_allowed() for a read).
  SendRecord& post(SendRecord::Op op, std::uint32_t bounce, Completion done, bool force_signal);
  /// The post of the last record failed: forgets it.
  void unpost();
  /// The signalled request `sn` completed: calls `retire(record)` for it
  /// and every request before it, oldest first. Returns false, retiring
  /// nothing, when no outstanding request has that number.
  template <typename F>
  bool complete_through(std::uint32_t sn, F&& retire);
  /// The outstanding record numbered `sn`, or null.
  const SendRecord* find(std::uint32_t sn) const;
  /// Retires everything outstanding (a failed transport): `retire` for each.
  template <typename F>
  void drain(F&& retire);

  std::uint32_t outstanding() const { return count_; }
  std::uint32_t reads() const { return reads_; }
  /// Requests were posted after the last signalled one: nothing will say
  /// when they are done until a signalled one follows (a flush).
  bool tail_unsignaled() const { return count_ > 0 && !at(count_ - 1).signaled; }

 private:
  SendRecord& at(std::uint32_t i) { return ring_[(head_ + i) % depth_]; }
  const SendRecord& at(std::uint32_t i) const { return ring_[(head_ + i) % depth_]; }
  void pop_front();

  std::uint32_t depth_;
  std::uint32_t signal_every_;
  std::uint32_t max_reads_;
  std::vector<SendRecord> ring_;
  std::uint32_t head_ = 0;
  std::uint32_t count_ = 0;
  std::uint32_t next_sn_ = 0;
  std::uint32_t since_signal_ = 0;
  std::uint32_t reads_ = 0;
};

template <typename F>
bool SendTracker::complete_through(std::uint32_t sn, F&& retire) {
  // Sequence numbers wrap: compare by distance from the oldest.
  if (count_ == 0 || sn - at(0).sn >= count_)
    return false;
  const std::uint32_t n = sn - at(0).sn + 1;
  for (std::uint32_t i = 0; i < n; ++i) {
    retire(at(0));
    pop_front();
  }
  return true;
}

template <typename F>
void SendTracker::drain(F&& retire) {
  while (count_ > 0) {
    retire(at(0));
    pop_front();
  }
  since_signal_ = 0;
}

/// The send side of a lane: requests per queue pair and the send CQ's
/// entries, so that the CQ holds a completion for every request that may
/// be outstanding on every queue pair at once (all signalled, the worst
/// case): peers × send_queue ≤ cq_entries ≤ the device's max_cqe.
struct SendPlan {
  std::uint32_t send_queue = 0;  ///< requests per queue pair
  std::uint32_t cq_entries = 0;  ///< the send CQ's size
  std::string problem;           ///< non-empty when no plan fits (the reason)
};
inline constexpr std::uint32_t kSendQueue = 256;     ///< send requests per queue pair (UCX rc: 256)
inline constexpr std::uint32_t kMinSendQueue = 4;    ///< a put with signal (two requests) and the flush slot
SendPlan plan_send(std::uint32_t peers, std::uint32_t max_qp_wr, std::uint32_t max_cqe);

/// When progress() looks past its queues: every kEventEvery-th call, busy
/// or not, it reads the device's asynchronous events (a fatal event must
/// stop a rank that is busy too); every kIdleEvery-th call that moved
/// nothing, the clock (a silent peer, a peer process gone).
class ProgressWatch {
 public:
  static constexpr unsigned kEventEvery = 64;
  static constexpr unsigned kIdleEvery = 256;

  /// One progress() call that moved something or not: what is due now.
  struct Due {
    bool events = false;
    bool clock = false;
  };
  Due tick(bool moved) {
    Due due;
    due.events = ++calls_ % kEventEvery == 0;
    if (!moved)
      due.clock = ++idle_ % kIdleEvery == 0;
    return due;
  }

 private:
  unsigned calls_ = 0;
  unsigned idle_ = 0;
};

/// Fixed-size buffers from one registered slab, handed out by index.
class BouncePool {
 public:
  explicit BouncePool(std::uint32_t count);
  /// A free buffer's index, or kNone.
  std::uint32_t take();
  void give(std::uint32_t index) { free_.push_back(index); }
  std::uint32_t free() const { return static_cast<std::uint32_t>(free_.size()); }
  std::uint32_t count() const { return count_; }
  /// Fewer than a quarter free: sends that hold one are signalled, so that
  /// buffers come back soon.
  bool low() const { return free() < count_ / 4; }

 private:
  std::uint32_t count_;
  std::vector<std::uint32_t> free_;
};

/// Records a request in `tracker` (SendTracker::post) and posts it with
/// `post(record)`, which returns 0 or an errno. When the post fails, the
/// record is forgotten and its bounce buffer goes back to `pool` here,
/// before the errno is returned: the caller then fails the transport
/// (which retires everything outstanding, calling each completion with
/// Error) and returns Error itself, so the request that never reached the
/// HCA is neither retired nor completed, and nothing is given back twice.
template <typename Post>
int post_tracked(SendTracker& tracker, BouncePool* pool, SendRecord::Op op, std::uint32_t bounce, Completion done,
                 bool force_signal, Post&& post) {
  const int error = post(tracker.post(op, bounce, std::move(done), force_signal));
  if (error != 0) {
    tracker.unpost();
    if (pool && bounce != kNone)
      pool->give(bounce);
  }
  return error;
}

}  // namespace xover::runtime::verbs
