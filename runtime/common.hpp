// What every hardware backend shares, written once so that each backend
// measures and watches the same way: the clock (clock_now(), from
// base/clock.hpp), the host's name, the round-robin schedule of the pairwise
// wire-up measurements, the copy bandwidth probe, and the watch on peers
// that fall silent.
#pragma once

#include <string>

#include "base/clock.hpp"
#include "protocols/core/transport.hpp"

namespace xover::runtime {

/// This machine's host name; "localhost" when it has none.
std::string host_name();

/// The cores this machine has online, at least 1.
unsigned node_cores();

/// What a run of `ranks` ranks of `threads` threads each on `cores` cores
/// says when they outnumber the cores ("oversubscribed: 8 ranks × 3
/// threads on 2 cores"), or empty when they do not.
std::string oversubscription(Rank ranks, std::uint32_t threads, unsigned cores);

/// The rounds of a round-robin over `size` ranks (the circle method): every
/// pair meets exactly once, each round is a matching. size − 1 rounds for an
/// even size, size for an odd one (each rank sits one out).
Rank round_robin_rounds(Rank size);

/// The partner of `rank` in round `round` (< round_robin_rounds(size)) of
/// that round-robin; `size` or more when `rank` sits this round out.
Rank round_robin_partner(Rank rank, Rank size, Rank round);

/// The block memcpy_bw is measured with: past a core's L2, the pace of the
/// copies of a large message.
inline constexpr Bytes kMemcpyProbeBytes = Bytes{4} << 20;

/// Timed runs of a wire-up's bandwidth probe, of which the median is
/// taken: the best of a few moved with the machine's fast spells, and two
/// runs on one machine then chose different protocols at the same size.
inline constexpr int kBandwidthRuns = 7;

/// This core's memcpy bandwidth: the median of kBandwidthRuns copies of
/// kMemcpyProbeBytes after one that faults the pages in. Every backend's
/// Path::memcpy_bw_local comes from here, so lanes of different backends on
/// one machine are priced alike.
BytesPerSecond measure_memcpy();

/// How long a rank has waited with nothing moving, for the timeout on
/// silent peers. Idleness counts only while the rank keeps polling: a gap
/// of more than kBusyGap between two looks means it was busy elsewhere
/// (computing, checking payloads), which is no fault of its peers, and
/// idleness starts again.
class IdleWatch {
 public:
  static constexpr Seconds kBusyGap = 0.5;

  explicit IdleWatch(Seconds timeout) : timeout_(timeout) {}

  /// Starts afresh at `now`: what came before (the wire-up) is not idleness.
  void restart(Seconds now) { idle_since_ = last_look_ = now; }
  /// A look at `now`, `moved` telling whether anything was sent or arrived
  /// since the previous look. Returns how long the rank has been idle.
  Seconds look(Seconds now, bool moved) {
    if (moved || now - last_look_ > kBusyGap)
      idle_since_ = now;
    last_look_ = now;
    return now - idle_since_;
  }
  /// True once `idle` (from look()) has reached the timeout.
  bool expired(Seconds idle) const { return idle >= timeout_; }
  Seconds timeout() const { return timeout_; }

 private:
  Seconds timeout_;
  Seconds idle_since_ = 0;
  Seconds last_look_ = 0;
};

}  // namespace xover::runtime
