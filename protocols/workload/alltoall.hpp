// The alltoall's settings (alltoall.cpp): what <workload kind="alltoall">
// says, which the simulator's batched path reads too (sim/alltoall_sim.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

namespace xover {

struct AlltoallSettings {
  /// The PEs, on the platform's first `pes` nodes in natural order (pe2
  /// before pe10); at least 2.
  std::uint32_t pes = 2;
  /// Device threads posting at once, overriding the platform's `xover:threads`.
  std::optional<std::uint32_t> threads;
  /// Puts per simulated flow (1: one flow per put); 0 chooses
  /// (sim/alltoall_sim.hpp, alltoall_batch()).
  std::size_t batch = 0;
};

}  // namespace xover
