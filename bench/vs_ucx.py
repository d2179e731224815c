#!/usr/bin/env python3
"""xover against ucx_perftest on the same transports, in interleaved pairs.

For shared memory (xover --backend shm; UCX posix + cma), TCP over the
loopback (xover --backend tcp; UCX tcp) and RDMA verbs (xover --backend
verbs; UCX rc_verbs, both ranks on this node through the HCA's loopback),
it measures:

  - tag ping-pong latency (half a round trip, median) at 8 B, 4 KiB, 64 KiB
    and 1 MiB: xover's pingpong workload against `ucx_perftest -t tag_lat`;
  - on shm, the rendezvous at 1 MiB and 4 MiB: xover's pingpong with
    rndv/get against tag_lat with UCX_TLS=posix,cma and UCX's rendezvous
    from the first byte (UCX_RNDV_THRESH=0, UCX_RNDV_SCHEME=get_zcopy);
  - streaming bandwidth at 64 KiB and 4 MiB: xover's stream workload (a
    window of messages, then an 8-byte ack) against `ucx_perftest -t tag_bw`.

Each point runs the two programs in interleaved pairs (--pairs, 5 by
default): xover then UCX, UCX then xover, and so on, so that a slow spell
of the machine falls on both; each pair gives a ratio, and the table prints
the median of the pairs' ratios with their range. A target is met or MISSED
on the median, and a point whose pairs fall on both sides of its bound says
so: shm's 8-byte latency at most UCX's and the other latencies up to 4 KiB
within 1.25x (issue 16); shm's rndv/get at 1 MiB and 4 MiB at most UCX's
cma rendezvous (issue 29); tcp's 4 MiB stream at least 0.95x of UCX's and
shm's at least 0.9x. Then the figures that do not move with the machine's
load: process_vm_readv calls per 1 MiB rndv/get message on shm, xover's and
UCX's, counted with strace; and, where valgrind is installed, the
instructions per 8-byte shm message of bench/shm_cost under callgrind.
UCX's two processes are pinned to cores 0 and 1, as xover pins its ranks;
xover's protocol selection is `auto` except on the rndv/get rows.

A transport this machine cannot run is skipped with the reason: verbs where
xover's backend table says so (no RDMA device, or a build without
libibverbs) or where ucx_info lists no rc_verbs device.

usage: bench/vs_ucx.py [--xover build/tools/xover] [--quick] [--pairs 5] [--only shm|tcp|verbs]
                       [--ib-dev mlx5_0:1] [--shm-cost build/bench/shm_cost]
"""
import argparse
import csv
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

from perftest import ucx_perftest

TRANSPORTS = {"shm": "posix,cma,self", "tcp": "tcp,self", "verbs": "rc_verbs,self"}
WINDOW = 16
# Fewer pairs than this and a verdict is indicative only (bench/pairs.hpp's kMinPairs).
MIN_PAIRS = 5
# UCX's rendezvous on shared memory: a get through cma from the first byte.
UCX_RNDV = {"UCX_TLS": "posix,cma", "UCX_RNDV_THRESH": "0", "UCX_RNDV_SCHEME": "get_zcopy"}


class Point:
    """One row: an xover run and a ucx_perftest run of the same message,
    measured in interleaved pairs."""

    def __init__(self, backend, test, size, curve="auto", ucx_env=None, target=None):
        self.backend, self.test, self.size, self.curve = backend, test, size, curve
        self.ucx_env = ucx_env or {"UCX_TLS": TRANSPORTS[backend]}
        self.target = target  # ("<=" or ">=", bound) or None
        self.xover, self.ucx, self.ratios, self.protocols = [], [], [], {}

    def label(self):
        return f"{self.backend} {self.test} {self.size} B" + ("" if self.curve == "auto" else f" {self.curve}")


