// Running a simulation in a forked child process. SimGrid allows one engine
// and one platform per process, so a test or a benchmark that needs several
// platforms (or a clean peak-memory figure) runs each in a child of its own,
// which reports back as a string.
#pragma once

#include <functional>
#include <string>

namespace xover::sim {

/// Forks, runs `fn` in the child and returns what it returned, or
/// "ERROR: " + what() when it threw. Throws std::runtime_error, with the
/// child's report so far, when the child dies another way (a signal, an
/// abort inside SimGrid, an exit of its own).
std::string in_child(const std::function<std::string()>& fn);

}  // namespace xover::sim
