// The CPU proxy of the PE group's proxy flavour (IBRC, after NVSHMEM's
// proxy channel): the kernel's posting threads write put_signal commands
// into the PE's command ring in pinned host memory (cuda_ring_writer.hpp,
// protocols/coll/cmd_ring.hpp's format), and this PE's proxy thread, made
// at set-up (ProxyThread), takes them in ring order, checks each, and posts
// it as a work request into the PE's queue of the engine
// (cuda_engine_queue.hpp, a queue in pinned host memory the engine block
// polls at system scope): only the initiator changes, the engine moves the
// bytes and adds the signal as in the engine flavour. Needs no CUDA: the
// tests run it against CPU threads playing the kernel's posters and the
// engine.
//
//   ProxyForwarder fwd(ring, queue, limits, me);
//   proxy.start([&] { return fwd.serve(P - 1, 10.0); });   // each exchange
//
// Each command's slot is published free once its words are read; a
// malformed one is counted, its first reason kept, and never posted. The
// engine's doorbell is rung once after each burst of commands the ring
// held, and before the proxy waits for room in the engine's queue (so that
// the requests it waits behind are rung).
#pragma once

#include <cstdint>
#include <string>

#include "protocols/coll/cmd_ring.hpp"
#include "protocols/units.hpp"
#include "runtime/cuda/cuda_engine_queue.hpp"

namespace xover::runtime {

class ProxyForwarder {
 public:
  /// Commands from `ring` (PE `me`'s, laid out), checked against `limits`
  /// (offsets in the heap's slices: local_base 0), posted into `queue`.
  ProxyForwarder(CommandRing ring, EngineQueue queue, CommandLimits limits, std::uint32_t me);

  /// Takes every command written from where it stopped and forwards it,
  /// waiting for room in the engine's queue until `deadline_ns` (on
  /// steady_clock); returns how many it took, good or refused.
  std::uint64_t forward_ready(std::uint64_t deadline_ns);
  /// Forwards until `count` more commands are taken; empty, or why not
  /// after `timeout` (the job a ProxyThread runs each exchange).
  std::string serve(std::uint64_t count, Seconds timeout);

  std::uint64_t forwarded() const { return forwarded_; }
  std::uint64_t refused() const { return refused_; }
  /// The first refused command's reason ("position N: …"), or empty.
  const std::string& first_error() const { return first_error_; }

 private:
  /// Posts one request; false when the deadline passed while it waited for
  /// room.
  bool post(const WorkRequest& r, std::uint64_t deadline_ns);

  CommandRing ring_;
  EngineQueue queue_;
  CommandLimits limits_;
  std::uint32_t me_ = 0;
  std::uint64_t next_ = 0;    ///< the ring's next position to take
  std::uint64_t cached_ = 0;  ///< the engine's progress in the queue, as last read
  std::uint64_t unrung_ = 0;  ///< one past the last request posted (rung or not)
  std::uint64_t forwarded_ = 0;
  std::uint64_t refused_ = 0;
  std::string first_error_;
  bool stuck_ = false;  ///< a post gave up: the queue holds a reserved, unwritten position
};

}  // namespace xover::runtime
