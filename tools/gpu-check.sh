#!/usr/bin/env bash
# The GPU check of issue 27 ("On a GPU"), for the few minutes a GPU machine
# is at hand: it builds nothing (the build directory, or the bundle
# tools/gpu-bundle.sh makes of it, must already hold xover, gpu_pe_matrix
# and the cuda tests, built with CUDA), and within 8 minutes in all runs
#
#   1. the GPU tests, their binaries run directly (the build tree's CTest
#      files need not come along): the logic tests (the engine's and the
#      proxy's by CPU threads among them), the PE group at P 2, 4, 7, 32 in
#      each width and through the engine (posting threads or CPU proxies),
#      the IPC path's processes, and the point-to-point device memory's
#      started copies and rndv/pipe's pipeline through them (cuda_memory_test,
#      a few seconds) with the IPC mappings' cache (cuda_ipc_cache_test);
#   2. gpu_pe_matrix: P PEs in one process on one GPU, P in 2 4 8 16 32,
#      n in 8, 13, 4 KiB, 64 KiB, 1 MiB, each put copied by a thread, a
#      warp, a block, or NVSHMEM's choice by size (auto), or posted to the
#      engine block by a posting thread (engine) or through the PE's CPU
#      proxy (proxy), or copied by that proxy's cudaMemcpyAsync (copy), 20
#      exchanges a point, every byte checked (pe-matrix.json);
#   3. `xover calibrate --backend cuda`, and the alltoall's P x n matrix of
#      the IPC path (PEs as processes: P in 2 4 8 16, n in 8 B, 4 KiB,
#      64 KiB, 1 MiB, both flavours) on the GPU and in simulation on the
#      calibrated platform;
#
# judges the run with tools/gpu_check_verdicts.py, which writes
# gpu-check.json (every point of both matrices, the verdicts),
# gpu-check.png (the IPC path) and gpu-check-pe.png (the PE group);
# prints PASS or FAIL for each criterion:
#
#   bytes      every byte and signal right (the GPU tests pass, none
#              skipped, and no point of either matrix reports an error)
#   p4-8B      P = 4 at 8 B, direct, in one process (the PE group, auto),
#              takes tens of microseconds (< 100 us)
#   block      block-per-peer at 1 MiB is at least 100x faster than
#              thread-per-peer, at every P the PE group ran
#   predicted  the calibrated simulation is within 25 % of every measured
#              point of the IPC path's matrix and picks the same faster
#              flavour at each (P, n); the simulation is not yet set
#              against the PE group, which `xover run` does not run
#
# Exit status 0 when every criterion passes, 1 when one fails, 2 for bad
# use or a build without what it needs.
#
# THIS SCRIPT HAS NEVER RUN: it was written where there is no GPU, and
# nothing it checks has been seen on a device, nor has any kernel of the
# PE group run. Expect to fix it on its first run.
#
# usage: tools/gpu-check.sh [BUILD_DIR [OUT_DIR]]   (defaults: build, results/gpu-check)
#
# On a machine lent for minutes, carry a bundle rather than the build tree:
#   tools/gpu-bundle.sh build build-gpu      # here: about 15 MB, stripped
#   tools/gpu-check.sh build-gpu             # there
set -u

build=${1:-build}
out=${2:-results/gpu-check}
xover="$build/tools/xover"
matrix="$build/tools/gpu_pe_matrix"
deadline=$((SECONDS + 480))

for binary in "$xover" "$matrix"; do
  if [[ ! -x $binary ]]; then
    echo "gpu-check.sh: $binary is missing: build first, with CUDA (this script builds nothing)" >&2
    exit 2
  fi
done
why=$("$xover" info --backend cuda --json |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["backends"][0]["why_unavailable"] or "")') || exit 2
if [[ -n $why ]]; then
  echo "gpu-check.sh: the cuda backend cannot run here: $why" >&2
  exit 2
fi
mkdir -p "$out" || exit 2

# Seconds left of the 8 minutes, at least 1.
left() {
  local l=$((deadline - SECONDS))
  ((l > 1)) && echo "$l" || echo 1
}

# 1. The GPU tests, every byte checked: at most 4 minutes. Those that run
# the xover binary (cuda_run_test, cuda_alltoall_run_test) name it by its
# build path and are left to ctest; steps 3 and 4 run xover here.
tests_end=$((SECONDS + 240))
tests_status=0
: >"$out/tests.log"
for t in cuda_pe_plan_test cuda_logic_test cuda_engine_queue_test cuda_engine_test cuda_proxy_test cuda_pe_group_test \
  cuda_alltoall_test cuda_ipc_cache_test cuda_memory_test; do
  bin="$build/tests/runtime/cuda/$t"
  limit=$((tests_end - SECONDS))
  if [[ ! -x $bin ]]; then
    echo "$t: MISSING from $build" >>"$out/tests.log"
    tests_status=1
  elif ((limit < 1)); then
    echo "$t: NOT RUN, out of time" >>"$out/tests.log"
    tests_status=1
  else
    echo "== $t" >>"$out/tests.log"
    timeout "$limit" "$bin" >>"$out/tests.log" 2>&1 || tests_status=1
  fi
done
echo "tests $tests_status" >"$out/status.txt"

# 2. The PE group's matrix: P PEs in one process, every width, the engine's flavours and the copy engine.
timeout "$(left)" "$matrix" --pes 2,4,8,16,32 --sizes 8,13,4KiB,64KiB,1MiB \
  --widths thread,warp,block,auto,engine,proxy,copy --iterations 20 --json "$out/pe-matrix.json" >"$out/pe-matrix.log" 2>&1
echo "pe-matrix $?" >>"$out/status.txt"

# 3. The calibration.
timeout "$(left)" "$xover" calibrate --backend cuda --quick --out "$out/cal-cuda.xml" >"$out/calibrate.log" 2>&1
echo "calibrate $?" >>"$out/status.txt"

# 4. The IPC path's matrix: on the GPU, then simulated on the calibrated platform.
for pes in 2 4 8 16; do
  cat >"$out/alltoall-p$pes.xml" <<EOF
<?xml version="1.0"?>
<scenario name="gpu-check-p$pes" seed="1">
  <description>gpu-check.sh: the alltoall of $pes PEs on the GPU.</description>
  <platform file="cal-cuda.xml"/>
  <workload kind="alltoall" pes="$pes" iterations="20" warmup="3"/>
  <sizes list="8 4KiB 64KiB 1MiB"/>
  <curves>coll/alltoall/proxy coll/alltoall/direct</curves>
</scenario>
EOF
  timeout "$(left)" "$xover" run "$out/alltoall-p$pes.xml" --backend cuda --out "$out/gpu-p$pes.csv" \
    >"$out/gpu-p$pes.log" 2>&1
  echo "gpu-p$pes $?" >>"$out/status.txt"
  timeout "$(left)" "$xover" run "$out/alltoall-p$pes.xml" --out "$out/sim-p$pes.csv" >"$out/sim-p$pes.log" 2>&1
  echo "sim-p$pes $?" >>"$out/status.txt"
done

# 5. The verdicts, the JSON and the plot.
python3 "$(dirname "$0")/gpu_check_verdicts.py" "$out"