def points_for(backend):
    """The rows of one backend, each with issue 16's or issue 29's target."""
    rows = [Point(backend, "latency", 8, target=("<=", 1.0 if backend == "shm" else 1.25)),
            Point(backend, "latency", 4096, target=("<=", 1.25)),
            Point(backend, "latency", 65536),
            Point(backend, "latency", 1 << 20)]
    if backend == "shm":
        # Issue 29: the rendezvous against UCX's cma rendezvous.
        rows += [Point(backend, "latency", size, "rndv/get", UCX_RNDV, ("<=", 1.0)) for size in (1 << 20, 4 << 20)]
    rows += [Point(backend, "bandwidth", 65536),
             Point(backend, "bandwidth", 4 << 20, target=(">=", 0.95 if backend == "tcp" else 0.9))]
    return rows


SCENARIO = """<?xml version="1.0"?>
<scenario name="{name}" seed="1">
  <platform file="{platform}"/>
  <workload kind="{kind}" iterations="{iterations}" warmup="{warmup}"{window}/>
  <sizes list="{size}"/>
  <curves>{curve}</curves>
</scenario>
"""


def why_unavailable(xover, backend):
    """Why this machine cannot run `backend` on both sides, or None. xover
    checks its backend table before it reads the scenario, so a missing
    scenario file is enough to ask."""
    probe = subprocess.run([xover, "run", "/nonexistent.xml", "--backend", backend], capture_output=True, text=True)
    marker = f"backend {backend}: "
    if marker in probe.stderr:
        return "xover: " + probe.stderr.split(marker, 1)[1].strip()
    if backend == "verbs":
        info = subprocess.run(["ucx_info", "-d"], capture_output=True, text=True)
        if "rc_verbs" not in info.stdout:
            return "ucx_info -d lists no rc_verbs transport (no RDMA device, or UCX built without verbs)"
    return None


