// The thresholds table of one operation and buffer type (UCX protocols v2):
// probe every protocol, apply the user's overrides, take the lower envelope
// of the candidates' costs and keep <size range, protocol> entries that
// cover 0..SIZE_MAX. A protocol with no usable lanes does not appear.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "protocols/proto.hpp"
#include "protocols/select/select_config.hpp"

namespace xover {

/// A protocol that probed successfully, with its cost ranges clipped to the
/// user's limits. Costs are as the protocol states them; selection multiplies
/// rendezvous costs by `bias` (the seed's d).
struct ProtoChoice {
  const Protocol* protocol = nullptr;
  ProtoCandidate candidate;
  double bias = 1;
};

/// Sizes [from, to] go to choices()[choice].
struct ThresholdRange {
  Bytes from = 0;
  Bytes to = kSizeMax;
  std::size_t choice = 0;
};

class ThresholdTable {
 public:
  /// Probes every protocol of the registry that serves `mem` for `path`.
  /// Throws std::invalid_argument when `config` names an unknown protocol.
  static ThresholdTable build(const Path& path, const SelectConfig& config, MemType mem = MemType::Host);

  /// Covered ranges in size order; sizes no protocol covers are absent.
  const std::vector<ThresholdRange>& ranges() const { return ranges_; }
  /// The protocols that can run, in registry order.
  const std::vector<ProtoChoice>& choices() const { return choices_; }
  /// The lanes toward the peer, per class.
  const EndpointLanes& lanes() const { return lanes_; }
  /// The bandwidth lanes `protocol` moves its bytes on toward the peer (its
  /// lane requirement resolved), whether or not it made the table; empty
  /// when it declares none or no lane meets it.
  const std::vector<LaneShare>& bw_lanes(const Protocol& protocol) const;
  /// The same for the protocol called `name`. Throws std::invalid_argument
  /// when no protocol has that name.
  const std::vector<LaneShare>& bw_lanes(std::string_view name) const;
  PerfType perf() const { return perf_; }
  /// The memory type the table is for.
  MemType mem() const { return mem_; }

  /// The protocol for an n-byte message, or nullptr when none covers n.
  const ProtoChoice* lookup(Bytes n) const;
  /// The cost selection compared for choices()[choice] at n (bias applied);
  /// empty when that protocol does not cover n.
  std::optional<Seconds> selection_cost(std::size_t choice, Bytes n) const;
  /// The same cost as a piecewise function.
  const PiecewiseFunc& selection_cost(std::size_t choice) const { return costs_[choice]; }

 private:
  std::vector<ProtoChoice> choices_;
  std::vector<PiecewiseFunc> costs_;
  std::vector<ThresholdRange> ranges_;
  EndpointLanes lanes_;
  PerfType perf_ = PerfType::Latency;
  MemType mem_ = MemType::Host;
};

}  // namespace xover
