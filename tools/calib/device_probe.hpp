// The alltoall's device figures on this machine, for `xover calibrate`
// (platforms/README.md: xover:device_o, xover:proxy_o, xover:proxy_wake):
//
//   o_device  a posting thread's time per put_signal of 8 bytes (the
//             direct flavour's stage 1), the median of `puts` calls made
//             20 us apart, as an exchange's few puts per thread are: several
//             times a burst's (o_device_burst, back to back), whose caches
//             and kernel paths stay warm
//   o_proxy   the proxy's time per command, from seeing it in the ring to
//             having posted its put_signal and published its progress
//             (stage 2), the median
//   W         from a command written (its stamp) to the proxy seeing it,
//             the median over commands written one at a time, each once
//             the proxy is idle again: a wake-up, not a queue
//
// Rank 0 measures, with its main thread posting and a second thread as the
// proxy (cmd_ring.hpp), toward rank 1, which meanwhile sleeps in the
// bootstrap's barrier; rank 0 takes every core for the time (the launcher
// pinned it to one), so that on two cores the poster and the proxy have one
// each. Rank 1 then checks that its signal word shows every put.
#pragma once

#include "protocols/core/transport.hpp"
#include "runtime/bootstrap.hpp"

namespace xover::calib {

struct DeviceFigures {
  Seconds device_o = 0;
  Seconds device_o_burst = 0;
  Seconds proxy_o = 0;
  Seconds proxy_wake = 0;
  std::size_t puts = 0;  ///< put_signals timed in each figure
};

/// Collective between ranks 0 and 1 of `boot` and `t`: the figures above
/// (at rank 0; zeroes at rank 1).
/// @throws runtime::RuntimeError when no lane carries put_signal, a put
/// fails, or rank 1's signal word does not show every put.
DeviceFigures probe_device(Transport& t, runtime::Bootstrap& boot, std::size_t puts);

}  // namespace xover::calib
