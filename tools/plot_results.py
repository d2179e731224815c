#!/usr/bin/python3
"""Draws the crossover plot of `xover plot` from the JSON it hands over.

usage: plot_results.py DATA.json OUT.png|OUT.svg

DATA.json holds the runs (one per results CSV, already checked): their
curves (sizes, median times, the protocol each size ran), the `auto`
curve's hand-overs and the crossings of forced curves. The top panel is
time against size on log axes, one colour per protocol, `auto` on top; the
bottom panel is each curve's time over the best curve's of its run at that
size. Simulated runs are dashed, hardware runs solid, each hardware curve
in the shaded band of its median's confidence interval where the run has
one (`ci_lo_us`, `ci_hi_us`). Exits 3 when matplotlib is missing.
"""

import json
import math
import sys

NO_MATPLOTLIB = 3
AUTO = "auto"
# Line styles by run kind, in order of appearance.
STYLES = {"sim": ["--", ":"], "hw": ["-", "-."]}


def size_label(n):
    """8, 1K, 64K, 1M; 4.59K, 1.5M: sizes as people write them, three
    significant digits where a size is not a whole multiple of its unit."""
    for step, letter in ((1 << 30, "G"), (1 << 20, "M"), (1 << 10, "K")):
        if n >= step:
            return f"{int(n) // step}{letter}" if n % step == 0 else f"{n / step:.3g}{letter}"
    return f"{n:.0f}" if n == int(n) else f"{n:.3g}"


def run_label(run):
    where = "simulation" if run["backend"] == "sim" else run["backend"]
    return f"{where} on {run['platform']}"


def colours(runs, palette):
    """One colour per protocol across every run: auto black, the others in
    order of first appearance."""
    out = {AUTO: "black"}
    for run in runs:
        for curve in run["curves"]:
            if curve["protocol"] not in out:
                out[curve["protocol"]] = palette[(len(out) - 1) % len(palette)]
    return out


def line_styles(runs):
    taken = {"sim": 0, "hw": 0}
    out = []
    for run in runs:
        kind = "sim" if run["backend"] == "sim" else "hw"
        out.append(STYLES[kind][taken[kind] % len(STYLES[kind])])
        taken[kind] += 1
    return out


def size_ticks(axis, sizes):
    """Powers of two across the sampled range, at most about ten labels."""
    low = math.floor(math.log2(min(sizes)))
    high = math.ceil(math.log2(max(sizes)))
    step = max(1, math.ceil((high - low + 1) / 10))
    ticks = [2.0**e for e in range(low, high + 1, step)]
    axis.set_xticks(ticks)
    axis.set_xticklabels([size_label(t) for t in ticks])
    axis.minorticks_off()


def best_times(run):
    best = {}
    for curve in run["curves"]:
        for n, t in zip(curve["sizes"], curve["t_us"]):
            best[n] = min(t, best.get(n, t))
    return best


