// Running one test body over every backend: a body is what each rank does
// with its Transport, written once; run_ranks() starts the ranks on the
// backend asked for (any row of runtime/backends.hpp: the SimGrid
// simulation, shared memory, TCP over the loopback, ...) and brings back
// what went wrong. Suites take every backend as their parameter and skip,
// with the reason, those this build or machine cannot run.
//
//   INSTANTIATE_TEST_SUITE_P(Backends, Suite, ::testing::ValuesIn(test::all_backends()), test::param_name);
//   if (const std::string why = test::unavailable(GetParam()); !why.empty()) GTEST_SKIP() << why;
//   Problems problems = run_ranks("sim", 2, platform, [](Rank rank, Transport& t, Problems& p) {
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

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "protocols/core/transport.hpp"

namespace xover::test {

/// Every backend's name, in the table's order: the simulator, then the
/// hardware backends, compiled in or not.
std::vector<std::string> all_backends();
/// The hardware backends' names.
std::vector<std::string> hardware_backends();
/// Why `backend` cannot run in this build or on this machine, as
/// "backend NAME: reason" for GTEST_SKIP(); empty when it can.
std::string unavailable(const std::string& backend);
/// The parameter's name in test names: the backend's.
inline std::string param_name(const ::testing::TestParamInfo<std::string>& info) {
  return info.param;
}

/// What went wrong in a run, one line each; empty when all went well.
using Problems = std::vector<std::string>;

/// One rank's part of a test: it records what it finds wrong in its Problems.
using RankBody = std::function<void(Rank rank, Transport& transport, Problems& problems)>;

/// Runs `body` on `nranks` ranks of `backend` and returns every rank's problems,
/// each line prefixed "rank R: ". A run that fails as a whole comes back as a
/// problem too: a body that throws, a rank that never returns, a child
/// process that dies, or a platform that does not load.
///
/// Sim: loads `platform_file` with sim::LogGPPlatform::load, puts rank r on
/// the platform's r-th node (natural order) when it has enough nodes, else
/// even ranks on its first node and odd ranks on its second (nodes sorted by
/// name), and runs the ranks as actors, all inside in_child. Caveat:
/// when every rank waits for a request that never completes, SimGrid 3.32
/// reports "Deadlock detected" on stderr and aborts the child, which comes
/// back as "the run failed: ... signal 6".
///
/// Hardware: `platform_file` is not used; ranks are processes started by
/// runtime::launch_local, wired up by the backend (TCP with two connections,
/// two lanes, per peer), with a 20 s timeout for a silent peer and 300 s
/// for the whole run. The body's Transport reports fixed figures for the
/// lanes (SteadyFigures), so the protocol each size takes is the same on
/// every run. A rank that fails comes back as "the run failed: ..." with
/// the launcher's account; a transport that failed, as "the transport
/// failed: ..." with its reason. Rank 0 prints the lanes it has to rank 1
/// ("[ lanes    ] verbs: rxe0:1"), so that a log says what the body ran on.
Problems run_ranks(const std::string& backend, Rank nranks, const std::string& platform_file, const RankBody& body);

/// The problems, one per line, for a failure message.
std::string join(const Problems& problems);

}  // namespace xover::test
