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

A UCX one-message point whose runs fall in two machine states (tune_check's
test: a step of more than 1.5x with two runs or more on each side; UCX's
posix eager, in spells) is written at the fast state's median with
a `slow` line beside it at the slow state's, so that `xover tune` prices
both states; a stream point at the median of its runs.

These sizes are none that bench/tune_check.py judges (it judges the library's
own hand-over D, D/2, the powers of two, xover's threshold T and 2T). Each
point is the median of `--repeats` runs, taken in rounds (every point once
per round) so that a slow spell of the machine weighs on every line alike. Writes the probe file
(tools/tune/probes.hpp) to `--out` and prints it.

usage: bench/tune_probe.py --for ucx|ompi --backend shm|tcp [--platform CAL.xml] --out FILE
                           [--xover build/tools/xover] [--pingpong build/bench/mpi_pingpong] [--repeats 5]
"""
import argparse
import os
import statistics
import sys

from tune_check import default_platform, ompi_run, skip_reason, tune, ucx_run
from tune_judge import states


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


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--for", dest="library", choices=["ucx", "ompi"], required=True)
    parser.add_argument("--backend", choices=["shm", "tcp", "verbs"], required=True)
    parser.add_argument("--platform")
    parser.add_argument("--out", required=True)
    parser.add_argument("--xover", default="build/tools/xover")
    parser.add_argument("--pingpong", default="build/bench/mpi_pingpong")
    parser.add_argument("--repeats", type=int, default=5,
                        help="runs per point, in rounds (4 or more to see two machine states)")
    parser.add_argument("--iterations", type=int, default=1000)
    args = parser.parse_args()
    why = skip_reason(args.library, args.backend, args.pingpong)
    if why:
        sys.exit(f"tune_probe {args.library} on {args.backend}: cannot run: {why}")
    result = tune(args.xover, args.library, args.backend, args.platform or default_platform(args.backend))
    lines = result["lines"]
    plan = ucx_plan(lines) if args.library == "ucx" else ompi_plan(lines, result, args.backend)
    out = [f"# the installed library's own one-message latency (median half round trip) and, on `stream` lines, "
           f"time per message of a stream; median of {args.repeats} runs, protocol forced; "
           f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores",
           f"library {args.library}", f"backend {args.backend}"]
    # Every point once per round, the rounds one after another: a slow
    # spell of the machine falls on every line alike, not on one.
    times = [[] for _ in plan]
    for _ in range(args.repeats):
        for i, (protocol, size, env, test) in enumerate(plan):
            iterations = args.iterations if size <= (256 << 10) else max(args.iterations // 5, 50)
            if args.library == "ucx":
                times[i].append(ucx_run(args.backend, env, test, size, iterations))
            else:
                times[i].append(ompi_run(args.backend, env, args.pingpong, size, iterations))
    for (protocol, size, env, test), t in zip(plan, times):
        forced = " ".join(f"{k}={v}" for k, v in env.items()) or "defaults"
        spread = ", ".join(f"{x * 1e6:.2f}" for x in t)
        two = states(t) if test == "tag_lat" else None
        if test == "tag_bw":
            out.append(f"stream {protocol} {size} {statistics.median(t):.6e}  # {test} {forced}; runs (us) {spread}")
        elif two:
            out.append(f"{protocol} {size} {statistics.median(two[0]):.6e}  # {test} {forced}; two states, the fast "
                       f"one; runs (us) {spread}")
            out.append(f"slow {protocol} {size} {statistics.median(two[1]):.6e}  # the slow state")
        else:
            out.append(f"{protocol} {size} {statistics.median(t):.6e}  # {test} {forced}; runs (us) {spread}")
        print("\n".join(out[-2:] if two else out[-1:]), flush=True)
    out.append(f"# load average {os.getloadavg()[0]:.2f} after")
    if os.path.dirname(args.out):
        os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        f.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
