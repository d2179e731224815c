#!/usr/bin/env python3
"""Does `xover tune` make the real library faster? Its settings against the
library's defaults, measured by the library's own benchmark, interleaved.

For UCX (`--for ucx`): `ucx_perftest -t tag_lat` (p50 half round trip) and
`-t tag_bw` (time per message from the overall message rate), on the
backend's UCX transports (shm: posix,cma; tcp: tcp on the loopback; verbs:
rc_verbs), two processes pinned to cores 0 and 1. For Open MPI
(`--for ompi`): bench/mpi_pingpong (osu_latency-style: the median half
round trip) under `mpirun -np 2 --mca pml ob1 --mca btl self,BTL`.

It first probes the library itself (bench/tune_probe.py: one message's
latency with each protocol forced, at sizes this check does not judge) and
runs `xover tune --json --probes` on the platform with those probes, so
that the settings are the crossover of the library's own lines: the
platform's figures plus the library's own per-message and per-fragment
costs (`--probes FILE` reuses a probe file, `--no-probes` leaves them out).
Then, at the sizes around every
threshold the settings change (the library's own hand-over D and the
recommended T: D/2, D, the powers of two between, T, 2T; up to 4 MiB),
measures the defaults (A) and the settings (B) in pairs, A B then B A
alternately, `--pairs` times (at least 5), and prints per test and size the
median of the pairs' ratios B/A with their range, and a verdict:

  - where the defaults hand over differently from the settings (the sizes
    in [min(D, T), max(D, T))): met when B is faster (median ratio < 1);
  - elsewhere: met when B is no slower than A by more than 5 % (median
    ratio <= 1.05);
  - where either side's runs of one size fall in two machine states
    (sorted, a step of more than 1.5x between neighbours with at least two
    runs on each side, as UCX's posix eager runs at 2.4 or 10.8 us per
    20 KiB message, in spells over consecutive launches), a ratio of pairs that fell in
    different states measures the machine, not the settings: it prints each
    side's states (runs and median) and judges the ratio within each state
    (fast with fast, slow with slow; a side in one state against both of
    the other's): "met in both states" or "MISSED in both states"; where the
    two states disagree, BIMODAL: no verdict.

`--record FILE` writes every point's runs as JSON lines; `--judge FILE`
judges such a file again without measuring (or a synthetic one).

A transport this machine cannot run is SKIPPED with the reason (verbs with
no RDMA device; no ucx_perftest; no mpirun or no bench/mpi_pingpong).
Exit status: 0 when every verdict is met or the check was skipped, 1 when
one is MISSED, 3 when none is MISSED but a point is BIMODAL (undecided), 2
for bad input.

usage: bench/tune_check.py --for ucx|ompi --backend shm|tcp|verbs [--platform CAL.xml]
                           [--xover build/tools/xover] [--pingpong build/bench/mpi_pingpong]
                           [--pairs 5] [--iterations N] [--tests tag_lat,tag_bw]
                           [--probes FILE | --no-probes] [--record FILE]
       bench/tune_check.py --judge FILE
"""
import argparse
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

from perftest import ucx_perftest

UCX_ENV = {"shm": {"UCX_TLS": "posix,cma"},
           "tcp": {"UCX_TLS": "tcp", "UCX_NET_DEVICES": "lo"},
           "verbs": {"UCX_TLS": "rc_verbs"}}
OMPI_BTL = {"shm": "vader", "tcp": "tcp", "verbs": "openib"}
LARGEST = 4 << 20
SLOWER_LIMIT = 1.05
BIMODAL_GAP = 1.5


