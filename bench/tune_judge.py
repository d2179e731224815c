"""bench/tune_check.py's judgement of one point (a test at a size): the
defaults' runs (A) against the settings' runs (B), pair by pair, as
--record writes them and --judge reads them back.

  - Where the defaults hand over differently from the settings (`mis`): met
    when B is faster (ratio < 1); elsewhere met when B is no slower than A
    by more than 5 % (ratio <= 1.05).
  - The machine's state: where the runs carry the core-to-core round trip
    measured before and after each (bench/core_to_core, `*_core_ns`), the
    round trips of the whole file split in two states at their largest step
    of more than 1.5x (at least two on each side): each run is in the state
    its two round trips agree on (a run whose state changed under it is left
    out), and A is set against B within each state, median against median:
    "met in both states", "met in the fast state" (the other with fewer than
    two runs of a side), or BIMODAL (no verdict) where the states disagree.
    With one state in the file the median of the pairs' ratios decides.
  - Runs without those round trips (older records): a side's runs with such
    a step among themselves count as two states, a side in one state set
    against both of the other's.
  - UCX's own report (`ucx_info`: its `lane[...]` lines and `tag_send:`
    thresholds, with the defaults and with the settings): where it runs the
    same protocol at that size, on the same lanes, both ways, the settings
    change nothing there: "same protocol", no verdict, the ratio and what it
    would have said shown beside UCX's words.
"""
import math
import statistics
import sys

SLOWER_LIMIT = 1.05
BIMODAL_GAP = 1.5


def states(times):
    """Runs split in two machine states (fast, slow): sorted, the largest
    step between neighbours that leaves at least two runs on each side,
    where it exceeds BIMODAL_GAP; None when the runs have one state."""
    t = sorted(times)
    best = None
    for k in range(2, len(t) - 1):
        step = t[k] / t[k - 1]
        if step > BIMODAL_GAP and (best is None or step > best[0]):
            best = (step, k)
    return None if best is None else (t[:best[1]], t[best[1]:])


def trip_boundary(trips):
    """The round trip (ns) that parts the machine's two core-to-core states
    among `trips`, or None: one state, or no round trips."""
    split = states(trips) if trips else None
    return None if split is None else math.sqrt(split[0][-1] * split[1][0])


def core_boundary(points):
    """trip_boundary over every run of `points`."""
    return trip_boundary([ns for p in points for side in ("defaults_core_ns", "settings_core_ns")
                          for run in p.get(side, []) for ns in run])


def ucx_protocol(lines, size):
    """(protocol, its range) that UCX's `tag_send:` thresholds line in
    `lines` gives `size`: "0..<egr/short>..8185..<egr/zcopy>..20553..<rndv>..(inf)"
    runs egr/zcopy from 8185 to 20552 B."""
    tag_send = [line.split("tag_send:", 1)[1].strip() for line in lines if line.strip().startswith("tag_send:")]
    if len(tag_send) != 1:
        raise ValueError(f"ucx_info: {len(tag_send)} tag_send: lines, want 1")
    words = tag_send[0].split("..")
    if len(words) < 3 or len(words) % 2 == 0:
        raise ValueError(f"ucx_info: tag_send: {tag_send[0]!r} is not START..<protocol>..END...")
    for i in range(1, len(words), 2):
        start = int(words[i - 1])
        end = math.inf if words[i + 1] == "(inf)" else int(words[i + 1])
        if start <= size < end:
            last = "inf" if end == math.inf else str(end - 1)
            return words[i].strip("<>"), f"{start}..{last}"
    raise ValueError(f"ucx_info: tag_send: {tag_send[0]!r} does not cover {size} B")


def same_protocol(point):
    """UCX's words that it runs one protocol at the point's size both ways,
    on the same lanes, or None."""
    info = point.get("ucx_info")
    if not info:
        return None
    lanes = [sorted(line.strip() for line in info[side] if line.strip().startswith("lane[")) for side in
             ("defaults", "settings")]
    (pa, ra), (pb, rb) = (ucx_protocol(info[side], point["size"]) for side in ("defaults", "settings"))
    if pa != pb or lanes[0] != lanes[1] or not lanes[0]:
        return None
    return (f"ucx_info -e: tag_send runs <{pa}> at {point['size']} B with the defaults ({ra}) and with the "
            f"settings ({rb}), on the same {len(lanes[0])} lane(s)")


def met(mis, ratio):
    return ratio < 1.0 if mis else ratio <= SLOWER_LIMIT


def by_state(times, trips, boundary):
    """The runs of one side in the fast and in the slow state."""
    fast, slow = [], []
    for t, (before, after) in zip(times, trips):
        if max(before, after) < boundary:
            fast.append(t)
        elif min(before, after) > boundary:
            slow.append(t)
    return fast, slow


