// What a hardware rank does when its peers fail it: say so and stop, leaving
// nothing behind. The data path never throws; a rank that finds a peer dead
// (a closed socket, a vanished process) or silent past the timeout calls
// abort_rank(), which prints one line, unlinks what the rank created and
// exits with kExitPeerLost. The launcher (launch.hpp), or mpirun, then stops
// the other ranks.
#pragma once

#include <string>

#include "protocols/core/transport.hpp"

namespace xover::runtime {

/// Exit status of a rank that gave up on its peers.
inline constexpr int kExitPeerLost = 3;

/// Prints "xover: rank R: what" on stderr, runs the cleanups and exits
/// with kExitPeerLost. Never returns.
[[noreturn]] void abort_rank(Rank rank, const std::string& what);

/// Remembers a shared-memory name to unlink when the rank aborts or is
/// stopped by SIGTERM, SIGINT or SIGHUP (the handlers are installed on first
/// use). At most 64 names; forget_shm() when it is unlinked normally.
void unlink_shm_on_abort(const std::string& name);
void forget_shm(const std::string& name);

/// Tells whether `pid` is still alive (not a zombie) on this node.
bool process_alive(int pid);

}  // namespace xover::runtime
