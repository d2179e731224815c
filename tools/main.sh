#!/usr/bin/env bash
# The main job: install what is missing, build, and run the default scenario
# (eager against rendezvous on one RoCE rail) in simulation. Prints the table
# and writes results/eager-vs-rndv.csv and its plot, results/eager-vs-rndv.png.
# Arguments go to `xover run`.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" --target xover >/dev/null
build/tools/xover run scenarios/eager-vs-rndv.xml --plot results/eager-vs-rndv.png "$@"
