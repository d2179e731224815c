// The Transport: everything that differs between the simulation and the
// hardware backends sits behind this interface, after UCT. Non-blocking,
// completion by callback, progress-driven; the data path never throws.
//
// In simulation progress() advances simulated time to the next event and
// every cost (o_send, o_recv, copies, registration, the NIC's gap) is paid in
// simulated time inside these calls; on hardware progress() polls once and
// the costs are real.
//
// Threads. A rank may run several threads (RankThreads, threads.hpp), and
// they may share its transport this far: put_signal() from several threads
// at once, while one thread is in progress(); failure() from any thread;
// every other call from one thread at a time, never while a put_signal()
// runs. How each backend keeps this:
//   sim  actors take turns (SimGrid runs one at a time): nothing to do
//   shm  put_signal shares no state (a process_vm_writev, an atomic add in
//        the peer's segment): no lock
//   tcp  one lock, taken by every call
// runtime/README.md gives what was measured to choose.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <string>

#include "protocols/core/threads.hpp"
#include "protocols/lanes/lane.hpp"

namespace xover {

class DeviceMemory;
class TableStore;

enum class Status {
  Ok,          ///< done: the buffer may be reused, no completion will follow
  InProgress,  ///< started: the completion will be called from progress()
  NoResource,  ///< no room now (back-pressure): retry from progress()
  Error,       ///< failed: the operation, or the whole transport (Transport::failure())
};

using Rank = std::uint32_t;
using AmId = std::uint8_t;

/// Bytes to send. `data` is null for a phantom payload (simulation only): a
/// size without bytes, so that big runs cost no memory.
struct ConstBuffer {
  const std::byte* data = nullptr;
  Bytes size = 0;
  ConstBuffer slice(Bytes offset, Bytes n) const { return {data ? data + offset : nullptr, n}; }
};

/// Bytes to receive into; `data` null for phantom.
struct MutableBuffer {
  std::byte* data = nullptr;
  Bytes size = 0;
  MutableBuffer slice(Bytes offset, Bytes n) const { return {data ? data + offset : nullptr, n}; }
};

enum class AmMode {
  Short,  ///< inline in the descriptor
  Bcopy,  ///< copied into a bounce buffer by the sender
  Zcopy,  ///< sent from the registered user buffer, owned until completion
};

/// What a peer needs to read or write a registered buffer.
struct RemoteAddr {
  std::uint64_t key = 0;   ///< the region's remote key
  std::uint64_t addr = 0;  ///< address (or offset) in the peer's address space
};

/// A registered buffer on one lane's memory domain.
struct MemoryRegion {
  std::uint64_t key = 0;
  const std::byte* base = nullptr;
  Bytes size = 0;
};

/// Called once from progress() for an operation that returned InProgress.
using Completion = std::function<void(Status)>;

/// A 64-bit word of a rank that peers add to with put_signal (NVSHMEM's
/// signal object). Its owner obtains it from its own transport
/// (Transport::signal_word()), reads it with atomic loads (signal_load()),
/// and hands `remote` to its peers in a message of its own; a peer names
/// `remote` in put_signal. Where the word lives is the backend's choice:
/// wherever it can add to it atomically on a peer's behalf.
struct SignalWord {
  std::uint64_t* local = nullptr;  ///< the owner's view; null when none could be given
  RemoteAddr remote;               ///< what peers name in put_signal
};

/// The owner's acquire load of its signal word: once it shows a put_signal's
/// add, that put's bytes are in the owner's memory.
inline std::uint64_t signal_load(const SignalWord& word) {
  return std::atomic_ref<std::uint64_t>(*word.local).load(std::memory_order_acquire);
}

/// An active message as the receiver sees it. The header and payload are
/// valid only during the handler call.
struct AmMessage {
  Rank source = 0;
  std::size_t lane = 0;
  std::span<const std::byte> header;
  ConstBuffer payload;
};

using AmHandler = std::function<void(const AmMessage&)>;

class Transport {
 public:
  virtual ~Transport() = default;

  virtual Rank rank() const = 0;
  virtual Rank size() const = 0;
  /// The lanes from this rank to `peer`, with each end's copy bandwidth.
  /// The object stays, unchanged, while the transport lives; peers on the
  /// same kind of route may share one (the Worker then shares their table).
  virtual const Path& path(Rank peer) const = 0;

