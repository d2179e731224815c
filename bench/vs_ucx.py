#!/usr/bin/env python3
"""xover against ucx_perftest on the same transports, in one run.

For shared memory (xover --backend shm; UCX posix + cma), TCP over the
loopback (xover --backend tcp; UCX tcp) and RDMA verbs (xover --backend
verbs; UCX rc_verbs, both ranks on this node through the HCA's loopback),
it measures:

  - tag ping-pong latency (half a round trip, median) at 8 B, 4 KiB, 64 KiB
    and 1 MiB: xover's pingpong workload against `ucx_perftest -t tag_lat`;
  - streaming bandwidth at 64 KiB and 4 MiB: xover's stream workload (a
    window of messages, then an 8-byte ack) against `ucx_perftest -t tag_bw`;

and prints a table with the ratios. Targets: shm's 8-byte latency at most
UCX's and the other small-message latencies within 1.25x; tcp's 4 MiB
stream at least 0.95x of UCX's and the others' at least 0.9x; each marked
met or MISSED. Then, where valgrind is installed, the instructions per
8-byte shm message of bench/shm_cost under callgrind: the figure that does
not move with the machine's load. Both sides run
two processes pinned to cores 0 and 1; xover's protocol selection is `auto`.

A transport this machine cannot run is skipped with the reason: verbs where
xover's backend table says so (no RDMA device, or a build without
libibverbs) or where ucx_info lists no rc_verbs device.

usage: bench/vs_ucx.py [--xover build/tools/xover] [--quick] [--only shm|tcp|verbs] [--ib-dev mlx5_0:1]
                       [--shm-cost build/bench/shm_cost]
"""
import argparse
import csv
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

LAT_SIZES = [8, 4096, 65536, 1 << 20]
BW_SIZES = [65536, 4 << 20]
TRANSPORTS = {"shm": "posix,cma,self", "tcp": "tcp,self", "verbs": "rc_verbs,self"}

