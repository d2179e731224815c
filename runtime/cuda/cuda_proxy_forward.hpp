// The CPU proxy of the PE group's proxy flavour (IBRC, after NVSHMEM's
// proxy channel): the kernel's posting threads write put_signal commands
// into the PE's command ring in pinned host memory (cuda_ring_writer.hpp,
// protocols/coll/cmd_ring.hpp's format), and this PE's proxy thread, made
// at set-up (ProxyThread), takes them in ring order, checks each, and posts
// it as a work request into a sink: the PE's queue of the engine
// (EngineQueueSink: cuda_engine_queue.hpp, a queue in pinned host memory
// the engine block polls at system scope; only the initiator changes, the
// engine moves the bytes and adds the signal as in the engine flavour), or
// the copy engine (cuda_pe_engine_state.cpp: cudaMemcpyAsync and a signal
// add on the PE's stream). Needs no CUDA: the tests run it against CPU
// threads playing the kernel's posters and the engine.
//
//   ProxyForwarder fwd(ring, limits, me);
//   EngineQueueSink sink(queue);
//   proxy.start([&] { return fwd.serve(sink, P - 1, 10.0); });   // each exchange
//
// Each command's slot is published free once its words are read; a
// malformed one is counted, its first reason kept, and never posted. The
// sink is flushed once after each burst of commands the ring held.
#pragma once

#include <cstdint>
#include <string>

#include "protocols/coll/cmd_ring.hpp"
#include "protocols/units.hpp"
#include "runtime/cuda/cuda_engine_queue.hpp"

namespace xover::runtime {

/// Nanoseconds on steady_clock: the proxies' deadlines.
std::uint64_t proxy_clock_ns();

/// Where a proxy's checked requests go.
class ProxySink {
 public:
  virtual ~ProxySink() = default;
  /// Hands `r` on; false when `deadline_ns` (proxy_clock_ns) passed while
  /// it waited for room.
  virtual bool post(const WorkRequest& r, std::uint64_t deadline_ns) = 0;
  /// After a burst of posts: every request posted is made visible.
  virtual void flush() = 0;
  /// Why post() last returned false.
  virtual std::string problem() const = 0;
};

/// The engine's queue of the PE, at system scope: a request is written
/// into it, the doorbell rung by flush() and before a wait for room (so
/// that the requests it waits behind are rung).
class EngineQueueSink final : public ProxySink {
 public:
  explicit EngineQueueSink(EngineQueue queue) : queue_(queue) {}
  bool post(const WorkRequest& r, std::uint64_t deadline_ns) override;
  void flush() override;
  std::string problem() const override { return "the engine's queue stayed full past the deadline"; }

 private:
  EngineQueue queue_;
  std::uint64_t cached_ = 0;  ///< the engine's progress in the queue, as last read
  std::uint64_t unrung_ = 0;  ///< one past the last request posted (rung or not)
};

class ProxyForwarder {
 public:
  /// Commands from `ring` (PE `me`'s, laid out), checked against `limits`
  /// (offsets in the heap's slices: local_base 0).
  ProxyForwarder(CommandRing ring, CommandLimits limits, std::uint32_t me);

  /// Takes every command written from where it stopped and posts it into
  /// `sink`, which may wait for room until `deadline_ns`; flushes the sink
  /// after them; returns how many it took, good or refused.
  std::uint64_t forward_ready(ProxySink& sink, std::uint64_t deadline_ns);
  /// Forwards into `sink` until `count` more commands are taken; empty, or
  /// why not after `timeout` (the job a ProxyThread runs each exchange).
  std::string serve(ProxySink& sink, std::uint64_t count, Seconds timeout);

  std::uint64_t forwarded() const { return forwarded_; }
  std::uint64_t refused() const { return refused_; }
  /// The first refused command's reason ("position N: …"), or empty.
  const std::string& first_error() const { return first_error_; }

 private:
  CommandRing ring_;
  CommandLimits limits_;
  std::uint32_t me_ = 0;
  std::uint64_t next_ = 0;  ///< the ring's next position to take
  std::uint64_t forwarded_ = 0;
  std::uint64_t refused_ = 0;
  std::string first_error_;
  bool stuck_ = false;  ///< a post gave up: its sink is dead until the group is zeroed again
};

}  // namespace xover::runtime