  virtual void set_am_handler(AmId id, AmHandler handler) = 0;

  /// Sends an active message on a lane. Short and bcopy copy the payload
  /// before returning Ok; zcopy returns InProgress and owns the payload until
  /// `done`. The header is always copied.
  virtual Status am_send(std::size_t lane, Rank peer, AmId id, std::span<const std::byte> header, ConstBuffer payload,
                         AmMode mode, Completion done) = 0;
  /// Reads `local.size` bytes from the peer's registered memory into `local`.
  virtual Status get(std::size_t lane, Rank peer, MutableBuffer local, RemoteAddr remote, Completion done) = 0;
  /// Writes `local` into the peer's registered memory.
  virtual Status put(std::size_t lane, Rank peer, ConstBuffer local, RemoteAddr remote, Completion done) = 0;

  /// NVSHMEM's put with NVSHMEM_SIGNAL_ADD: writes `local` into the peer's
  /// registered memory at `remote`, then adds `value` to the peer's signal
  /// word `signal` (its SignalWord::remote), atomically with respect to every
  /// other add to that word.
  ///
  /// Ordering, the whole contract: the add is never visible before the data.
  /// A peer thread whose signal_load() shows this add finds every byte of
  /// `local` at `remote`. Nothing is promised between two put_signals (their
  /// data or their adds may land in either order), nor about a put's data
  /// before its add shows.
  ///
  /// Completion: Ok when, at return, the bytes and the add are both in the
  /// peer's memory; otherwise InProgress and `done` is called from progress()
  /// once they are (remote completion, as NVSHMEM's quiet waits for): `local`
  /// may be reused from then on. `lane` must carry put_zcopy. An empty
  /// `local` adds the signal alone. Phantom buffers (null data) in
  /// simulation only. May be called from several threads at once (above).
  ///
  /// Backends: sim (the bytes as one transfer; at its landing the data, then
  /// the add), shm (process_vm_writev into the peer, then an atomic add on a
  /// word in the peer's segment through this rank's mapping of it), tcp (one
  /// frame, data then add applied in that order by the target, which then
  /// acknowledges). Verbs: an RDMA WRITE, then on the same queue pair an
  /// atomic fetch-and-add on the word's registered address and rkey, fenced
  /// (IBV_SEND_FENCE) behind the write; `done` is the add's completion.
  /// A backend without it returns Error.
  virtual Status put_signal(std::size_t lane, Rank peer, ConstBuffer local, RemoteAddr remote, RemoteAddr signal,
                            std::uint64_t value, Completion done);
  /// Hands out a signal word of this rank, zero, for put_signal: sim, in
  /// this process's memory; shm, in the rank's shared segment (the page
  /// after its header), so that a peer adds to it through its own mapping;
  /// tcp, in this process's memory, added to by the thread that reads the
  /// frame; verbs, in a region registered with remote-atomic access. Set-up
  /// only: a backend has few (64 on shm and tcp) and never takes them back.
  /// A word with null `local` when none is left or the backend has no
  /// put_signal.
  virtual SignalWord signal_word();

  /// Registers a buffer with the memory domain of the lane to `peer`; pays
  /// the registration cost (real on hardware, reg_cost + n·reg_growth in
  /// simulation).
  virtual MemoryRegion reg(Rank peer, std::size_t lane, const std::byte* base, Bytes size) = 0;
  /// Releases a registration made by reg().
  virtual void dereg(const MemoryRegion& region) = 0;
  /// Whether a registration of [base, base + size) may be kept after its
  /// use and found again by address (the Worker's registration cache): yes,
  /// unless registering pins pages that whoever owns the memory may unmap
  /// and map again under the same addresses, leaving a kept registration on
  /// the old pages. Verbs: only memory xover owns (host_memory.hpp).
  virtual bool reg_may_outlive_use(const std::byte* base, Bytes size) const;
  /// The address a peer uses to reach `base` in a get or put.
  virtual RemoteAddr remote_addr(const MemoryRegion& region, const std::byte* base) const = 0;

  /// The protocol core's own copies (a receive segment into a user buffer);
  /// in simulation they cost n / memcpy bandwidth. Null buffers copy nothing.
  virtual void copy(std::byte* dst, const std::byte* src, Bytes n) = 0;

