// Private to SimTransport: starting a host-to-host transfer, shared by its
// data path (sim_transport.cpp) and its wake-up machinery (sim_wakeup.cpp).
#pragma once

#include <simgrid/s4u.hpp>

#include <vector>

#include "protocols/units.hpp"

namespace xover::sim::detail {

/// Starts moving `bytes` from `src` to `dst` in `comm` (a transfer made by
/// Comm::sendto_init() and not started yet), at `rate` when it is not 0
/// (L + bytes/rate on a free link), else at the links' bandwidth: what
/// Comm::sendto_async() does, in a transfer made beforehand.
simgrid::s4u::CommPtr transfer(simgrid::s4u::CommPtr comm, simgrid::s4u::Host* src, simgrid::s4u::Host* dst,
                               Bytes bytes, double rate);
/// The same in a new transfer.
simgrid::s4u::CommPtr transfer(simgrid::s4u::Host* src, simgrid::s4u::Host* dst, Bytes bytes, double rate);

/// Host-to-host transfers made by a waiting rank and never started: SimGrid
/// 3.32 keeps an unstarted one on the maestro's activity list for good (only
/// its end takes it off, and cancel() does not end one), so the slot a rank
/// holds when its body ends comes here, for the next rank that arms one.
/// Never freed: its transfers outlive every network, and the engine too.
std::vector<simgrid::s4u::CommPtr>& spare_slots();

}  // namespace xover::sim::detail
