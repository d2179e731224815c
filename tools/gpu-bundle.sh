#!/usr/bin/env bash
# The binaries tools/gpu-check.sh runs, stripped, with the data xover reads,
# in one folder small enough to carry to a machine lent with a GPU for a few
# minutes (about 15 MB; a RelWithDebInfo build tree is gigabytes):
#
#   BUNDLE/tools/xover, BUNDLE/tools/gpu_pe_matrix
#   BUNDLE/tests/runtime/cuda/<the cuda tests gpu-check.sh runs>
#   BUNDLE/share/xover/{platforms,scenarios,tools/plot_results.py}
#
# xover finds its data at ../share/xover beside its own folder, as an
# installed xover does. The CUDA runtime is linked statically: the GPU
# machine needs its driver only.
#
# usage: tools/gpu-bundle.sh [BUILD_DIR [BUNDLE_DIR]]   (defaults: build, build-gpu)
# Exit status 2 when the build lacks a binary (built without CUDA, or not built).
set -eu

build=${1:-build}
bundle=${2:-build-gpu}
source_dir=$(cd "$(dirname "$0")/.." && pwd)
binaries=(tools/xover tools/gpu_pe_matrix)
for t in cuda_pe_plan_test cuda_logic_test cuda_engine_queue_test cuda_engine_test cuda_proxy_test cuda_pe_group_test \
  cuda_alltoall_test cuda_ipc_cache_test cuda_memory_test; do
  binaries+=("tests/runtime/cuda/$t")
done
for b in "${binaries[@]}"; do
  if [[ ! -x $build/$b ]]; then
    echo "gpu-bundle.sh: $build/$b is missing: build it (with CUDA) first" >&2
    exit 2
  fi
done
rm -rf "$bundle"
for b in "${binaries[@]}"; do
  mkdir -p "$bundle/$(dirname "$b")"
  strip -o "$bundle/$b" "$build/$b"
done
mkdir -p "$bundle/share/xover/tools"
cp -r "$source_dir/platforms" "$source_dir/scenarios" "$bundle/share/xover/"
cp "$source_dir/tools/plot_results.py" "$bundle/share/xover/tools/"
du -sh "$bundle"
