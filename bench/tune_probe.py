#!/usr/bin/env python3
"""The installed library's own times at a few sizes, for `xover tune
--probes`: what its protocols cost on this machine beyond what a platform
calibrated on xover's own transports can know (UCX's posix fragments and
CMA reads, ob1's matching and copies).

Each probe runs the library itself with one protocol forced and measures
one message's latency (the median half round trip):

  - UCX (`ucx_perftest -t tag_lat`, and `-t tag_bw` for the time per
    message of a stream, written as `stream` lines): its eager protocols
    with UCX_RNDV_THRESH=inf, at 0.4 S and 0.85 S (one message; S is the
    fragment of the multi-fragment eager line UCX runs: posix 8248 B, tcp's
    zero-copy 65528 B) and 2.5 S and 6.5 S (fragments); each rendezvous
    scheme of the model with UCX_RNDV_THRESH=0 UCX_RNDV_SCHEME=<scheme> at
    the same four sizes.
  - ob1 (bench/mpi_pingpong under mpirun): eager with the BTL's eager limit
    raised to the largest it accepts, and rendezvous with the defaults, at
    1.4 D, 2.7 D and 5.3 D (D: the installed eager limit).

The machine's core-to-core state (bench/core_to_core, the round trip of one
cache line between cores 0 and 1: on this project's VMs about 120 or about
480 ns, in spells; UCX's posix eager runs 4x slower in the slow one) is
measured just before and just after every run, as bench/tune_check.py does.
The round trips of the whole probe part in two states at their largest
step (bench/tune_judge.py); a run whose state changed under it is left out.
Each point is written at the fast state's median (the slow state's where
all its runs fell in it, which its comment says); a UCX one-message point
with two runs or more in each state gets a `slow` line beside it at the
slow state's median, so that `xover tune` prices both states (ob1's lines
are priced in one state: no slow line); a stream point at the median of
its runs.

These sizes are none that bench/tune_check.py judges (it judges the library's
own hand-over D, D/2, the powers of two, xover's threshold T and 2T). Each
point is the median of `--repeats` runs, taken in rounds (every point once
per round) so that a slow spell of the machine weighs on every line alike. Writes the probe file
(tools/tune/probes.hpp) to `--out` and prints it. `--record FILE` keeps
every run with its round trips (JSON lines); `--from FILE` writes the probe
file from such a record and measures nothing (a malformed one exits 2 with
the file and line).

usage: bench/tune_probe.py --for ucx|ompi --backend shm|tcp [--platform CAL.xml] --out FILE
                           [--xover build/tools/xover] [--pingpong build/bench/mpi_pingpong] [--repeats 5]
                           [--core-probe build/bench/core_to_core] [--record FILE | --from FILE]
"""
import argparse
import json
import os
import statistics
import sys

from tune_check import core_state, default_platform, ompi_run, skip_reason, tune, ucx_run
from tune_judge import by_state, trip_boundary


def line_at(lines, size, phase, prefer=None):
    """The line of `phase` that carries `size` (the one named `prefer` in
    its name first)."""
    def covers(line):
        return any(r["from"] <= size and (r["to"] is None or size <= r["to"]) for r in line["ranges"])
    found = [l for l in lines if l["phase"] == phase and covers(l)]
    if prefer:
        found.sort(key=lambda l: prefer not in l["protocol"])
    return found[0]["protocol"] if found else None


def ucx_plan(lines):
    """(protocol, size, env, test) for each UCX probe: one message's latency
    and a stream's time per message."""
    eager = [l for l in lines if l["phase"] == "eager" and "short" not in l["protocol"]]
    multi = [l for l in eager if l["fragment"]]
    # UCX sends from the user's buffer past its zero-copy threshold (a few
    # KiB): the zero-copy lines where the transport has them.
    zcopy = [l for l in multi if "zcopy" in l["protocol"]]
    frag = (zcopy or multi)[0]["fragment"]
    prefer = "zcopy" if zcopy else None
    sizes = [round(frag * k) for k in (0.4, 0.85, 2.5, 6.5)]
    forced = []
    for size in sizes:
        forced.append((line_at(eager, size, "eager", prefer), size, {"UCX_RNDV_THRESH": "inf"}))
    for line in lines:
        if line["phase"] == "rndv":
            scheme = line["protocol"].rsplit("/", 1)[1]
            for size in sizes:
                forced.append((line["protocol"], size, {"UCX_RNDV_THRESH": "0", "UCX_RNDV_SCHEME": scheme}))
    return [(protocol, size, env, test) for test in ("tag_lat", "tag_bw") for protocol, size, env in forced]


def ompi_plan(lines, result, backend):
    """(protocol, size, env, test) for each ob1 probe (one message's latency)."""
    btl = result["transports"]
    own = next(s for s in result["settings"] if s["name"] == f"btl_{btl}_eager_limit")["library"]
    limit = int(own.split()[0])
    eager = next(l for l in lines if l["protocol"] == "ob1/eager")
    # ob1 sends eager up to eager_limit less its largest header (56 B).
    cap = eager["ranges"][-1]["to"] + 56
    names = [l["protocol"] for l in lines]
    whole = [n for n in ("ob1/rndv/rget", "ob1/rndv/put") if n in names]
    plan = []
    for size in (round(limit * k) for k in (1.4, 2.7, 5.3)):
        plan.append(("ob1/eager", size, {f"OMPI_MCA_btl_{btl}_eager_limit": str(cap)}, "pingpong"))
        if whole:
            rndv = whole[0]
        else:
            rndv = line_at([l for l in lines if l["protocol"] == "ob1/rndv/rdma-pipeline"], size, "rndv") or \
                "ob1/rndv/send"
        plan.append((rndv, size, {}, "pingpong"))
    return plan


