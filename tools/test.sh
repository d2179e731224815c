#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test three times: in an
# AddressSanitizer + UndefinedBehaviorSanitizer build, in the normal
# (RelWithDebInfo) build and in the Release (-O3) build a user makes first;
# then once more in a build without SimGrid, as a cluster's compute nodes
# may need, which leaves the simulator's tests out. Warnings are errors in
# all four. Then it builds the fuzzing harnesses with clang and runs each
# for XOVER_FUZZ_SECONDS (20) on its corpus (tools/fuzz.sh): a crash fails
# the script, and so does a missing clang.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
jobs=$(nproc)

cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DXOVER_SANITIZE=ON -DXOVER_WERROR=ON >/dev/null
cmake --build build-asan -j"$jobs"
(cd build-asan && ctest --output-on-failure -j"$jobs")

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DXOVER_WERROR=ON >/dev/null
cmake --build build -j"$jobs"
(cd build && ctest --output-on-failure -j"$jobs")

cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release -DXOVER_WERROR=ON >/dev/null
cmake --build build-release -j"$jobs"
(cd build-release && ctest --output-on-failure -j"$jobs")

cmake -S . -B build-nosim -DCMAKE_BUILD_TYPE=RelWithDebInfo -DXOVER_WITH_SIMGRID=OFF -DXOVER_WERROR=ON >/dev/null
cmake --build build-nosim -j"$jobs"
(cd build-nosim && ctest --output-on-failure -j"$jobs")

tools/fuzz.sh
