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
alternately, `--pairs` times (at least 5), with the machine's core-to-core
round trip (bench/core_to_core) just before and just after every run, and
prints per test and size the median of the pairs' ratios B/A with their
range, and a verdict (bench/tune_judge.py):

  - where the defaults hand over differently from the settings (the sizes
    in [min(D, T), max(D, T))): met when B is faster (median ratio < 1);
  - elsewhere: met when B is no slower than A by more than 5 % (median
    ratio <= 1.05);
  - where the core-to-core round trips fall in two states (on this
    project's VMs about 120 ns or about 480 ns, in spells of seconds to
    minutes; UCX's posix eager runs 4x slower in the slow one, 2.5 or 10 us
    per 20 KiB message), A is set against B within each state: "met in
    both states", or in the one state with runs of both sides, or BIMODAL
    (no verdict) where the states disagree; so the verdict does not depend
    on which state a pair fell in;
  - for UCX, where its own report (`ucx_info -e -u t` with each
    environment: the lanes and the `tag_send:` thresholds) runs the same
    protocol at that size on the same lanes both ways: "same protocol", no
    verdict, the ratio and what it would have said beside UCX's words (the
    settings change nothing there: the ratio measures the machine).

`--record FILE` writes every point's runs as JSON lines; `--judge FILE...`
judges such files together without measuring (or synthetic ones);
`--sizes` measures some of the judged sizes only, so that a long check runs
in pieces.

A transport this machine cannot run is SKIPPED with the reason (verbs with
no RDMA device; no ucx_perftest; no mpirun or no bench/mpi_pingpong).
Exit status: 0 when every verdict is met or the check was skipped, 1 when
one is MISSED, 3 when none is MISSED but a point is BIMODAL (undecided), 2
for bad input.

usage: bench/tune_check.py --for ucx|ompi --backend shm|tcp|verbs [--platform CAL.xml]
                           [--xover build/tools/xover] [--pingpong build/bench/mpi_pingpong]
                           [--pairs 5] [--iterations N] [--tests tag_lat,tag_bw]
                           [--probes FILE | --no-probes] [--record FILE] [--sizes N,...]
                           [--core-probe build/bench/core_to_core]
       bench/tune_check.py --judge FILE...
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
from tune_judge import judge_points, read_points

UCX_ENV = {"shm": {"UCX_TLS": "posix,cma"},
           "tcp": {"UCX_TLS": "tcp", "UCX_NET_DEVICES": "lo"},
           "verbs": {"UCX_TLS": "rc_verbs"}}
OMPI_BTL = {"shm": "vader", "tcp": "tcp", "verbs": "openib"}
LARGEST = 4 << 20


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


def core_state(probe):
    """The core-to-core round trip (ns) bench/core_to_core measures now."""
    run = subprocess.run([probe], capture_output=True, text=True)
    m = re.match(r"median_ns (\d+)", run.stdout)
    if run.returncode != 0 or not m:
        sys.exit(f"{probe} failed ({run.returncode}): {run.stderr.strip()}")
    return int(m.group(1))


def measure(point, pairs, probe):
    """Interleaved pairs, A B then B A alternately: each side's times and,
    per run, the core-to-core round trips just before and just after it."""
    runs = {False: [], True: []}
    for i in range(pairs):
        for tuned in ((False, True) if i % 2 == 0 else (True, False)):
            before = core_state(probe)
            t = point(tuned)
            runs[tuned].append((t, [before, core_state(probe)]))
    return ([t for t, _ in runs[False]], [c for _, c in runs[False]],
            [t for t, _ in runs[True]], [c for _, c in runs[True]])


def ucx_info(backend, env_extra):
    """UCX's own report of its endpoint on the backend's transports with
    `env_extra`: the `lane[...]` and `tag_send:` lines of `ucx_info -e -u t`."""
    env = dict(os.environ, **UCX_ENV[backend], **env_extra)
    run = subprocess.run(["timeout", "20", "ucx_info", "-e", "-u", "t"], env=env, capture_output=True, text=True)
    lines = [line.lstrip("# ").rstrip() for line in run.stdout.splitlines()]
    keep = [line for line in lines if line.startswith(("lane[", "tag_send:"))]
    if run.returncode != 0 or not any(line.startswith("tag_send:") for line in keep):
        sys.exit(f"ucx_info -e -u t printed no tag_send: line ({run.returncode}): {run.stderr.strip()}")
    return keep


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
    parser.add_argument("--judge", nargs="+", metavar="FILE",
                        help="judge the runs recorded in these files together; measure nothing")
    parser.add_argument("--sizes", help="measure only these of the judged sizes (comma-separated)")
    parser.add_argument("--core-probe", default="build/bench/core_to_core",
                        help="the program that measures the machine's core-to-core state")
    args = parser.parse_args()
    if args.judge:
        return judge_points([p for path in args.judge for p in read_points(path, json.loads)])
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
    if not os.access(args.core_probe, os.X_OK):
        sys.exit(f"no {args.core_probe}: build it (cmake --build build --target core_to_core)")
    probes = args.probes
    if probes is None and not args.no_probes:
        probes = f"results/tune-probe-{args.library}-{args.backend}.txt"
        os.makedirs(os.path.dirname(probes), exist_ok=True)
        print(f"probing the library itself (bench/tune_probe.py) into {probes}", flush=True)
        cmd = [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "tune_probe.py"),
               "--for", args.library, "--backend", args.backend, "--platform", platform, "--out", probes,
               "--xover", args.xover, "--pingpong", args.pingpong, "--core-probe", args.core_probe]
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
    if args.sizes:
        wanted = {int(n) for n in args.sizes.split(",")}
        points = [p for p in points if p[1] in wanted]
    tests = args.tests.split(",") if args.library == "ucx" else ["pingpong"]
    tuned_env = {False: {}, True: settings}
    info = {side: ucx_info(args.backend, tuned_env[tuned]) for side, tuned in (("defaults", False), ("settings", True))
            } if args.library == "ucx" else None
    record = open(args.record, "w") if args.record else None
    measured = []
    for name, size, mis in points:
        for test in tests:
            iterations = args.iterations if size <= (256 << 10) else max(args.iterations // 5, 50)
            if args.library == "ucx":
                def point(tuned):
                    return ucx_run(args.backend, tuned_env[tuned], test, size, iterations)
            else:
                def point(tuned):
                    return ompi_run(args.backend, tuned_env[tuned], args.pingpong, size, iterations)
            a, a_core, b, b_core = measure(point, args.pairs, args.core_probe)
            runs = {"threshold": name, "test": test, "size": size, "mis": mis, "defaults": a, "settings": b,
                    "defaults_core_ns": a_core, "settings_core_ns": b_core}
            if info:
                runs["ucx_info"] = info
            print(f"measured {test} {size}: defaults {statistics.median(a) * 1e6:.2f}us, "
                  f"settings {statistics.median(b) * 1e6:.2f}us", flush=True)
            if record:
                record.write(json.dumps(runs) + "\n")
                record.flush()
            measured.append(runs)
    print(f"load average {os.getloadavg()[0]:.2f} after")
    return judge_points(measured)

if __name__ == "__main__":
    sys.exit(main())