def measure(args, plan):
    """Every point of `plan` once per round, `--repeats` rounds, so that a
    slow spell of the machine falls on every line alike, not on one; each
    run between two core-to-core round trips. The points as --record
    writes them."""
    points = [{"protocol": protocol, "size": size, "test": test,
               "forced": " ".join(f"{k}={v}" for k, v in env.items()) or "defaults", "runs": [], "core_ns": []}
              for protocol, size, env, test in plan]
    for _ in range(args.repeats):
        for point, (protocol, size, env, test) in zip(points, plan):
            iterations = args.iterations if size <= (256 << 10) else max(args.iterations // 5, 50)
            before = core_state(args.core_probe)
            if args.library == "ucx":
                t = ucx_run(args.backend, env, test, size, iterations)
            else:
                t = ompi_run(args.backend, env, args.pingpong, size, iterations)
            point["runs"].append(t)
            point["core_ns"].append([before, core_state(args.core_probe)])
    return points


def probe_lines(points):
    """The probe file's lines of `points`: each at its fast core-to-core
    state's median, a `slow` line beside a one-message UCX point with two
    runs or more in each state."""
    boundary = trip_boundary([ns for p in points for run in p["core_ns"] for ns in run])
    out = []
    for p in points:
        spread = ", ".join(f"{x * 1e6:.2f}" for x in p["runs"])
        what = f"{p['test']} {p['forced']}; runs (us) {spread}"
        if p["test"] == "tag_bw":
            out.append(f"stream {p['protocol']} {p['size']} {statistics.median(p['runs']):.6e}  # {what}")
            continue
        if boundary is None:
            out.append(f"{p['protocol']} {p['size']} {statistics.median(p['runs']):.6e}  # {what}")
            continue
        fast, slow = by_state(p["runs"], p["core_ns"], boundary)
        left = len(p["runs"]) - len(fast) - len(slow)
        states = (f"core-to-core states split at {boundary:.0f} ns: {len(fast)} runs fast, {len(slow)} slow" +
                  (f", {left} left out (the state changed under them)" if left else ""))
        if not fast and not slow:
            raise ValueError(f"{p['protocol']} {p['size']}: every run's state changed under it")
        kept = fast or slow
        out.append(f"{p['protocol']} {p['size']} {statistics.median(kept):.6e}  # {what}; {states}"
                   + ("" if fast else "; all in the slow state"))
        if p["test"] == "tag_lat" and len(fast) >= 2 and len(slow) >= 2:
            out.append(f"slow {p['protocol']} {p['size']} {statistics.median(slow):.6e}  # the slow state")
    return out


def read_record(path):
    """The points --record wrote to `path`, or exits 2 naming the file and line."""
    points = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                p = json.loads(line)
                for key in ("protocol", "size", "test", "forced", "runs", "core_ns"):
                    if key not in p:
                        raise ValueError(f"no {key!r}")
                if not p["runs"] or len(p["core_ns"]) != len(p["runs"]) or any(len(c) != 2 for c in p["core_ns"]):
                    raise ValueError("core_ns needs one [before, after] per run, and a run at least")
                points.append(p)
            except (ValueError, TypeError) as e:
                print(f"{path}:{number}: {e}", file=sys.stderr)
                sys.exit(2)
    return points


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--for", dest="library", choices=["ucx", "ompi"], required=True)
    parser.add_argument("--backend", choices=["shm", "tcp", "verbs"], required=True)
    parser.add_argument("--platform")
    parser.add_argument("--out", required=True)
    parser.add_argument("--xover", default="build/tools/xover")
    parser.add_argument("--pingpong", default="build/bench/mpi_pingpong")
    parser.add_argument("--core-probe", default="build/bench/core_to_core",
                        help="the program that measures the machine's core-to-core state")
    parser.add_argument("--repeats", type=int, default=5,
                        help="runs per point, in rounds (4 or more to see two machine states)")
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--record", help="write every run with its core-to-core round trips here (JSON lines)")
    parser.add_argument("--from", dest="source", metavar="FILE",
                        help="write the probe file from a record of --record; measure nothing")
    args = parser.parse_args()
    if args.source:
        points = read_record(args.source)
        head = f"# from the runs recorded in {args.source}"
    else:
        why = skip_reason(args.library, args.backend, args.pingpong)
        if why:
            sys.exit(f"tune_probe {args.library} on {args.backend}: cannot run: {why}")
        if not os.access(args.core_probe, os.X_OK):
            sys.exit(f"no {args.core_probe}: build it (cmake --build build --target core_to_core)")
        result = tune(args.xover, args.library, args.backend, args.platform or default_platform(args.backend))
        lines = result["lines"]
        plan = ucx_plan(lines) if args.library == "ucx" else ompi_plan(lines, result, args.backend)
        head = f"# load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores"
        points = measure(args, plan)
        if args.record:
            with open(args.record, "w") as f:
                f.write("".join(json.dumps(p) + "\n" for p in points))
        head += f", {os.getloadavg()[0]:.2f} after"
    try:
        body = probe_lines(points)
    except ValueError as e:
        print(f"{args.source or 'tune_probe'}: {e}", file=sys.stderr)
        return 2
    out = ["# the installed library's own one-message latency (median half round trip) and, on `stream` lines, "
           f"time per message of a stream; protocol forced; runs in rounds",
           head, f"library {args.library}", f"backend {args.backend}"] + body
    print("\n".join(out), flush=True)
    if os.path.dirname(args.out):
        os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        f.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
