#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test.
#
#   tools/test.sh --quick   one build (RelWithDebInfo, in build/) and every test: a few minutes
#   tools/test.sh           what CI runs (.ci/run): every test three times, in an
#                           AddressSanitizer + UndefinedBehaviorSanitizer build, in the normal
#                           (RelWithDebInfo) build and in the Release (-O3) build a user makes
#                           first; then once more in a build without SimGrid, as a cluster's
#                           compute nodes may need, which leaves the simulator's tests out.
#                           The normal build also runs the rxe stage (ctest -L rxe; its guest
#                           killed past fourteen minutes, the stage past seventeen with the guest's
#                           preparation): the verbs backend on a soft-RoCE device in a QEMU
#                           guest (tests/rxe/), its output shown whether it passes or not (the
#                           verbs tests it passed, or why it was SKIPPED where QEMU or the
#                           kernel package cannot be had).
#                           Then it builds the fuzzing harnesses with clang and runs each for
#                           XOVER_FUZZ_SECONDS (20) on its corpus (tools/fuzz.sh): a crash
#                           fails the script, and so does a missing clang.
#                           The ASan, Release and no-SimGrid builds are removed once their
#                           tests pass (build/ stays), so the run needs the disk of two
#                           builds at a time, not five; each stage first says how much is
#                           free.
#
# Warnings are errors in every build.
set -euo pipefail
cd "$(dirname "$0")/.."
quick=no
case "${1:-}" in
  --quick) quick=yes ;;
  "") ;;
  *) echo "usage: tools/test.sh [--quick]" >&2; exit 2 ;;
esac
tools/setup.sh
jobs=$(nproc)

# build_and_test DIR CMAKE-ARGS...: configures DIR, builds it, runs its tests.
build_and_test() {
  local dir=$1
  shift
  echo "test.sh: $dir: $(df -h --output=avail . | tail -1 | tr -d ' ') free on this disk"
  cmake -S . -B "$dir" -DXOVER_WERROR=ON "$@" >/dev/null
  cmake --build "$dir" -j"$jobs"
  (cd "$dir" && ctest --output-on-failure -j"$jobs")
}

if [ "$quick" = yes ]; then
  build_and_test build -DCMAKE_BUILD_TYPE=RelWithDebInfo
  exit 0
fi
build_and_test build-asan -DCMAKE_BUILD_TYPE=Debug -DXOVER_SANITIZE=ON
rm -rf build-asan
build_and_test build -DCMAKE_BUILD_TYPE=RelWithDebInfo
(cd build && XOVER_RXE=1 ctest --verbose -L rxe)
build_and_test build-release -DCMAKE_BUILD_TYPE=Release
rm -rf build-release
build_and_test build-nosim -DCMAKE_BUILD_TYPE=RelWithDebInfo -DXOVER_WITH_SIMGRID=OFF
rm -rf build-nosim
tools/fuzz.sh
