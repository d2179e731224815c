// Helpers of the TCP transport tests (tcp_transport_test.cpp,
// tcp_faults_test.cpp): ranks in forked children over a TCP transport on the
// loopback, byte patterns, little-endian headers.
#pragma once

#include <chrono>
#include <functional>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include "runtime/launch/launch.hpp"
#include "runtime/tcp/tcp_transport.hpp"

namespace xover::runtime::tcp_test {

using Body = std::function<std::string(LocalBootstrap&, Transport&)>;
using Clock = std::chrono::steady_clock;

inline constexpr AmId kData = 7;
inline constexpr AmId kKeys = 8;
inline constexpr AmId kCheck = 9;
inline constexpr AmId kVerdict = 10;
inline constexpr AmId kDone = 11;

struct Outcome {
  LaunchResult result;
  Seconds seconds = 0;
  /// The launcher's message and every rank's report.
  std::string all() const;
};

/// Progresses until `done()` or 30 s; false on the latter.
template <typename F>
bool progress_until(Transport& t, F done) {
  const auto limit = Clock::now() + std::chrono::seconds(30);
  while (!done()) {
    if (Clock::now() > limit)
      return false;
    t.progress();
  }
  return true;
}

/// Runs `body` on each of `n` ranks over a TCP transport; each rank reports
/// what it found wrong, then serves its peers until each says it is done too
/// (a rank waiting for a get needs the target to progress).
Outcome run_tcp(Rank n, const Body& body, const RuntimeOptions& options = {}, const TcpTestHooks& hooks = {});

std::byte pattern(std::uint64_t seed, std::uint64_t i);
std::vector<std::byte> filled(std::uint64_t seed, std::size_t n);
/// Little-endian u64s, as the tests' headers.
std::vector<std::byte> u64s(std::initializer_list<std::uint64_t> values);
/// The i-th u64 of a header; 0 when it is too short.
std::uint64_t u64_at(std::span<const std::byte> b, std::size_t i);
/// Sends an active message, waiting out back-pressure.
Status send_am(Transport& t, std::size_t lane, Rank peer, AmId id, std::span<const std::byte> header,
               ConstBuffer payload, AmMode mode, Completion done);

}  // namespace xover::runtime::tcp_test
