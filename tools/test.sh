#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test.
#
#   tools/test.sh --quick   one build (RelWithDebInfo, in build/) and every test: a few minutes
#   tools/test.sh           what CI runs (.ci/run): every test in three builds: an
#                           AddressSanitizer + UndefinedBehaviorSanitizer build (Debug, the
#                           assertions on; the slow fits to simulated sweeps left to
#                           Release, asan_skip below); the Release (-O3) build a user
#                           makes first; and a build without SimGrid, as a cluster's
#                           compute nodes may need, which leaves the simulator's tests out
#                           (Debug: it checks that the code builds and its tests pass, and
#                           -O0 compiles fastest).
#                           The Release build also runs the rxe stage (ctest -L rxe; its
#                           guest killed past fourteen minutes, the stage past seventeen with
#                           the guest's preparation): the verbs backend on a soft-RoCE device
#                           in a QEMU guest (tests/rxe/), its output shown whether it passes
#                           or not (the verbs tests it passed, or why it was SKIPPED where
#                           QEMU or the kernel package cannot be had).
#                           Then it builds the fuzzing harnesses with clang and runs each for
#                           XOVER_FUZZ_SECONDS (20) on its corpus (tools/fuzz.sh): a crash
#                           fails the script, and so does a missing clang.
#                           Each build is removed once its tests pass, so the run holds one
#                           build at a time; each stage first says how much disk is free, and
#                           each says how long it took (CI gives the whole run ninety minutes
#                           on two cores).
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

# The fits to simulated sweeps (RefineLanes.*, 1-12 s each in Release)
# take 80 times as long in the ASan build (100-580 s each at -O0: together
# most of CI's ninety minutes); there they run only the cheap ones, and
# every one runs in the Release build.
asan_skip='^RefineLanes\.(Meets|Identified|TheGap|Finds|NoOverhead)'

# build_and_test DIR SKIP CMAKE-ARGS...: configures DIR, builds it, runs its
# tests but those matching the regular expression SKIP (none if empty).
build_and_test() {
  local dir=$1 skip=$2
  shift 2
  local start=$SECONDS
  echo "test.sh: $dir: $(df -h --output=avail . | tail -1 | tr -d ' ') free on this disk"
  cmake -S . -B "$dir" -DXOVER_WERROR=ON "$@" >/dev/null
  cmake --build "$dir" -j"$jobs"
  echo "test.sh: $dir: built in $((SECONDS - start)) s"
  (cd "$dir" && ctest --output-on-failure -j"$jobs" ${skip:+-E "$skip"})
  echo "test.sh: $dir: built and tested in $((SECONDS - start)) s (the run so far: $SECONDS s)"
}

if [ "$quick" = yes ]; then
  build_and_test build "" -DCMAKE_BUILD_TYPE=RelWithDebInfo
  exit 0
fi
build_and_test build-asan "$asan_skip" -DCMAKE_BUILD_TYPE=Debug -DXOVER_SANITIZE=ON
rm -rf build-asan
build_and_test build-release "" -DCMAKE_BUILD_TYPE=Release
start=$SECONDS
(cd build-release && XOVER_RXE=1 ctest --verbose -L rxe)
echo "test.sh: the rxe stage took $((SECONDS - start)) s (the run so far: $SECONDS s)"
rm -rf build-release
build_and_test build-nosim "" -DCMAKE_BUILD_TYPE=Debug -DXOVER_WITH_SIMGRID=OFF
rm -rf build-nosim
start=$SECONDS
tools/fuzz.sh
echo "test.sh: the fuzzers took $((SECONDS - start)) s (the whole run: $SECONDS s)"