def skip_reason(library, backend, pingpong):
    """Why this machine cannot run the check, or None."""
    if library == "ucx":
        if not shutil.which("ucx_perftest") or not shutil.which("ucx_info"):
            return "no ucx_perftest or ucx_info (apt-get install ucx-utils)"
        if backend == "verbs":
            devices = subprocess.run(["ucx_info", "-d"], capture_output=True, text=True).stdout
            if "rc_verbs" not in devices:
                return "ucx_info -d lists no rc_verbs transport: no RDMA device here"
        return None
    if not shutil.which("mpirun"):
        return "no mpirun (Open MPI not installed)"
    if not os.access(pingpong, os.X_OK):
        return f"no {pingpong}: build it (it is built where CMake finds MPI)"
    if backend == "verbs":
        if not os.path.isdir("/sys/class/infiniband") or not os.listdir("/sys/class/infiniband"):
            return "no RDMA device (/sys/class/infiniband is empty or absent): the openib BTL has nothing to run on"
    return None


def default_platform(backend):
    """The shipped calibrated platform of `backend` (a verbs one for verbs)."""
    return "platforms/roce-1rail.xml" if backend == "verbs" else f"platforms/{backend}-calibrated.xml"


def tune(xover, library, backend, platform, probes=None):
    out = tempfile.NamedTemporaryFile(suffix=".sh", delete=False).name
    cmd = [xover, "tune", "--json", "--for", library, "--backend", backend, "--out", out]
    if platform:
        cmd += ["--platform", platform]
    if probes:
        cmd += ["--probes", probes]
    run = subprocess.run(cmd, capture_output=True, text=True)
    os.unlink(out)
    if run.returncode != 0:
        sys.exit(f"xover tune failed ({run.returncode}): {run.stderr.strip()}")
    return json.loads(run.stdout)


def probe_sizes(path):
    """The sizes a probe file measured."""
    sizes = set()
    with open(path) as f:
        for line in f:
            words = line.split("#")[0].split()
            if len(words) == 3:
                sizes.add(int(words[1]))
    return sizes


def leading_int(text):
    m = re.match(r"\s*(\d+)", text or "")
    return int(m.group(1)) if m else None


def thresholds(result):
    """(name, library's D, recommended T) for each size setting that changes."""
    out = []
    for s in result["settings"]:
        if s["size"] is None or not s["name"].endswith(("THRESH", "eager_limit")) or "rndv_eager" in s["name"]:
            continue
        own = leading_int(s["library"])
        value = math.inf if s["value"] in ("inf", "intra:inf", "inter:inf") else leading_int(s["value"].split(":")[-1])
        if own is None or own == value:
            continue
        out.append((s["name"], own, value))
    return out