def draw(data, out):
    import matplotlib

    matplotlib.use("Agg")
    # SVG text stays text: smaller files, searchable labels.
    matplotlib.rcParams["svg.fonttype"] = "none"
    import matplotlib.pyplot as plt
    from matplotlib import ticker
    from matplotlib.lines import Line2D

    runs = data["runs"]
    colour = colours(runs, plt.get_cmap("tab10").colors)
    styles = line_styles(runs)
    several = len(runs) > 1
    fig, (top, bottom) = plt.subplots(
        2, 1, sharex=True, figsize=(13, 8.5), gridspec_kw={"height_ratios": [3, 1.4]}
    )
    sizes = []
    for index, (run, style) in enumerate(zip(runs, styles)):
        tag = (run["backend"] + ": ") if several else ""
        # Threshold labels of alternate runs on alternate sides of their line.
        side = 1 if index % 2 == 0 else -1
        best = best_times(run)
        for curve in run["curves"]:
            pairs = [(n, t) for n, t in zip(curve["sizes"], curve["t_us"]) if n > 0]
            if not pairs:
                continue
            xs, ys = zip(*pairs)
            sizes.extend(xs)
            is_auto = curve["protocol"] == AUTO
            look = {
                "color": colour[curve["protocol"]],
                "linestyle": style,
                "linewidth": 2.4 if is_auto else 1.5,
                "zorder": 10 if is_auto else 3,
                "marker": "." if is_auto else None,
            }
            top.plot(xs, ys, **look)
            if "ci_lo_us" in curve and run["backend"] != "sim":
                band = [(n, lo, hi) for n, lo, hi in zip(curve["sizes"], curve["ci_lo_us"], curve["ci_hi_us"]) if n > 0]
                top.fill_between(
                    [b[0] for b in band], [b[1] for b in band], [b[2] for b in band],
                    color=colour[curve["protocol"]], alpha=0.12, linewidth=0, zorder=2,
                )
            bottom.plot(xs, [t / best[n] for n, t in pairs], **look)
        for t in run["thresholds"]:
            top.axvspan(t["last_from"], t["first_to"], color="grey", alpha=0.08, zorder=1)
            top.axvline(t["estimate"], color="grey", linestyle=style, linewidth=0.9, zorder=2)
            bottom.axvline(t["estimate"], color="grey", linestyle=style, linewidth=0.9, zorder=2)
            top.annotate(
                f"{tag}auto \u2192 {t['to']}\n{size_label(t['last_from'])}..{size_label(t['first_to'])}",
                xy=(t["estimate"], 1.0),
                xycoords=("data", "axes fraction"),
                xytext=(3 * side, -4),
                textcoords="offset points",
                rotation=90,
                va="top",
                ha="left" if side > 0 else "right",
                fontsize=7.5,
                color="dimgrey",
            )
        for c in run["crossovers"]:
            top.plot(
                c["size"], c["t_us"], marker="X", markersize=8, color=colour[c["faster_above"]],
                markeredgecolor="black", linestyle="none", zorder=12,
            )
            top.annotate(
                f"{tag}{size_label(c['size'])}",
                xy=(c["size"], c["t_us"]),
                xytext=(6, -12),
                textcoords="offset points",
                fontsize=8,
                zorder=12,
            )

    for axis in (top, bottom):
        axis.set_xscale("log", base=2)
        axis.set_yscale("log")
        axis.grid(True, which="major", alpha=0.3)
    if sizes:
        size_ticks(bottom, sizes)
    alltoall = runs[0]["workload"] == "alltoall"
    top.set_ylabel("median time per exchange (\u00b5s)" if alltoall else "median time per message (\u00b5s)")
    bottom.set_ylabel("time / best")
    bottom.set_xlabel("bytes from each PE to each other PE" if alltoall else "message size (bytes)")
    bottom.yaxis.set_major_locator(ticker.LogLocator(base=10, subs=(1, 2, 5)))
    bottom.yaxis.set_major_formatter(ticker.FuncFormatter(lambda y, _: f"{y:g}\u00d7"))
    bottom.yaxis.set_minor_formatter(ticker.NullFormatter())

    first = runs[0]
    fig.suptitle(f"{first['scenario']}: {first['workload']}", fontsize=14, fontweight="bold")
    top.set_title("; ".join(run_label(run) for run in runs), fontsize=10)

    handles = [Line2D([], [], color=c, linewidth=2.4 if p == AUTO else 1.5, label=p) for p, c in colour.items()]
    handles += [
        Line2D([], [], color="dimgrey", linestyle=style, label=run_label(run)) for run, style in zip(runs, styles)
    ]
    handles.append(
        Line2D([], [], color="grey", marker="X", markeredgecolor="black", linestyle="none", label="crossover")
    )
    handles.append(Line2D([], [], color="grey", linewidth=0.9, label="auto changes protocol"))
    top.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, borderaxespad=0)
    fig.tight_layout()
    fig.savefig(out)


def main(argv):
    if len(argv) != 3:
        print("usage: plot_results.py DATA.json OUT.png|OUT.svg", file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        data = json.load(f)
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print(
            f"xover plot: {sys.executable} has no matplotlib; install Debian's python3-matplotlib"
            " (apt-get install python3-matplotlib, or tools/setup.sh)",
            file=sys.stderr,
        )
        return NO_MATPLOTLIB
    draw(data, argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