def iterations_for(point, scale):
    """Iterations of one run: a latency point's round trips, a stream's windows."""
    if point.test == "latency":
        n = 20000 if point.size <= 4096 else 2000 if point.size <= 65536 else 300 if point.size <= (1 << 20) else 100
        return max(n // scale, 20)
    return max((400 if point.size <= 65536 else 40) // scale, 4)


def write_scenario(point, iterations, tmp, platform):
    """The scenario file of one xover run of `point`."""
    kind = "pingpong" if point.test == "latency" else "stream"
    name = f"{point.backend}-{kind}-{point.size}-{point.curve.replace('/', '_')}-{iterations}"
    path = os.path.join(tmp, name + ".xml")
    with open(path, "w") as f:
        f.write(SCENARIO.format(name=name, platform=platform, kind=kind, iterations=iterations,
                                warmup=max(iterations // 10, 2), size=point.size, curve=point.curve,
                                window=f' window="{WINDOW}"' if kind == "stream" else ""))
    return path


def xover_run(xover, point, iterations, tmp, platform, extra):
    """Seconds per message of one xover run (the median sample) and the
    protocol it took."""
    path = write_scenario(point, iterations, tmp, platform)
    out = path[:-4] + ".csv"
    subprocess.run([xover, "run", path, "--backend", point.backend, "--out", out] + extra, check=True,
                   stdout=subprocess.DEVNULL)
    with open(out) as f:
        row = next(csv.DictReader(f))
    if row["errors"] != "0":
        sys.exit(f"xover: {row['errors']} corrupt messages in {point.label()}")
    return float(row["t_median_us"]) * 1e-6, row["selected"]


def ucx_run(point, iterations, ib_dev, server_wrap=(), client_wrap=()):
    """UCX's seconds per message: the median half round trip (tag_lat) or
    the overall time per message (tag_bw, from its message rate)."""
    devices = {"tcp": "lo", "verbs": ib_dev or "all"}.get(point.backend, "all")
    env = dict(os.environ, UCX_NET_DEVICES=devices, **point.ucx_env)
    test = "tag_lat" if point.test == "latency" else "tag_bw"
    n = iterations if test == "tag_lat" else iterations * WINDOW
    return ucx_perftest(test, point.size, n, env, WINDOW, server_wrap, client_wrap)


def measure(point, pairs, run_xover, run_ucx):
    """`pairs` interleaved pairs, xover first in the even ones and UCX
    first in the odd ones, so that a slow spell of the machine falls on
    both sides; each pair's ratio is its own (latency: xover / UCX, lower
    is better; bandwidth: xover's / UCX's, higher is better)."""
    for i in range(pairs):
        if i % 2 == 0:
            (t_x, proto), t_u = run_xover(), run_ucx()
        else:
            t_u = run_ucx()
            t_x, proto = run_xover()
        point.xover.append(t_x)
        point.ucx.append(t_u)
        point.protocols[proto] = point.protocols.get(proto, 0) + 1
        point.ratios.append(t_x / t_u if point.test == "latency" else t_u / t_x)


def verdict(point):
    """The target's verdict on the median of the pairs' ratios (as
    bench/pairs.cpp's PairRatios::verdict), saying where the range
    straddles the bound and where the pairs are too few."""
    op, bound = point.target
    r = point.ratios
    med, lo, hi = statistics.median(r), min(r), max(r)
    at_most = op == "<="
    met = med <= bound if at_most else med >= bound
    below = lo <= bound if at_most else lo < bound
    above = hi > bound if at_most else hi >= bound
    out = f"{'met' if met else 'MISSED'} (median {med:.2f} ({lo:.2f}-{hi:.2f}), {len(r)} pairs"
    if below and above:
        out += f"; the range straddles {bound:g}"
    if len(r) < MIN_PAIRS:
        out += f"; fewer than {MIN_PAIRS}: indicative only"
    return out + ")"


def strace_prefix(out):
    return ["strace", "-f", "-e", "trace=process_vm_readv", "-o", out]


def readv_returns(out):
    """What each process_vm_readv call in a strace log returned."""
    with open(out) as f:
        return [int(m.group(1)) for line in f if "process_vm_readv" in line
                for m in [re.search(r"= (\d+)$", line.strip())] if m]


def readv_per_message(xover, tmp, platform, size):
    """process_vm_readv calls per `size`-byte rndv/get message on shm, for
    xover and for UCX's cma rendezvous: the calls that moved the messages'
    bytes over the messages they moved (their bytes over `size`). xover's
    wire-up reads 8 bytes and its 4 MiB probe; those are left out. It
    counts calls, so the machine's load does not move it."""
    if not shutil.which("strace"):
        return "process_vm_readv calls per rndv/get message: skipped: strace not found"
    point = Point("shm", "latency", size, "rndv/get", UCX_RNDV)
    path = write_scenario(point, 100, tmp, platform)
    xover_out = path[:-4] + ".strace"
    subprocess.run(strace_prefix(xover_out) + [xover, "run", path, "--backend", "shm", "--out", path[:-4] + ".csv"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    server_out, client_out = os.path.join(tmp, "server.strace"), os.path.join(tmp, "client.strace")
    ucx_run(point, 100, None, server_wrap=strace_prefix(server_out), client_wrap=strace_prefix(client_out))

    def per_message(calls):
        calls = [n for n in calls if 8 < n < (4 << 20)]
        return len(calls) / (sum(calls) / size) if calls else float("nan")

    x = per_message(readv_returns(xover_out))
    u = per_message(readv_returns(server_out) + readv_returns(client_out))
    return (f"process_vm_readv calls per {size >> 20} MiB rndv/get message on shm (strace: calls over the messages "
            f"their bytes make): xover {x:.2f}, UCX {u:.2f}")


def shm_instructions(shm_cost):
    """The stable figure of the shm path: bench/shm_cost's instructions per
    8-byte message under callgrind (two ranks in one process, every poll
    finding its message), or why it was skipped."""
    if not shutil.which("valgrind"):
        return "shm instructions per 8-byte message: skipped: valgrind not found"
    if not os.access(shm_cost, os.X_OK):
        return f"shm instructions per 8-byte message: skipped: no {shm_cost} (build the shm_cost target)"
    round_trips = 20000
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        run = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                              "--toggle-collect=*round_trips*", shm_cost, str(round_trips)],
                             capture_output=True, text=True)
        if run.returncode != 0:
            return f"shm instructions per 8-byte message: skipped: shm_cost failed: {run.stderr.strip()[-200:]}"
        with open(out) as f:
            total = next(int(line.split()[1]) for line in f if line.startswith("summary:"))
    return (f"shm instructions per 8-byte message (callgrind, bench/shm_cost: protocol core and transport, "
            f"both ends): {total / (2 * round_trips):.0f}")


def shown(point, t):
    """A median time per message, as a latency or a bandwidth."""
    if point.test == "latency":
        return f"{t * 1e6:9.3f} us"
    return f"{point.size / t / 1e9:9.3f} GB/s"


def print_table(points):
    print(f"{'backend':8} {'test':10} {'size':>8}  {'xover protocol':34} {'xover':>14} {'ucx_perftest':>14}"
          f"  {'pairs':>5}  ratio (range)")
    for p in points:
        protocols = ", ".join(f"{name}" if n == len(p.ratios) else f"{name} x{n}" for name, n in p.protocols.items())
        ratios = f"{statistics.median(p.ratios):5.2f} ({min(p.ratios):.2f}-{max(p.ratios):.2f})"
        print(f"{p.backend:8} {p.test:10} {p.size:>8}  {protocols:34} {shown(p, statistics.median(p.xover)):>14} "
              f"{shown(p, statistics.median(p.ucx)):>14}  {len(p.ratios):>5}  {ratios}")
    print("xover and ucx_perftest: the medians of their runs; ratio: the median of the pairs' ratios, xover / UCX "
          "for latency (lower is better), xover's / UCX's bandwidth (higher is better)")
    for p in points:
        if p.target:
            op, bound = p.target
            what = "at most" if op == "<=" else "at least"
            print(f"target: {p.label()} {what} {bound:g}x UCX: {verdict(p)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--xover", default=os.path.join(os.path.dirname(__file__), "..", "build", "tools", "xover"))
    parser.add_argument("--quick", action="store_true", help="fewer iterations: a rough table")
    parser.add_argument("--pairs", type=int, default=MIN_PAIRS,
                        help=f"interleaved pairs per point ({MIN_PAIRS} by default; fewer is indicative only)")
    parser.add_argument("--only", choices=sorted(TRANSPORTS), help="one transport")
    parser.add_argument("--ib-dev", help="verbs: the ports both sides use (mlx5_0:1,mlx5_1:1; default all)")
    parser.add_argument("--shm-cost", default=os.path.join(os.path.dirname(__file__), "..", "build", "bench", "shm_cost"),
                        help="bench/shm_cost, counted under callgrind for the shm row's instructions")
    args = parser.parse_args()
    if args.pairs < 1:
        parser.error("--pairs must be at least 1")
    if not shutil.which("ucx_perftest"):
        sys.exit("no ucx_perftest: apt-get install ucx-utils")
    platform = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "platforms", "shm-intra.xml"))
    scale = 10 if args.quick else 1

    points = []
    skipped = []
    counts = []
    with tempfile.TemporaryDirectory() as tmp:
        for backend in [args.only] if args.only else ["shm", "tcp", "verbs"]:
            why = why_unavailable(args.xover, backend)
            if why:
                skipped.append((backend, why))
                continue
            extra = ["--ib-dev", args.ib_dev] if backend == "verbs" and args.ib_dev else []
            for point in points_for(backend):
                n = iterations_for(point, scale)
                measure(point, args.pairs,
                        lambda: xover_run(args.xover, point, n, tmp, platform, extra),
                        lambda: ucx_run(point, n, args.ib_dev))
                points.append(point)
                print(f"{point.label()}: ratio {statistics.median(point.ratios):.2f} "
                      f"({min(point.ratios):.2f}-{max(point.ratios):.2f})", file=sys.stderr, flush=True)
            if backend == "shm":
                counts.append(readv_per_message(args.xover, tmp, platform, 1 << 20))

    if points:
        print_table(points)
    for line in counts:
        print(line)
    if not args.only or args.only == "shm":
        print(shm_instructions(args.shm_cost))
    for backend, why in skipped:
        print(f"{backend}: skipped: {why}")


if __name__ == "__main__":
    main()
