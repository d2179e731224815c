// The threads of one rank, for a workload that runs several at once (the
// alltoall: its posting threads, its proxy, the thread that waits for its
// signal), and what their steps cost. A Transport says which kind its rank
// has (Transport::threads()):
//
//   HostThreads   this machine's threads (std::thread); they busy-poll, and
//                 a step costs what it takes
//   sim threads   actors on the rank's simulated host (sim/sim_threads.hpp);
//                 a step costs the platform's figures in simulated time
//
// Code that runs on both writes each step once and says what it costs:
//
//   threads.run(n, [&](std::size_t i) {
//     threads.wait_until(start);
//     threads.spend(device.device_o);   // simulation: o_d; hardware: nothing
//     transport.put_signal(...);        // hardware: what it really costs
//     for (std::uint64_t round = 0; !ready(); ++round) threads.pause(round);
//   });
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>

#include "protocols/lanes/lane.hpp"
#include "protocols/units.hpp"

namespace xover {

class RankThreads {
 public:
  virtual ~RankThreads() = default;

  /// Runs body(i) for i = 0 … count − 1, each on a thread of its own, all at
  /// once, and returns when every one has returned. The bodies share the
  /// rank's Transport as its thread-safety note allows (transport.hpp).
  /// Hardware runs body(0) on the calling thread.
  virtual void run(std::size_t count, const std::function<void(std::size_t)>& body) = 0;
  /// The device figures this rank's steps are charged (simulation: its
  /// node's `xover:device_o`, `threads`, `proxy_o`, `proxy_wake`); none where
  /// a step costs what it takes (hardware).
  virtual std::optional<DeviceAttrs> device() const = 0;
  /// The calling thread works for `t`: simulation sleeps it; hardware does
  /// nothing (the step took its own time).
  virtual void spend(Seconds t) = 0;
  /// The rank's clock, as Transport::now() reads it, from any of its threads.
  virtual Seconds now() const = 0;
  /// The calling thread does nothing until `date` on Transport::now()'s clock
  /// (simulation: it sleeps; hardware: it polls the clock).
  virtual void wait_until(Seconds date) = 0;
  /// The calling thread found nothing new in memory it polls, for the
  /// `round`-th time in a row (0 first). Hardware: a pause instruction, and,
  /// when the run is crowded (below), from round 4096 on a sched_yield, so
  /// that threads that outnumber the cores let the others run; simulation:
  /// it sleeps until another thread of the rank calls notify().
  virtual void pause(std::uint64_t round) = 0;
  /// Says whether the run's threads, all ranks together, outnumber the
  /// machine's cores. Hardware threads yield in pause() only then: with a
  /// core each, a yield would hand it to any other process for a whole time
  /// slice (milliseconds) while a start date or a put is due. Crowded until
  /// told otherwise. Simulation: nothing.
  virtual void set_crowded(bool crowded) = 0;
  /// Wakes the rank's threads in pause() (simulation; hardware threads poll).
  virtual void notify() = 0;
  /// The calling thread called Transport::progress() and what it waits for
  /// has not come, for the `round`-th time in a row. Hardware: as pause();
  /// simulation: nothing, since progress() itself waits for the next event.
  virtual void after_progress(std::uint64_t round) = 0;
};

/// This machine's threads.
class HostThreads final : public RankThreads {
 public:
  /// Rounds of pause() that spin before the first yield.
  static constexpr std::uint64_t kSpinRounds = 4096;

  void run(std::size_t count, const std::function<void(std::size_t)>& body) override;
  std::optional<DeviceAttrs> device() const override { return std::nullopt; }
  void spend(Seconds) override {}
  Seconds now() const override;
  void wait_until(Seconds date) override;
  void pause(std::uint64_t round) override;
  void set_crowded(bool crowded) override { crowded_.store(crowded, std::memory_order_relaxed); }
  void notify() override {}
  void after_progress(std::uint64_t round) override { pause(round); }

 private:
  std::atomic<bool> crowded_{true};
};

}  // namespace xover
