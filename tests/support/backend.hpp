// Running one test body over every backend: a body is what each rank does
// with its Transport, written once; run_ranks() starts the ranks on the
// backend asked for (the SimGrid simulation, shared memory or TCP over the
// loopback) and brings back what went wrong.
//
//   Problems problems = run_ranks(BackendKind::Sim, 2, platform, [](Rank rank, Transport& t, Problems& p) {
//     ...
//     if (bad) p.push_back("what was wrong");
//   });
//   EXPECT_TRUE(problems.empty()) << join(problems);
//
// Ranks may run in other processes (a forked child for SimGrid, which
// allows one platform per process; one process per rank on hardware), where
// a GoogleTest assertion would not reach the test: bodies record what they
// find instead, one line per problem, and the test asserts on the list.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "protocols/core/transport.hpp"

namespace xover::test {

enum class BackendKind {
  Sim,  ///< SimGrid: every rank an actor of one simulation, in a forked child
  Shm,  ///< shared memory: every rank a forked process (runtime::launch_local)
  Tcp,  ///< TCP over the loopback, two connections (two lanes) per peer
};

/// The backend's name, as test names and logs show it: "sim", "shm", "tcp".
std::string backend_name(BackendKind kind);

/// Prints the backend's name where GoogleTest prints a test's parameter.
inline void PrintTo(BackendKind kind, std::ostream* out) {
  *out << backend_name(kind);
}

/// What went wrong in a run, one line each; empty when all went well.
using Problems = std::vector<std::string>;

/// One rank's part of a test: it records what it finds wrong in its Problems.
using RankBody = std::function<void(Rank rank, Transport& transport, Problems& problems)>;

/// Runs `body` on `nranks` ranks of `kind` and returns every rank's problems,
/// each line prefixed "rank R: ". A run that fails as a whole comes back as a
/// problem too: a body that throws, a rank that never returns, a child
/// process that dies, or a platform that does not load.
///
/// Sim: loads `platform_file` with sim::LogGPPlatform::load, puts even ranks
/// on the platform's first node and odd ranks on its second (nodes sorted by
/// name), and runs the ranks as actors, all inside sim::in_child. Caveat:
/// when every rank waits for a request that never completes, SimGrid 3.32
/// reports "Deadlock detected" on stderr and aborts the child, which comes
/// back as "the run failed: ... signal 6".
///
/// Shm, Tcp: `platform_file` is not used; ranks are processes started by
/// runtime::launch_local, wired up by the backend, with a 20 s timeout for
/// a silent peer and 300 s for the whole run. The body's Transport reports
/// fixed figures for the lanes (SteadyFigures), so the protocol each size
/// takes is the same on every run. A rank that fails comes back as "the run
/// failed: ..." with the launcher's account.
Problems run_ranks(BackendKind kind, Rank nranks, const std::string& platform_file, const RankBody& body);

/// The problems, one per line, for a failure message.
std::string join(const Problems& problems);

}  // namespace xover::test
