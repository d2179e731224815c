// A simulated rank's threads (protocols/core/threads.hpp): actors on the
// rank's host, whose steps cost its node's device figures in simulated
// time. SimGrid runs one actor at a time, so they share the rank's
// SimTransport without locks; a thread that waits for another (pause) sleeps
// until that one calls notify().
#pragma once

#include <simgrid/s4u.hpp>

#include "protocols/core/threads.hpp"

namespace xover::sim {

class SimThreads final : public RankThreads {
 public:
  /// `name` prefixes the actors' names ("rank3" gives "rank3.t0", ...).
  SimThreads(simgrid::s4u::Host* host, DeviceAttrs device, std::string name);

  /// Starts the actors at the caller's date and joins them; a body that
  /// throws has its exception thrown here once all have returned.
  void run(std::size_t count, const std::function<void(std::size_t)>& body) override;
  std::optional<DeviceAttrs> device() const override { return device_; }
  void spend(Seconds t) override;
  Seconds now() const override;
  void wait_until(Seconds date) override;
  /// Sleeps until notify(), or kPauseLimit at most: a thread left waiting
  /// for a writer that will never come must not read as a deadlock.
  void pause(std::uint64_t round) override;
  void notify() override;
  void set_crowded(bool) override {}
  void after_progress(std::uint64_t) override {}

  static constexpr Seconds kPauseLimit = 1e-3;

 private:
  simgrid::s4u::Host* host_;
  DeviceAttrs device_;
  std::string name_;
  /// Made by the first pause(): a rank whose threads never wait for each
  /// other (most, in a large run) keeps none.
  simgrid::s4u::MutexPtr mutex_;
  simgrid::s4u::ConditionVariablePtr changed_;
};

}  // namespace xover::sim