  /// Makes progress: delivers arrived messages to their handlers and calls
  /// completions. On hardware it polls once. In simulation, when nothing has
  /// arrived, it advances simulated time to the next event or to `deadline`,
  /// whichever is first.
  virtual void progress(Seconds deadline) = 0;
  void progress() { progress(kForever); }
  virtual Seconds now() const = 0;
  /// The threads this rank runs several of at once, and what their steps
  /// cost (threads.hpp): this machine's, unless the backend simulates them.
  virtual RankThreads& threads();
  /// The rank's device memory (device_memory.hpp), or null when it has
  /// none: set by whoever runs the rank (attach_device_memory) on hardware,
  /// by the simulator in simulation.
  DeviceMemory* device_memory() const { return device_memory_; }
  /// Gives the rank device memory, owned by the caller and outliving every
  /// Worker on this transport.
  void attach_device_memory(DeviceMemory* memory) { device_memory_ = memory; }
  /// Thresholds tables shared by the Workers of every rank this process
  /// runs on transports of one kind (the simulator's ranks: P ranks on
  /// alike routes then hold one table, not P), outliving those Workers; or
  /// null, as on hardware, where each Worker keeps its own.
  virtual TableStore* shared_tables() { return nullptr; }
  /// True when everything handed to the transport has left this rank: no
  /// byte waits in a send queue of the transport's own; what was sent is in
  /// the kernel's buffers or the peer's memory. A rank that is about to stop
  /// calling progress() must first call it until this is true
  /// (Worker::flush), or a peer could wait forever for bytes still queued
  /// here. Always true in simulation.
  virtual bool flushed() const = 0;

  /// Why this transport can no longer move bytes — a peer gone, a peer
  /// silent past the timeout, a malformed frame — or empty while it works.
  /// Once it is set, every operation returns Error, and by the time
  /// progress() returns every completion still pending has been called with
  /// Error, so nothing waits forever on this transport: the Worker fails its
  /// requests, and the command at the top says why and ends the rank.
  /// Safe from any thread.
  const std::string& failure() const {
    static const std::string none;
    return failed_.load(std::memory_order_acquire) ? failure_ : none;
  }

  /// The size of the message the operations called now belong to, as the
  /// protocol core says it (MessageScope), or 0 when it says none: then an
  /// operation is its own message. The simulator paces the operation's
  /// bytes by it (Path::message_factor, or the lane's own,
  /// LaneAttrs::message_factor, for its transfers); hardware transports
  /// ignore it.
  Bytes message_size() const { return message_size_; }
  /// The peer at the other end of that message: the path whose factor a
  /// copy, which names no peer, takes. Meaningful while message_size() is
  /// not 0.
  Rank message_peer() const { return message_peer_; }

  /// Says, for as long as it lives, that the operations called on a
  /// transport belong to one message of `size` bytes to or from `peer`:
  /// the fragments of a message, its gets, the copies of its bytes, its
  /// control messages. Scopes nest; each restores the one before. Only the
  /// thread that makes the calls other than put_signal() (above) opens one.
  class MessageScope {
   public:
    MessageScope(Transport& transport, Bytes size, Rank peer)
        : transport_(transport), size_(transport.message_size_), peer_(transport.message_peer_) {
      transport_.message_size_ = size;
      transport_.message_peer_ = peer;
    }
    ~MessageScope() {
      transport_.message_size_ = size_;
      transport_.message_peer_ = peer_;
    }
    MessageScope(const MessageScope&) = delete;
    MessageScope& operator=(const MessageScope&) = delete;

   private:
    Transport& transport_;
    Bytes size_;
    Rank peer_;
  };

  static constexpr Seconds kForever = std::numeric_limits<Seconds>::infinity();

 protected:
  /// Records why the transport failed; the first reason stays. Safe from
  /// any thread.
  void fail(std::string reason) {
    bool first = false;
    if (!claimed_.compare_exchange_strong(first, true))
      return;
    failure_ = std::move(reason);
    failed_.store(true, std::memory_order_release);
  }

 private:
  DeviceMemory* device_memory_ = nullptr;
  Bytes message_size_ = 0;
  Rank message_peer_ = 0;
  std::atomic<bool> claimed_{false};
  std::atomic<bool> failed_{false};
  std::string failure_;
};

}  // namespace xover
