#!/usr/bin/env bash
# The GPU check of issue 27 ("On a GPU"), for the few minutes a GPU machine
# is at hand: it builds nothing (the build directory must already hold
# xover and the tests, built with CUDA), runs the GPU tests, `xover
# calibrate --backend cuda`, and the alltoall's P x n matrix (P in 2 4 8 16,
# n in 8 B, 4 KiB, 64 KiB, 1 MiB, both flavours) on the GPU and in
# simulation on the calibrated platform, within 5 minutes in all; writes
# gpu-check.json and gpu-check.png; prints PASS or FAIL for each criterion:
#
#   bytes      every byte and signal right (the GPU tests pass, none
#              skipped, and no point of the matrix reports an error)
#   p4-8B      P = 4 at 8 B, direct, takes tens of microseconds (< 100 us)
#   block      block-per-peer at 1 MiB is at least 100x faster than
#              thread-per-peer (needs a curve coll/alltoall/direct/block)
#   predicted  the calibrated simulation is within 25 % of every measured
#              point and picks the same faster flavour at each (P, n)
#
# Exit status 0 when every criterion passes, 1 when one fails, 2 for bad
# use or a build without what it needs.
#
# THIS SCRIPT HAS NEVER RUN: it was written where there is no GPU, and
# nothing it checks has been seen on a device. Expect to fix it on its
# first run; `block` fails until a block-per-peer flavour exists.
#
# usage: tools/gpu-check.sh [BUILD_DIR [OUT_DIR]]   (defaults: build, results/gpu-check)
set -u

build=${1:-build}
out=${2:-results/gpu-check}
xover="$build/tools/xover"
deadline=$((SECONDS + 300))

if [[ ! -x $xover ]]; then
  echo "gpu-check.sh: $xover is missing: build first (this script builds nothing)" >&2
  exit 2
fi
why=$("$xover" info --backend cuda --json |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["backends"][0]["why_unavailable"] or "")') || exit 2
if [[ -n $why ]]; then
  echo "gpu-check.sh: the cuda backend cannot run here: $why" >&2
  exit 2
fi
mkdir -p "$out" || exit 2

# Seconds left of the 5 minutes, at least 1.
left() {
  local l=$((deadline - SECONDS))
  ((l > 1)) && echo "$l" || echo 1
}

# 1. The GPU tests (the cuda label), every byte checked.
timeout "$(left)" ctest --test-dir "$build" -L cuda --output-on-failure >"$out/ctest.log" 2>&1
echo "ctest $?" >"$out/status.txt"

# 2. The calibration.
timeout "$(left)" "$xover" calibrate --backend cuda --quick --out "$out/cal-cuda.xml" >"$out/calibrate.log" 2>&1
echo "calibrate $?" >>"$out/status.txt"

# 3. The matrix: on the GPU, then simulated on the calibrated platform.
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

# 4. The verdicts, the JSON and the plot.
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

ctest = open(os.path.join(out, 'ctest.log')).read() if os.path.exists(os.path.join(out, 'ctest.log')) else ''
skipped = 'Skipped' in ctest or 'SKIPPED' in ctest
verdicts = {}
verdicts['bytes'] = (status.get('ctest') == '0' and not skipped and errors == 0 and bool(points),
                     f"ctest exit {status.get('ctest')}, skipped tests {skipped}, {errors} errors in {len(points)} points")
p4 = [p for p in points if p['pes'] == 4 and p['size'] == 8 and p['protocol'] == 'coll/alltoall/direct']
verdicts['p4-8B'] = (bool(p4) and p4[0]['measured_us'] < 100,
                     f"{p4[0]['measured_us']:.1f} us" if p4 else 'no point measured')
block = [p for p in points if p['size'] == 1 << 20 and p['protocol'] == 'coll/alltoall/direct/block']
thread = {p['pes']: p for p in points if p['size'] == 1 << 20 and p['protocol'] == 'coll/alltoall/direct'}
ratios = [thread[b['pes']]['measured_us'] / b['measured_us'] for b in block if b['pes'] in thread]
verdicts['block'] = (bool(ratios) and min(ratios) >= 100,
                     f"thread/block at 1 MiB: {', '.join(f'{r:.0f}x' for r in ratios)}" if ratios
                     else 'no block-per-peer curve in this build')
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

report = {'status': status, 'points': points,
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
except ImportError:
    print('no matplotlib: no plot')
sys.exit(0 if all(ok for ok, _ in verdicts.values()) else 1)
PY
