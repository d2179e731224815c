#!/usr/bin/env bash
# The GPU check of issue 27 ("On a GPU"), for the few minutes a GPU machine
# is at hand: it builds nothing (the build directory, or the bundle
# tools/gpu-bundle.sh makes of it, must already hold xover, gpu_pe_matrix
# and the cuda tests, built with CUDA), and within 8 minutes in all runs
#
#   1. the GPU tests, their binaries run directly (the build tree's CTest
#      files need not come along): the logic tests, the PE group at P 2, 4,
#      7, 32 in each width, the IPC path's processes;
#   2. gpu_pe_matrix: P PEs in one process on one GPU, P in 2 4 8 16 32,
#      n in 8, 13, 4 KiB, 64 KiB, 1 MiB, each put copied by a thread, a
#      warp, a block, or NVSHMEM's choice by size (auto), 20 exchanges a
#      point, every byte checked (pe-matrix.json);
#   3. `xover calibrate --backend cuda`, and the alltoall's P x n matrix of
#      the IPC path (PEs as processes: P in 2 4 8 16, n in 8 B, 4 KiB,
#      64 KiB, 1 MiB, both flavours) on the GPU and in simulation on the
#      calibrated platform;
#
# writes gpu-check.json (every point of both matrices, the verdicts),
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
for t in cuda_pe_plan_test cuda_logic_test cuda_engine_queue_test cuda_pe_group_test cuda_alltoall_test; do
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

# 2. The PE group's matrix: P PEs in one process, every width.
timeout "$(left)" "$matrix" --pes 2,4,8,16,32 --sizes 8,13,4KiB,64KiB,1MiB --widths thread,warp,block,auto \
  --iterations 20 --json "$out/pe-matrix.json" >"$out/pe-matrix.log" 2>&1
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
python3 - "$out" <<'PY'
import csv, json, os, sys

out = sys.argv[1]
status = dict(line.split() for line in open(os.path.join(out, 'status.txt')))


def rows(name):
    path = os.path.join(out, name)
    if not os.path.exists(path):
        return {}
    return {(r['protocol'], int(r['size'])): r for r in csv.DictReader(open(path))}


points, errors = [], 0
for pes in (2, 4, 8, 16):
    gpu, sim = rows(f'gpu-p{pes}.csv'), rows(f'sim-p{pes}.csv')
    for (protocol, size), g in sorted(gpu.items()):
        s = sim.get((protocol, size))
        errors += int(g['errors'])
        points.append({'pes': pes, 'protocol': protocol, 'size': size, 'measured_us': float(g['t_median_us']),
                       'simulated_us': float(s['t_median_us']) if s else None, 'errors': int(g['errors'])})

pe_path = os.path.join(out, 'pe-matrix.json')
pe = json.load(open(pe_path)) if os.path.exists(pe_path) else {'points': [], 'refused': []}
pe_errors = sum(p['errors'] for p in pe['points'])

tests_log = os.path.join(out, 'tests.log')
tests = open(tests_log).read() if os.path.exists(tests_log) else ''
skipped = '[  SKIPPED ]' in tests
verdicts = {}
verdicts['bytes'] = (status.get('tests') == '0' and not skipped and errors == 0 and bool(points) and
                     status.get('pe-matrix') == '0' and pe_errors == 0 and bool(pe['points']),
                     f"tests exit {status.get('tests')}, skipped tests {skipped}, {errors} errors in {len(points)} "
                     f"IPC points; gpu_pe_matrix exit {status.get('pe-matrix')}, {pe_errors} errors in "
                     f"{len(pe['points'])} points, P refused: {[r['pes'] for r in pe['refused']]}")
p4 = [p for p in pe['points'] if p['pes'] == 4 and p['size'] == 8 and p['width'] == 'auto']
verdicts['p4-8B'] = (bool(p4) and p4[0]['time_us'] < 100,
                     f"{p4[0]['time_us']:.1f} us (span {p4[0]['span_us']:.1f} us)" if p4 else 'no point measured')
