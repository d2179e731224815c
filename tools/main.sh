#!/usr/bin/env bash
# The main job: install what is missing, build, and print the protocol
# thresholds table of the default platform (two-rail HDR InfiniBand).
# Arguments are passed to `xover proto-info` (e.g. --json, --set reg_cache=off).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" --target xover >/dev/null
build/tools/xover proto-info --platform platforms/hdr-2rail.xml "$@"
