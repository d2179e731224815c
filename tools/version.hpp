// What `xover --version` and `xover info` say of this build: the project's
// version, the git commit it was built from (written at build time by
// cmake/git_commit.cmake) and the backends compiled in.
#pragma once

#include <string>
#include <string_view>

namespace xover::tools {

/// The project's version ("0.1", CMake's PROJECT_VERSION).
std::string_view version();

/// The commit the build was made from: 12 hex digits, with "-dirty" when
/// tracked files differed from it; "unknown" outside a git checkout.
std::string_view git_commit();

/// `xover --version`: the version and commit on the first line, the
/// backends compiled in on the second (from the backend table), and those
/// left out, with why, on a third when there are any.
std::string version_text();

}  // namespace xover::tools
