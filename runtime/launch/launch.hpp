// Starting the ranks of a hardware run on this node and watching over them,
// as mpirun would: fork (and exec, for `xover run`), give each rank cores of
// its own when there are enough, serve the bootstrap (local_bootstrap.hpp),
// and when one rank fails, stop the others (SIGTERM, then SIGKILL two seconds
// later) and unlink the shared-memory segments of the run.
//
//   LaunchResult r = launch_local(2, {}, [](LocalBootstrap& boot) { ...; return 0; });
//   if (!r.ok) std::cerr << r.message;
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "runtime/launch/local_bootstrap.hpp"

namespace xover::runtime {

struct LaunchOptions {
  /// Exec this command line in each rank (argv[0] a path); empty: the rank
  /// runs the given function in the forked child.
  std::vector<std::string> command;
  /// When ranks × threads_per_rank ≤ the cores this process may use, pin
  /// rank r to the threads_per_rank cores from r·threads_per_rank on, so
  /// that each thread has a core of its own. Fewer cores: no pinning, since
  /// two busy-polling ranks pinned to one core wait a whole time slice (4 ms
  /// and more) for each other, where the scheduler, free to move them, does
  /// better.
  bool pin = true;
  /// Threads each rank runs at once (Workload::threads).
  std::uint32_t threads_per_rank = 1;
  /// Give up on the whole run after this long (0: never). The ranks' own
  /// timeouts normally end a hung run first.
  Seconds deadline = 0;
};

struct LaunchResult {
  bool ok = false;               ///< every rank exited with status 0
  std::string message;           ///< what failed, one line per rank that did
  std::vector<int> exit_status;  ///< per rank: its exit status, or 128+signal
  std::vector<std::string> reports;  ///< per rank: what it report()ed
};

/// Starts `size` ranks, serves their collectives until every one has
/// exited, and says how they ended. Without a command, each child runs
/// `rank_main` and exits with what it returns (127 when it throws).
/// @throws RuntimeError when the ranks cannot be started.
LaunchResult launch_local(Rank size, const LaunchOptions& options,
                          const std::function<int(LocalBootstrap&)>& rank_main = {});

/// The prefix of every shared-memory name of the run `job`:
/// "/xover-JOB-"; the launcher unlinks every name under it when it ends.
std::string shm_prefix(const std::string& job);

}  // namespace xover::runtime
