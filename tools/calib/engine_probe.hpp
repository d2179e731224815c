// The alltoall's device figures from a backend's engine for device memory
// (DeviceAlltoall: the cuda backend's GPU PEs), for `xover calibrate`,
// where the backend offers one (its row's device_alltoall), in place of
// device_probe.hpp's put_signals from host threads:
//
//   o_device  a posting thread's time per put (the direct flavour's store,
//             fence and signal add on the GPU), the median over every put
//   o_proxy   the CPU proxy's time per command (from seeing it to having
//             issued its copy and signal add), the median
//   W         from a command written on the GPU to the proxy seeing it, the
//             median (across the GPU's clock and the host's)
//
// over `exchanges` exchanges of 8 bytes at P = 2 in each flavour, after a
// tenth as many untimed, every byte and signal checked. Both ranks take
// part; rank 0's figures are its own puts' and commands'.
#pragma once

#include "protocols/coll/device_alltoall.hpp"
#include "runtime/bootstrap.hpp"
#include "tools/calib/device_probe.hpp"

namespace xover::calib {

/// Collective over ranks 0 and 1 of `boot` and `t`: the figures above, each
/// rank its own; device_o_burst is device_o (a GPU's threads post once per
/// exchange).
/// @throws runtime::RuntimeError when an exchange does not complete or a
/// byte or signal is wrong, with the engine's reason.
DeviceFigures probe_device_engine(DeviceAlltoallMaker make, Transport& t, runtime::Bootstrap& boot,
                                  std::size_t exchanges);

}  // namespace xover::calib
