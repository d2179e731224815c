#!/usr/bin/env python3
"""The verdicts of tools/gpu-check.sh, from the files a run left in OUT_DIR.

Reads status.txt (each step's exit status), tests.log (the GPU tests'
output), pe-matrix.json (gpu_pe_matrix's points), gpu-pN.csv and
sim-pN.csv (the IPC path's matrix on the GPU and simulated); writes
gpu-check.json (every point and each criterion's verdict) and, where
matplotlib is installed, gpu-check.png and gpu-check-pe.png; prints PASS
or FAIL for each criterion. Exit status 0 when every criterion passes, 1
otherwise. A file of its own so that its judgement is tested without a GPU
(tests/tools/gpu_check_verdicts_test.cpp).

usage: tools/gpu_check_verdicts.py [--no-plot] OUT_DIR
"""
import csv, json, os, sys

args = sys.argv[1:]
plot = args[:1] != ['--no-plot']
if not plot:
    args = args[1:]
if len(args) != 1 or not os.path.isdir(args[0]):
    print('usage: gpu_check_verdicts.py [--no-plot] OUT_DIR (a folder gpu-check.sh wrote)', file=sys.stderr)
    sys.exit(2)
out = args[0]
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


def draw():
    """gpu-check.png (the IPC path, measured and simulated) and gpu-check-pe.png (the PE group)."""
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
            for width in ('thread', 'warp', 'block', 'auto', 'engine', 'proxy', 'copy'):
                mine = sorted((p for p in pe['points'] if p['pes'] == pes and p['width'] == width),
                              key=lambda p: p['size'])
                if mine:
                    ax.plot([p['size'] for p in mine], [p['time_us'] for p in mine], 'o-', label=width)
            ax.set(xscale='log', yscale='log', title=f'one process, P = {pes}', xlabel='bytes a peer')
        axes[0][0].set_ylabel('exchange, us (between events)')
        axes[0][0].legend(fontsize=7)
        fig.savefig(os.path.join(out, 'gpu-check-pe.png'), dpi=100, bbox_inches='tight')


if plot:
    try:
        draw()
    except ImportError:
        print('no matplotlib: no plot')
sys.exit(0 if all(ok for ok, _ in verdicts.values()) else 1)