SCENARIO = """<?xml version="1.0"?>
<scenario name="{name}" seed="1">
  <platform file="{platform}"/>
  <workload kind="{kind}" iterations="{iterations}" warmup="{warmup}"{window}/>
  <sizes list="{size}"/>
</scenario>
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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


def xover_point(xover, backend, kind, size, iterations, window, tmp, platform, extra):
    """Median seconds per message of one xover run."""
    name = f"{backend}-{kind}-{size}"
    path = os.path.join(tmp, name + ".xml")
    with open(path, "w") as f:
        f.write(SCENARIO.format(name=name, platform=platform, kind=kind, iterations=iterations,
                                warmup=max(iterations // 10, 2), size=size,
                                window=f' window="{window}"' if kind == "stream" else ""))
    out = os.path.join(tmp, name + ".csv")
    subprocess.run([xover, "run", path, "--backend", backend, "--out", out] + extra, check=True,
                   stdout=subprocess.DEVNULL)
    with open(out) as f:
        row = next(csv.DictReader(f))
    if row["errors"] != "0":
        sys.exit(f"xover: {row['errors']} corrupt messages in {name}")
    return float(row["t_median_us"]) * 1e-6, row["selected"]


def ucx_point(transport, test, size, iterations, window, ib_dev):
    """UCX's seconds per message: the median half round trip (tag_lat) or
    the overall time per message (tag_bw, from its message rate)."""
    devices = {"tcp": "lo", "verbs": ib_dev or "all"}.get(transport, "all")
    env = dict(os.environ, UCX_TLS=TRANSPORTS[transport], UCX_NET_DEVICES=devices)
    port = str(free_port())
    common = ["-t", test, "-s", str(size), "-n", str(iterations), "-w", str(max(iterations // 10, 2)), "-p", port]
    if test == "tag_bw":
        common += ["-O", str(window)]
    server = subprocess.Popen(["taskset", "-c", "0", "ucx_perftest"] + common, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for attempt in range(50):
            client = subprocess.run(["taskset", "-c", "1", "ucx_perftest", "127.0.0.1"] + common, env=env,
                                    capture_output=True, text=True)
            if client.returncode == 0:
                break
            time.sleep(0.1)
        else:
            sys.exit(f"ucx_perftest failed: {client.stderr.strip()}")
    finally:
        server.wait(timeout=30)
    final = [line for line in client.stdout.splitlines() if line.startswith("Final:")]
    if not final:
        sys.exit(f"ucx_perftest printed no result:\n{client.stdout}")
    # Final: iterations, p50 latency, avg latency, overall latency (us),
    # bandwidth avg, overall (MB/s), message rate avg, overall.
    fields = re.split(r"\s+", final[0].strip())[1:]
    if test == "tag_lat":
        return float(fields[1]) * 1e-6
    return 1.0 / float(fields[7])


def latency_target(backend, size):
    """Issue 16: shm's 8-byte latency at UCX's; the other small sizes within 1.25x."""
    if backend == "shm" and size == 8:
        return "<= 1.0"
    return "<= 1.25" if size <= 4096 else ""


def bandwidth_target(backend, size):
    """Issue 16: tcp's 4 MiB stream at 0.95x of UCX's; the others at 0.9x."""
    if size < (4 << 20):
        return ""
    return ">= 0.95" if backend == "tcp" else ">= 0.9"


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


def fmt_time(t):
    return f"{t * 1e6:9.3f} us"


def fmt_bw(size, t):
    return f"{size / t / 1e9:9.3f} GB/s"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--xover", default=os.path.join(os.path.dirname(__file__), "..", "build", "tools", "xover"))
    parser.add_argument("--quick", action="store_true", help="fewer iterations: a rough table in seconds")
    parser.add_argument("--only", choices=sorted(TRANSPORTS), help="one transport")
    parser.add_argument("--ib-dev", help="verbs: the ports both sides use (mlx5_0:1,mlx5_1:1; default all)")
    parser.add_argument("--shm-cost", default=os.path.join(os.path.dirname(__file__), "..", "build", "bench", "shm_cost"),
                        help="bench/shm_cost, counted under callgrind for the shm row's instructions")
    args = parser.parse_args()
    if not shutil.which("ucx_perftest"):
        sys.exit("no ucx_perftest: apt-get install ucx-utils")
    platform = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "platforms", "shm-intra.xml"))
    scale = 10 if args.quick else 1

    rows = []
    skipped = []
    with tempfile.TemporaryDirectory() as tmp:
        for backend in [args.only] if args.only else ["shm", "tcp", "verbs"]:
            why = why_unavailable(args.xover, backend)
            if why:
                skipped.append((backend, why))
                continue
            extra = ["--ib-dev", args.ib_dev] if backend == "verbs" and args.ib_dev else []
            for size in LAT_SIZES:
                n = max((20000 if size <= 4096 else 2000 if size <= 65536 else 300) // scale, 20)
                t_x, proto = xover_point(args.xover, backend, "pingpong", size, n, 1, tmp, platform, extra)
                t_u = ucx_point(backend, "tag_lat", size, n, 1, args.ib_dev)
                rows.append((backend, "latency", size, proto, fmt_time(t_x), fmt_time(t_u), t_x / t_u,
                             latency_target(backend, size)))
            for size in BW_SIZES:
                window = 16
                n = max((400 if size <= 65536 else 40) // scale, 4)
                t_x, proto = xover_point(args.xover, backend, "stream", size, n, window, tmp, platform, extra)
                t_u = ucx_point(backend, "tag_bw", size, n * window, window, args.ib_dev)
                rows.append((backend, "bandwidth", size, proto, fmt_bw(size, t_x), fmt_bw(size, t_u), t_u / t_x,
                             bandwidth_target(backend, size)))

    if rows:
        print(f"{'backend':8} {'test':10} {'size':>8}  {'xover protocol':18} {'xover':>14} {'ucx_perftest':>14}"
              f"  {'ratio':>6}  target")
        for backend, test, size, proto, x, u, ratio, target in rows:
            ok = ""
            if target:
                op, bound = target.split()
                ok = " met" if (ratio <= float(bound) if op == "<=" else ratio >= float(bound)) else " MISSED"
            print(f"{backend:8} {test:10} {size:>8}  {proto:18} {x:>14} {u:>14}  {ratio:6.2f}  {target}{ok}")
        print("ratio: xover / UCX for latency (lower is better), xover / UCX bandwidth (higher is better)")
    if not args.only or args.only == "shm":
        print(shm_instructions(args.shm_cost))
    for backend, why in skipped:
        print(f"{backend}: skipped: {why}")


if __name__ == "__main__":
    main()
