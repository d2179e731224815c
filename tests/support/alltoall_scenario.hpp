// The alltoall scenario the backend and simulation tests share: P PEs on
// the contention-free star of platforms/alltoall-star.xml, every curve.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "protocols/workload/alltoall.hpp"
#include "protocols/workload/scenario.hpp"
#include "protocols/workload/workload.hpp"
#include "protocols/workload/workloads.hpp"

namespace xover::test {

inline std::string star() {
  return std::string(XOVER_SOURCE_DIR) + "/platforms/alltoall-star.xml";
}

/// An alltoall of `pes` PEs with `threads` posting threads each, every curve.
inline Scenario alltoall_scenario(std::uint32_t pes, std::uint32_t threads, std::vector<Bytes> sizes) {
  Scenario s;
  s.name = "alltoall-test";
  s.platform = star();
  s.workload = &alltoall_workload;
  s.settings = AlltoallSettings{.pes = pes, .threads = threads};
  s.sizes = std::move(sizes);
  s.curves = {"auto", "coll/alltoall/proxy", "coll/alltoall/direct"};
  s.iterations = 2;
  s.warmup = 1;
  s.seed = 5;
  return s;
}

/// What a hardware run of it prices with (a simulation charges its node's own).
inline RunContext alltoall_context(std::uint32_t threads) {
  return {.device = DeviceAttrs{0.5e-6, threads, 1.5e-6, 3e-6}};
}

}  // namespace xover::test
