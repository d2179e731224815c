// What a hardware rank leaves behind when it fails: nothing. The data path
// never throws; a transport that finds a peer dead (a closed socket, a
// vanished process) or silent past the timeout fails (Transport::failure()),
// the protocol core fails its requests, and the command at the top prints
// one line and exits with kExitPeerLost. The launcher (launch/launch.hpp),
// or mpirun, then stops the other ranks. Shared-memory names a rank created
// are unlinked when it is stopped by a signal, and by the launcher after it.
#pragma once

#include <string>

#include "protocols/core/transport.hpp"

namespace xover::runtime {

/// Exit status of a rank that gave up on its peers.
inline constexpr int kExitPeerLost = 3;

/// Remembers a shared-memory name to unlink when the rank is stopped by
/// SIGTERM, SIGINT or SIGHUP (the handlers are installed on first use). At
/// most 64 names; forget_shm() when it is unlinked normally.
void unlink_shm_on_stop(const std::string& name);
void forget_shm(const std::string& name);

/// Tells whether `pid` is still alive (not a zombie) on this node.
bool process_alive(int pid);

}  // namespace xover::runtime
