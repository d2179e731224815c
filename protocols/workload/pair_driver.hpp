// The driver the two-sided workloads share (pingpong, pairs, stream,
// unexpected): ranks 2i and 2i + 1 form a pair, the even rank leads (it
// times) and the odd one follows (it answers), both check every payload
// unless the scenario's are phantom. The driver walks every curve and
// size; a workload gives the step it takes at each size.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "protocols/core/worker.hpp"
#include "protocols/workload/payload.hpp"
#include "protocols/workload/results.hpp"
#include "protocols/workload/scenario.hpp"

namespace xover {

/// One rank of a pair: its worker, its role, its peer.
class PairDriver {
 public:
  /// What a workload does at one size, warm-up and timed iterations
  /// included: the leader adds its samples to `point`, both ranks the
  /// errors they find.
  using Step = void (*)(PairDriver& driver, Point& point, Bytes n);

  PairDriver(const Scenario& scenario, Rank rank, Transport& transport, Results& results);

  /// Every curve, every size its protocol carries, `step` at each. The
  /// leader gives each point the cost line of `model` (latency or
  /// streaming) at its size, or none.
  void run(Step step, std::optional<PerfType> model);

  const Scenario& scenario() const { return s_; }
  Rank rank() const { return rank_; }
  Rank peer() const { return peer_; }
  bool leader() const { return leader_; }
  Worker& worker() { return worker_; }
  Seconds now() const { return t_.now(); }

  /// A tag unique to this size, iteration and `kind` of message (below
  /// 256; 7 is the driver's own ready message).
  Tag tag(std::size_t iteration, std::uint64_t kind) const;
  /// A message number unique to this size, iteration and `index`, for payload_byte.
  std::uint64_t seq(std::size_t iteration, std::size_t index = 0) const;

  // Payloads are filled before the clock starts and checked after it
  // stops; on hardware, a check of megabytes would otherwise be timed.

  /// Sends `p` to the peer and waits until it is sent.
  void send(const Payload& p, Tag tag);
  /// Posts a receive into `p`.
  Request* post(Payload& p, Tag tag);
  /// Waits for a posted receive, then checks what it got (message `seq_no`
  /// of the peer) and releases it; a failure is an error of `point`.
  void finish(Point& point, Request* r, const Payload& p, std::uint64_t seq_no);

  // When payloads are checked, the follower says it is ready (its receives
  // posted, its last check done) before the leader starts the clock, so
  // that no timed message waits behind a check. Phantom runs check
  // nothing and skip it.

  /// Follower: says it is ready for `iteration`.
  void signal_ready(std::size_t iteration);
  /// Leader: waits until the follower is ready for `iteration`.
  void wait_ready(Point& point, std::size_t iteration);

 private:
  const Scenario& s_;
  Rank rank_;
  Transport& t_;
  Results& results_;
  /// Flushes on destruction, before the workload's run returns: a peer may
  /// still need the last bytes this rank sent.
  Worker worker_;
  bool leader_ = true;
  Rank peer_ = 1;
  std::size_t size_index_ = 0;
  Payload ready_{0, false};
};

/// Two ranks: one pair (Workload::ranks).
Rank one_pair(const Scenario& scenario);

/// The curves of a two-sided workload: `auto` or a point-to-point protocol
/// name or prefix from the registry (Workload::curve_error).
std::optional<std::string> pair_curve_error(const Scenario& scenario, std::string_view curve);

}  // namespace xover
