// The GPU's clock against the host's, and the alltoall's figures from the
// stamps each side leaves: o_device from the SM's cycle counter alone
// (clock64: a put takes well under a microsecond, finer than the global
// timer resolves on some GPUs),
// o_proxy from the host's steady clock alone, and W (from a command
// written on the GPU to the proxy seeing it) across the two, through an
// offset estimated as NTP does: a kernel keeps storing its timer into
// pinned host memory, the host reads it between two readings of its own
// clock, and the tightest of several samples gives
//
//   offset = gpu − (before + after) / 2,   uncertain by (after − before) / 2
//
// plus however long the GPU's store takes to reach host memory (about a
// PCIe write, under a microsecond), which this does not see; nor does it
// see a kernel preempted while the host samples (several PEs time-slicing
// one GPU without MPS), whose stale value shifts the offset. Pure: built
// and tested without CUDA.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "protocols/units.hpp"

namespace xover::runtime {

/// One reading of the GPU's timer (ns) between two of the host's (ns).
struct ClockSample {
  std::int64_t host_before = 0;
  std::int64_t gpu = 0;
  std::int64_t host_after = 0;
};

struct ClockOffset {
  std::int64_t gpu_minus_host = 0;  ///< ns
  std::int64_t uncertainty = 0;     ///< ns, half the tightest sample's span
};

/// The offset from the sample with the shortest span (the first of equals).
/// @throws std::invalid_argument for no samples or one whose host readings go backwards.
ClockOffset estimate_offset(std::span<const ClockSample> samples);

/// What one PE's exchange leaves: per put, its SM's cycle counter before
/// and after its work; per command (proxy only), the host's clock
/// when the proxy saw it and when it had issued the copy and the add, and
/// the GPU's when it was written.
struct ExchangeStamps {
  std::vector<std::uint64_t> post_begin, post_end;  ///< SM cycles, one per put
  double sm_cycles_per_second = 1e9;                ///< the SM's clock rate; 0: unknown, no post figures
  std::vector<std::int64_t> seen, served;           ///< host ns, one per command
  std::vector<std::uint64_t> written;               ///< GPU ns, one per command
};

/// The figures of ExchangeResult (alltoall_pe.hpp), in seconds: post per
/// put (o_device), and for the proxy serve (o_proxy) and wake (W) per
/// command, W through `offset`. Stamps that go backwards give 0, never a
/// negative time; a wake below the offset's uncertainty is that close to 0.
struct ExchangeFigures {
  std::vector<Seconds> post, serve, wake;
};
ExchangeFigures exchange_figures(const ExchangeStamps& stamps, const ClockOffset& offset);

}  // namespace xover::runtime
