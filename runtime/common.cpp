#include "runtime/common.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "protocols/workload/results.hpp"

namespace xover::runtime {

unsigned node_cores() {
  const unsigned n = std::thread::hardware_concurrency();
  return n > 0 ? n : 1;
}

std::string oversubscription(Rank ranks, std::uint32_t threads, unsigned cores) {
  if (std::uint64_t{ranks} * threads <= cores)
    return "";
  return "oversubscribed: " + std::to_string(ranks) + " ranks × " + std::to_string(threads) + " thread" +
         (threads == 1 ? "" : "s") + " on " + std::to_string(cores) + " core" + (cores == 1 ? "" : "s");
}

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0 || name[0] == '\0')
    return "localhost";
  return name;
}

Rank round_robin_rounds(Rank size) {
  return size % 2 == 0 ? size - 1 : size;
}

Rank round_robin_partner(Rank rank, Rank size, Rank round) {
  // The circle method over an even count m: player m − 1 stays put, the
  // others turn one place per round. With an odd size, player m − 1 = size
  // is nobody, and whoever meets it sits the round out.
  const Rank m = size % 2 == 0 ? size : size + 1;
  if (rank == m - 1)
    return round;
  if (rank == round)
    return m - 1;
  return static_cast<Rank>((2 * std::uint64_t{round} + (m - 1) - rank) % (m - 1));
}

BytesPerSecond measure_memcpy() {
  std::vector<std::byte> src(kMemcpyProbeBytes, std::byte{1});
  std::vector<std::byte> dst(kMemcpyProbeBytes);
  std::vector<double> times;
  for (int i = 0; i <= kBandwidthRuns; ++i) {  // the first one only faults the pages in
    const Seconds t0 = clock_now();
    std::memcpy(dst.data(), src.data(), kMemcpyProbeBytes);
    const Seconds t = clock_now() - t0;
    if (i > 0)
      times.push_back(t);
    src[static_cast<std::size_t>(i)] = dst[kMemcpyProbeBytes - 1 - static_cast<std::size_t>(i)];
  }
  return static_cast<double>(kMemcpyProbeBytes) / std::max(quantile(times, 0.5), 1e-9);
}

}  // namespace xover::runtime
