// The driver the two-sided workloads share (pingpong, pairs, stream,
// unexpected): ranks 2i and 2i + 1 form a pair, the even rank leads (it
// times) and the odd one follows (it answers), both check every payload
// unless the scenario's are phantom. The driver visits every curve and
// size, in the rounds of the scenario's Sampling; a workload gives the step
// it takes at each visit.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocols/core/worker.hpp"
#include "protocols/workload/payload.hpp"
#include "protocols/workload/results.hpp"
#include "protocols/workload/scenario.hpp"
#include "protocols/workload/workload.hpp"

namespace xover {

/// One visit of a (curve, size) point: its share of the point's iterations.
struct Visit {
  std::size_t curve = 0;       ///< index into Scenario::curves
  std::size_t size = 0;        ///< index into Scenario::sizes
  std::size_t iterations = 0;  ///< timed iterations of this visit, at least 1
};

/// The visits of a sweep of `curves` × `sizes` points of `iterations` each:
/// `sampling.rounds` rounds (at most `iterations`), each visiting every
/// point once; round r of R gives a point ⌊I·(r+1)/R⌋ − ⌊I·r/R⌋ of its I
/// iterations. One round visits in curve then size order; with more, each
/// round's order is a Fisher–Yates shuffle drawn from a 64-bit Mersenne
/// Twister seeded with `seed` (the same on every rank and every build).
std::vector<Visit> sampling_plan(std::size_t curves, std::size_t sizes, std::size_t iterations,
                                 const Sampling& sampling, std::uint64_t seed);

/// The untimed iterations of each visit of `n` bytes: the scenario's
/// warmup, or enough messages to add up to Sampling::warm_bytes, each
/// counted as max(n, kWarmCell). Both ranks count alike: their tags depend
/// on it.
std::size_t warmup_iterations(const Scenario& scenario, Bytes n);

/// One rank of a pair: its worker, its role, its peer.
class PairDriver {
 public:
  /// What a workload does at one visit of a size, warmup() untimed
  /// iterations then iterations() timed ones: the leader adds its samples
  /// to `point`, both ranks the errors they find.
  using Step = void (*)(PairDriver& driver, Point& point, Bytes n);

  /// `context`'s platform_choices, where there are any, are what the `auto`
  /// curve runs at each size.
  PairDriver(const Scenario& scenario, const RunContext& context, Rank rank, Transport& transport, Results& results);

  /// Every curve, every size its protocol carries, `step` at each visit of
  /// sampling_plan(). The leader gives each point the cost line of `model`
  /// (latency or streaming) at its size, or none.
  void run(Step step, std::optional<PerfType> model);

  /// The untimed iterations of this visit (warmup_iterations()).
  std::size_t warmup() const { return warmup_; }
  /// The timed iterations of this visit.
  std::size_t iterations() const { return iterations_; }

  const Scenario& scenario() const { return s_; }
  Rank rank() const { return rank_; }
  Rank peer() const { return peer_; }
  bool leader() const { return leader_; }
  Worker& worker() { return worker_; }
  /// Where the scenario's payloads live: the transport's device memory for
  /// <payload memory="cuda"/>, else null (host memory).
  DeviceMemory* payload_memory() {
    return s_.memory == MemType::Host ? nullptr : worker_.transport().device_memory();
  }
  Seconds now() const { return t_.now(); }

  /// A tag unique to this size, iteration and `kind` of message (below
  /// 256; 7 is the driver's own ready message), across the visits of the size.
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
  void finish(Point& point, Request* r, Payload& p, std::uint64_t seq_no);

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
  /// What `auto` runs at each size, where a platform chose (RunContext::platform_choices).
  const std::map<Bytes, std::string>& platform_choices_;
  Rank rank_;
  Transport& t_;
  Results& results_;
  /// Flushes on destruction, before the workload's run returns: a peer may
  /// still need the last bytes this rank sent.
  Worker worker_;
  bool leader_ = true;
  Rank peer_ = 1;
  std::size_t size_index_ = 0;
  std::size_t warmup_ = 0;
  std::size_t iterations_ = 0;
  /// Iterations the earlier visits of this point ran, warm-ups included:
  /// its tags and sequence numbers go on from there.
  std::size_t base_ = 0;
  /// Empty, in the payloads' memory: a forced protocol serves one memory type.
  Payload ready_;
};

/// Two ranks: one pair (Workload::ranks).
Rank one_pair(const Scenario& scenario);

/// The curves of a two-sided workload: `auto` or a point-to-point protocol
/// name or prefix from the registry (Workload::curve_error).
std::optional<std::string> pair_curve_error(const Scenario& scenario, std::string_view curve);

}  // namespace xover