def judge_by_core(point, boundary):
    """(verdict, note) within the states the core-to-core round trips say."""
    a = by_state(point["defaults"], point["defaults_core_ns"], boundary)
    b = by_state(point["settings"], point["settings_core_ns"], boundary)
    parts, verdicts = [], []
    for name, ra, rb in zip(("fast", "slow"), a, b):
        if len(ra) < 2 or len(rb) < 2:
            parts.append(f"{name}: {len(ra)}+{len(rb)} runs, too few")
            continue
        ratio = statistics.median(rb) / statistics.median(ra)
        verdicts.append((name, met(point["mis"], ratio)))
        parts.append(f"{name}: {len(ra)}+{len(rb)} runs, {statistics.median(ra) * 1e6:.2f} -> "
                     f"{statistics.median(rb) * 1e6:.2f}us, {ratio:.3f}")
    note = f"core-to-core states split at {boundary:.0f} ns; " + "; ".join(parts)
    if not verdicts:
        return "BIMODAL", note
    if len({ok for _, ok in verdicts}) == 2:
        return "BIMODAL", note
    word = "met" if verdicts[0][1] else "MISSED"
    where = "in both states" if len(verdicts) == 2 else f"in the {verdicts[0][0]} state"
    return f"{word} {where}", note


def judge_by_runs(point):
    """(verdict, note) where a side's own runs fall in two states, or None."""
    a, b, mis = point["defaults"], point["settings"], point["mis"]
    split = {"defaults": states(a), "settings": states(b)}
    if not any(split.values()):
        return None
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
    ok = [met(mis, r) for r in within]
    if all(ok) or not any(ok):
        return ("met" if all(ok) else "MISSED") + " in both states", "; ".join(parts)
    return "BIMODAL", "; ".join(parts)


def judge(point, boundary):
    """(verdict, median of the pairs' ratios, note) of one point."""
    ratios = [y / x for x, y in zip(point["defaults"], point["settings"])]
    median = statistics.median(ratios)
    if boundary is not None and "defaults_core_ns" in point and "settings_core_ns" in point:
        verdict, note = judge_by_core(point, boundary)
    else:
        verdict, note = judge_by_runs(point) or (("met" if met(point["mis"], median) else "MISSED"), "")
    if not point["mis"]:
        words = same_protocol(point)
        if words:
            return "same protocol", median, f"{words}; the ratio measures the machine: it would say {verdict}" + (
                f" ({note})" if note else "")
    return verdict, median, note


HEADER = (f"{'threshold':24} {'test':9} {'size':>8} {'default':>11} {'tuned':>11} {'ratio':>6} {'range':>13}  "
          f"{'target':14} verdict")


def report(point, boundary):
    """Prints one point's line; returns its verdict."""
    a, b = point["defaults"], point["settings"]
    verdict, median, note = judge(point, boundary)
    ratios = [y / x for x, y in zip(a, b)]
    target = "faster" if point["mis"] else "<= 1.05"
    print(f"{point['threshold']:24} {point['test']:9} {point['size']:>8} {statistics.median(a) * 1e6:>9.2f}us "
          f"{statistics.median(b) * 1e6:>9.2f}us {median:>6.3f} {min(ratios):>6.3f}-{max(ratios):<6.3f}  "
          f"{target:14} {verdict}" + (f" ({note})" if note else ""), flush=True)
    return verdict


def summary(verdicts):
    """The closing line and the exit status of a list of verdicts: 1 for a
    MISSED, else 3 for a BIMODAL, else 0."""
    missed = sum(v.startswith("MISSED") for v in verdicts)
    bimodal = verdicts.count("BIMODAL")
    same = verdicts.count("same protocol")
    print(f"{missed} MISSED, {bimodal} BIMODAL (no verdict), {same} same protocol (no verdict), "
          f"{sum(v.startswith('met') for v in verdicts)} met")
    return 1 if missed else 3 if bimodal else 0


def check_point(point):
    """Raises ValueError or KeyError where a recorded point is malformed."""
    runs = len(point["defaults"])
    if runs != len(point["settings"]) or runs < 2:
        raise ValueError("defaults and settings need the same number of runs, at least 2")
    for side in ("defaults", "settings"):
        trips = point.get(side + "_core_ns")
        if trips is not None and (len(trips) != runs or any(len(t) != 2 for t in trips)):
            raise ValueError(f"{side}_core_ns needs one [before, after] per run")
    if "ucx_info" in point:
        for side in ("defaults", "settings"):
            ucx_protocol(point["ucx_info"][side], point["size"])


def judge_points(points):
    """Prints the table of `points`; returns the exit status."""
    boundary = core_boundary(points)
    print(HEADER)
    return summary([report(p, boundary) for p in points])


def read_points(path, loads):
    """The points recorded in `path`, or exits 2 naming the file and line."""
    points = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                point = loads(line)
                check_point(point)
                points.append(point)
            except KeyError as e:
                print(f"{path}:{number}: no {e.args[0]!r}", file=sys.stderr)
                sys.exit(2)
            except (ValueError, TypeError) as e:
                print(f"{path}:{number}: {e}", file=sys.stderr)
                sys.exit(2)
    return points
