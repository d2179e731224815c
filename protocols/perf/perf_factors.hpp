// A protocol's cost split into named factors, after UCX's proto_perf.
//
// Each factor is the time one resource spends on one message, as a line in
// the message size. A single message pays them all one after the other, so
// its latency is their sum. Back-to-back messages overlap on different
// resources, so a stream is paced by the busiest resource: the largest factor
// other than latency. The network factor of a stream never drops below the
// NIC's gap g (LogGP: one injection per g at most).
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

#include "protocols/perf/envelope.hpp"
#include "protocols/perf/linear_func.hpp"

namespace xover {

enum class Factor : std::size_t {
  LocalCpu,   ///< sender's CPU: posting, copies, registration
  RemoteCpu,  ///< receiver's CPU: taking messages in, copies, registration
  Network,    ///< time the bytes occupy the NICs and wires
  Latency,    ///< wire latency: delays, but occupies no resource
};
inline constexpr std::size_t kFactorCount = 4;

std::string_view factor_name(Factor f);

/// Whether selection optimises one message's latency or a stream's rate.
enum class PerfType {
  Latency,    ///< sum of the factors: what a ping-pong measures
  Streaming,  ///< largest non-latency factor: what a windowed stream measures
};

struct PerfFactors {
  std::array<LinearFunc, kFactorCount> f{};
  Seconds gap = 0;  ///< floor of the network factor for back-to-back messages

  LinearFunc& operator[](Factor k) { return f[static_cast<std::size_t>(k)]; }
  const LinearFunc& operator[](Factor k) const { return f[static_cast<std::size_t>(k)]; }

  /// Two steps one after the other: factors add, the larger gap holds.
  PerfFactors operator+(const PerfFactors& o) const;
  PerfFactors& operator+=(const PerfFactors& o) { return *this = *this + o; }

  /// One message alone: the sum of the factors.
  LinearFunc single() const;
  /// Back-to-back messages on [from, to]: max(local, remote, max(network, gap)).
  PiecewiseFunc streaming(Bytes from, Bytes to) const;
  /// The cost under `type` on [from, to].
  PiecewiseFunc cost(PerfType type, Bytes from, Bytes to) const;
  /// Every factor multiplied by `k` (the rendezvous bias of the seed's `d`).
  PerfFactors scaled(double k) const;

  bool operator==(const PerfFactors&) const = default;
};

}  // namespace xover
