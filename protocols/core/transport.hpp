// The Transport: everything that differs between the simulation and the
// hardware backends sits behind this interface, after UCT. Non-blocking,
// completion by callback, progress-driven; the data path never throws.
//
// In simulation progress() advances simulated time to the next event and
// every cost (o_send, o_recv, copies, registration, the NIC's gap) is paid in
// simulated time inside these calls; on hardware progress() polls once and
// the costs are real.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <string>

#include "protocols/lanes/lane.hpp"

namespace xover {

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

  /// Registers a buffer with the memory domain of the lane to `peer`; pays
  /// the registration cost (real on hardware, reg_cost + n·reg_growth in
  /// simulation).
  virtual MemoryRegion reg(Rank peer, std::size_t lane, const std::byte* base, Bytes size) = 0;
  /// Releases a registration made by reg().
  virtual void dereg(const MemoryRegion& region) = 0;
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
  const std::string& failure() const { return failure_; }

  static constexpr Seconds kForever = std::numeric_limits<Seconds>::infinity();

 protected:
  /// Records why the transport failed; the first reason stays.
  void fail(std::string reason) {
    if (failure_.empty())
      failure_ = std::move(reason);
  }

 private:
  std::string failure_;
};

}  // namespace xover