big = [p for p in pe['points'] if p['size'] == 1 << 20]
block = {p['pes']: p for p in big if p['width'] == 'block'}
thread = {p['pes']: p for p in big if p['width'] == 'thread'}
ratios = {n: thread[n]['time_us'] / block[n]['time_us'] for n in block if n in thread and block[n]['time_us'] > 0}
verdicts['block'] = (bool(ratios) and min(ratios.values()) >= 100,
                     'thread/block at 1 MiB: ' + ', '.join(f'P {n} {r:.0f}x' for n, r in sorted(ratios.items()))
                     if ratios else 'no thread and block points at 1 MiB')
off = [abs(p['simulated_us'] - p['measured_us']) / p['measured_us'] for p in points if p['simulated_us']]
flip = 0
for pes in (2, 4, 8, 16):
    for size in (8, 4096, 65536, 1 << 20):
        m = {p['protocol']: p for p in points if p['pes'] == pes and p['size'] == size}
        if {'coll/alltoall/proxy', 'coll/alltoall/direct'} <= m.keys() and all(
                p['simulated_us'] for p in m.values()):
            fast = lambda key: min(('coll/alltoall/proxy', 'coll/alltoall/direct'), key=lambda f: m[f][key])
            flip += fast('measured_us') != fast('simulated_us')
verdicts['predicted'] = (bool(off) and len(off) == len(points) and max(off) <= 0.25 and flip == 0,
                         f"worst {max(off) * 100:.1f} % off over {len(off)} points, {flip} faster-flavour flips"
                         if off else 'no simulated point')

report = {'status': status, 'points': points, 'pe_matrix': pe,
          'criteria': {k: {'pass': v[0], 'detail': v[1]} for k, v in verdicts.items()}}
json.dump(report, open(os.path.join(out, 'gpu-check.json'), 'w'), indent=2)
for name, (ok, detail) in verdicts.items():
    print(f"{'PASS' if ok else 'FAIL'} {name}: {detail}")

try:
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 4, figsize=(16, 4), sharey=True)
    for ax, pes in zip(axes, (2, 4, 8, 16)):
        for protocol in sorted({p['protocol'] for p in points}):
            mine = sorted((p for p in points if p['pes'] == pes and p['protocol'] == protocol), key=lambda p: p['size'])
            if not mine:
                continue
            line, = ax.plot([p['size'] for p in mine], [p['measured_us'] for p in mine], 'o-', label=protocol)
            sim = [p for p in mine if p['simulated_us']]
            ax.plot([p['size'] for p in sim], [p['simulated_us'] for p in sim], 'x--', color=line.get_color())
        ax.set(xscale='log', yscale='log', title=f'P = {pes}', xlabel='bytes a peer')
    axes[0].set_ylabel('exchange, us (o measured, x simulated)')
    axes[0].legend(fontsize=7)
    fig.savefig(os.path.join(out, 'gpu-check.png'), dpi=100, bbox_inches='tight')
    pes_run = sorted({p['pes'] for p in pe['points']})
    if pes_run:
        fig, axes = plt.subplots(1, len(pes_run), figsize=(4 * len(pes_run), 4), sharey=True, squeeze=False)
        for ax, pes in zip(axes[0], pes_run):
            for width in ('thread', 'warp', 'block', 'auto'):
                mine = sorted((p for p in pe['points'] if p['pes'] == pes and p['width'] == width),
                              key=lambda p: p['size'])
                if mine:
                    ax.plot([p['size'] for p in mine], [p['time_us'] for p in mine], 'o-', label=width)
            ax.set(xscale='log', yscale='log', title=f'one process, P = {pes}', xlabel='bytes a peer')
        axes[0][0].set_ylabel('exchange, us (between events)')
        axes[0][0].legend(fontsize=7)
        fig.savefig(os.path.join(out, 'gpu-check-pe.png'), dpi=100, bbox_inches='tight')
except ImportError:
    print('no matplotlib: no plot')
sys.exit(0 if all(ok for ok, _ in verdicts.values()) else 1)
PY