def sizes_around(own, value):
    top = min(value, LARGEST) if value != math.inf else min(own * 64, LARGEST)
    sizes = {max(own // 2, 1), own, top}
    if value != math.inf:
        sizes.add(min(value * 2, LARGEST))
    p = 1 << (own.bit_length())
    while p < top:
        sizes.add(p)
        p <<= 1
    return sorted(s for s in sizes if s <= LARGEST)


def ucx_run(backend, env_extra, test, size, iterations):
    env = dict(os.environ, **UCX_ENV[backend], **env_extra)
    return ucx_perftest(test, size, iterations, env)


def ompi_run(backend, env_extra, pingpong, size, iterations):
    env = dict(os.environ, **env_extra)
    btl = OMPI_BTL[backend]
    cmd = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "2", "--bind-to", "core",
           "--mca", "pml", "ob1", "--mca", "btl", "self," + btl]
    if btl == "tcp":
        cmd += ["--mca", "btl_tcp_if_include", "lo"]
    cmd += [pingpong, str(iterations), str(max(iterations // 10, 2)), str(size)]
    run = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    m = re.search(r"size \d+ median_us ([0-9.]+)", run.stdout)
    if run.returncode != 0 or not m:
        sys.exit(f"mpi_pingpong failed ({run.returncode}): {run.stderr.strip()[-2000:]}")
    return float(m.group(1)) * 1e-6


def measure(point, pairs):
    """Interleaved pairs, A B then B A alternately: each pair's ratio B/A and each side's times."""
    ratios, a_times, b_times = [], [], []
    for i in range(pairs):
        if i % 2 == 0:
            a = point(False)
            b = point(True)
        else:
            b = point(True)
            a = point(False)
        ratios.append(b / a)
        a_times.append(a)
        b_times.append(b)
    return ratios, a_times, b_times


def states(times):
    """One side's runs split in two machine states (fast, slow): sorted, the
    largest step between neighbours that leaves at least two runs on each
    side, where it exceeds BIMODAL_GAP; None when the runs have one state."""
    t = sorted(times)
    best = None
    for k in range(2, len(t) - 1):
        step = t[k] / t[k - 1]
        if step > BIMODAL_GAP and (best is None or step > best[0]):
            best = (step, k)
    return None if best is None else (t[:best[1]], t[best[1]:])


def judge(mis, a, b):
    """(verdict, ratio median, note) for one point: a and b are the pairs'
    times with the defaults and with the settings, pair by pair."""
    ratios = [y / x for x, y in zip(a, b)]
    median = statistics.median(ratios)
    split = {"defaults": states(a), "settings": states(b)}
    if any(split.values()):
        parts = []
        for side, st in split.items():
            if st:
                parts.append(f"{side} {len(st[0])} runs at {statistics.median(st[0]) * 1e6:.2f}us, "
                             f"{len(st[1])} at {statistics.median(st[1]) * 1e6:.2f}us")
            else:
                parts.append(f"{side} one state")
        # A side in one state is set against both states of the other.
        (af, aslow), (bf, bslow) = (split[side] or (t, t) for side, t in (("defaults", a), ("settings", b)))
        within = [statistics.median(bf) / statistics.median(af), statistics.median(bslow) / statistics.median(aslow)]
        parts.append(f"within states fast {within[0]:.3f}, slow {within[1]:.3f}")
        met = [r < 1.0 if mis else r <= SLOWER_LIMIT for r in within]
        if all(met) or not any(met):
            return ("met" if all(met) else "MISSED") + " in both states", median, "; ".join(parts)
        return "BIMODAL", median, "; ".join(parts)
    ok = median < 1.0 if mis else median <= SLOWER_LIMIT
    return ("met" if ok else "MISSED"), median, ""


HEADER = (f"{'threshold':24} {'test':9} {'size':>8} {'default':>11} {'tuned':>11} {'ratio':>6} {'range':>13}  "
          f"{'target':14} verdict")


def report(point):
    """Prints one point's line; returns its verdict."""
    a, b = point["defaults"], point["settings"]
    verdict, median, note = judge(point["mis"], a, b)
    ratios = [y / x for x, y in zip(a, b)]
    target = "faster" if point["mis"] else "<= 1.05"
    print(f"{point['threshold']:24} {point['test']:9} {point['size']:>8} {statistics.median(a) * 1e6:>9.2f}us "
          f"{statistics.median(b) * 1e6:>9.2f}us {median:>6.3f} {min(ratios):>6.3f}-{max(ratios):<6.3f}  "
          f"{target:14} {verdict}" + (f" ({note})" if note else ""), flush=True)
    return verdict


def summary(verdicts):
    """The closing line and the exit status of a list of verdicts."""
    missed = sum(v.startswith("MISSED") for v in verdicts)
    bimodal = verdicts.count("BIMODAL")
    print(f"{missed} MISSED, {bimodal} BIMODAL (no verdict), {sum(v.startswith('met') for v in verdicts)} met")
    return 1 if missed else 3 if bimodal else 0


def judge_file(path):
    """Judges the points recorded in `path` (JSON lines of --record)."""
    verdicts = []
    print(HEADER)
    with open(path) as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                point = json.loads(line)
                if len(point["defaults"]) != len(point["settings"]) or len(point["defaults"]) < 2:
                    raise ValueError("defaults and settings need the same number of runs, at least 2")
                verdicts.append(report(point))
            except KeyError as e:
                print(f"{path}:{number}: no {e.args[0]!r}", file=sys.stderr)
                return 2
            except (ValueError, TypeError) as e:
                print(f"{path}:{number}: {e}", file=sys.stderr)
                return 2
    return summary(verdicts)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--for", dest="library", choices=["ucx", "ompi"])
    parser.add_argument("--backend", choices=["shm", "tcp", "verbs"])
    parser.add_argument("--platform", help="a calibrated platform (default: the shipped one for shm and tcp, "
                        "platforms/roce-1rail.xml for verbs)")
    parser.add_argument("--xover", default="build/tools/xover")
    parser.add_argument("--pingpong", default="build/bench/mpi_pingpong")
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--tests", default="tag_lat,tag_bw", help="UCX: ucx_perftest tests")
    parser.add_argument("--probes", help="a probe file of bench/tune_probe.py to use (default: probe now)")
    parser.add_argument("--no-probes", action="store_true", help="the platform's lines alone, no probe of the library")
    parser.add_argument("--record", help="write every point's runs here, JSON lines (--judge reads them)")
    parser.add_argument("--judge", help="judge the runs recorded in this file; measure nothing")
    args = parser.parse_args()
    if args.judge:
        return judge_file(args.judge)
    if not args.library or not args.backend:
        parser.error("--for and --backend are required (or --judge FILE)")
    if args.pairs < 5:
        parser.error("--pairs: at least 5")
    platform = args.platform or default_platform(args.backend)

    why = skip_reason(args.library, args.backend, args.pingpong)
    if why is not None:
        result = tune(args.xover, args.library, args.backend, platform) if args.backend == "verbs" else None
        if result:
            print(f"settings from {result['platform']}: " +
                  ", ".join(f"{s['env']}={s['value']}" for s in result["settings"]))
        print(f"tune_check {args.library} on {args.backend}: SKIPPED: {why}")
        return 0
    probes = args.probes
    if probes is None and not args.no_probes:
        probes = f"results/tune-probe-{args.library}-{args.backend}.txt"
        os.makedirs(os.path.dirname(probes), exist_ok=True)
        print(f"probing the library itself (bench/tune_probe.py) into {probes}", flush=True)
        cmd = [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "tune_probe.py"),
               "--for", args.library, "--backend", args.backend, "--platform", platform, "--out", probes,
               "--xover", args.xover, "--pingpong", args.pingpong]
        if subprocess.run(cmd).returncode != 0:
            sys.exit("tune_probe.py failed")
    result = tune(args.xover, args.library, args.backend, platform, probes)
    probed = probe_sizes(probes) if probes else set()
    settings = {s["env"]: s["value"] for s in result["settings"]}
    if probes:
        print(f"the library's own probes: {probes} (sizes {', '.join(str(n) for n in sorted(probed))}: not judged)")
    print(f"tune_check {args.library} on {args.backend} ({result['transports']}), platform {result['platform']}, "
          f"{args.pairs} interleaved pairs per point, load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print("settings (B): " + " ".join(f"{k}={v}" for k, v in settings.items()))
    changed = thresholds(result)
    if not changed:
        print("no threshold differs from the library's own: nothing to measure")
        return 0
    points = []
    for name, own, value in changed:
        lo, hi = min(own, value), max(own, value)
        for size in sizes_around(own, value):
            if size in probed:
                sys.exit(f"size {size} is both probed and judged: the check would judge what the model was given")
            points.append((name, size, lo <= size < hi))
    tests = args.tests.split(",") if args.library == "ucx" else ["pingpong"]
    print(HEADER)
    record = open(args.record, "w") if args.record else None
    verdicts = []
    for name, size, mis in points:
        for test in tests:
            iterations = args.iterations if size <= (256 << 10) else max(args.iterations // 5, 50)
            if args.library == "ucx":
                def point(tuned):
                    return ucx_run(args.backend, settings if tuned else {}, test, size, iterations)
            else:
                def point(tuned):
                    return ompi_run(args.backend, settings if tuned else {}, args.pingpong, size, iterations)
            _, a, b = measure(point, args.pairs)
            runs = {"threshold": name, "test": test, "size": size, "mis": mis, "defaults": a, "settings": b}
            if record:
                record.write(json.dumps(runs) + "\n")
                record.flush()
            verdicts.append(report(runs))
    print(f"load average {os.getloadavg()[0]:.2f} after")
    return summary(verdicts)


if __name__ == "__main__":
    sys.exit(main())
