// Running a function in a forked child process that reports back as a
// string. SimGrid allows one engine and one platform per process, so a
// simulation that must start afresh (a sweep's point, a test's platform, a
// benchmark's clean peak-memory figure) runs in a child of its own; the
// cuda backend asks the CUDA runtime in one, since a process that has
// initialized CUDA cannot use it in the ranks it forks.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace xover {

/// What starts a child's report when `fn` threw: "ERROR: " + what().
inline constexpr std::string_view kChildError = "ERROR: ";

/// Forks, runs `fn` in the child and returns what it returned, or
/// kChildError + what() when it threw. Throws std::runtime_error, with the
/// child's report so far, when the child dies another way (a signal, an
/// abort inside SimGrid, an exit of its own).
std::string in_child(const std::function<std::string()>& fn);

/// What a child's report says went wrong, when `fn` threw (the report
/// starts with kChildError); nothing when it is a report of its own.
std::optional<std::string> child_error(std::string_view report);

}  // namespace xover
