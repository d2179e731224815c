# Writes OUTPUT, a C++ source defining xover::tools::git_commit(): the
# commit SOURCE_DIR is checked out at (12 hex digits, "-dirty" appended when
# tracked files differ from it), or "unknown" when SOURCE_DIR is not the top
# of a git checkout (a source tarball, an unpacked package). Run by
# tools/CMakeLists.txt at every build; OUTPUT is rewritten only when the
# answer changes, so an unchanged commit rebuilds nothing.
#
#   cmake -DSOURCE_DIR=... -DOUTPUT=.../git_commit.cpp -P git_commit.cmake
set(commit unknown)
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SOURCE_DIR}" rev-parse --show-toplevel
                  OUTPUT_VARIABLE top RESULT_VARIABLE failed OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT failed)
    file(REAL_PATH "${top}" top)
    file(REAL_PATH "${SOURCE_DIR}" source)
  endif()
  # Only SOURCE_DIR's own checkout: not a repository it was unpacked inside.
  if(NOT failed AND top STREQUAL source)
    execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SOURCE_DIR}" rev-parse --short=12 HEAD
                    OUTPUT_VARIABLE head RESULT_VARIABLE failed OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(NOT failed)
      set(commit "${head}")
      execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SOURCE_DIR}" status --porcelain --untracked-files=no
                      OUTPUT_VARIABLE changes OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
      if(changes)
        string(APPEND commit "-dirty")
      endif()
    endif()
  endif()
endif()
file(CONFIGURE OUTPUT "${OUTPUT}" CONTENT [[
// Written by cmake/git_commit.cmake at build time.
#include "tools/version.hpp"

std::string_view xover::tools::git_commit() {
  return "@commit@";
}
]] @ONLY)
