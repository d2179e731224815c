// The monotonic clock (std::chrono::steady_clock) that every timing reads:
// the hardware backends' now() and measurements, the protocol core's host
// threads, the GPU engine's host stamps.
#pragma once

#include <cstdint>

namespace xover {

/// Seconds on the monotonic clock, from an arbitrary fixed start.
double clock_now();

/// The same clock in whole nanoseconds, for stamps set beside a device's
/// integer clock.
std::int64_t clock_now_ns();

}  // namespace xover
