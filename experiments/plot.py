#!/usr/bin/env python3
"""Draws the Elo curves of an experiment's summary.json (experiments/runlib.py's shape) as an SVG.

usage: experiments/plot.py SUMMARY_JSON OUT_SVG [--title TEXT]

One line per curve (summary "curves": compare.py's runs against the reference's final
net, learn.py's checkpoints against each rung): Elo at each rated minute, with its 95%
interval as a vertical bar.  A data file of `runlib.py record` (results/data/*.json) draws
its run's own evaluator curve.  Also reads the older summaries of tools/compare_recipe.sh
and tools/learn_run.sh (results/data/*.json: "runs" with a "one_scale_curve" each).
Pure standard library: nothing to install, nothing fetched.  NOT a CI test.
"""
import json
import sys

COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]


def main(argv):
    if len(argv) > 1 and argv[1] in ("-h", "--help"):
        sys.stdout.write(__doc__.strip() + "\n")
        return 0
    if len(argv) < 3:
        sys.stderr.write("plot.py: SUMMARY_JSON and OUT_SVG are required (see --help)\n")
        return 2
    summary = json.load(open(argv[1]))
    ref = summary.get("reference") or "baseline"
    title = argv[argv.index("--title") + 1] if "--title" in argv else "Elo vs %s's final net" % ref
    curves = summary.get("curves")
    if curves is None and "own_curve" in summary:  # a data file of runlib.py record
        curves = {"the run's Elo (its evaluator)": summary["own_curve"]}
    if curves is None:  # the older shape
        curves = {n: r["one_scale_curve"] for n, r in (summary.get("runs") or {}).items() if "one_scale_curve" in r}
    curves = {n: [p for p in c if p.get("minutes") is not None] for n, c in curves.items()}
    pts = [p for c in curves.values() for p in c]
    if not pts:
        sys.stderr.write("plot.py: %s has no rated points with a minute (curves)\n" % argv[1])
        return 2
    xmax = max(summary.get("minutes") or 0, max(c["minutes"] for c in pts), 1)
    lo = min(min(c["elo_low"] for c in pts), -100)
    hi = max(max(c["elo_high"] for c in pts), 100)
    lo, hi = 100 * (int(lo) // 100 - (1 if lo < 0 else 0)), 100 * (int(hi) // 100 + 1)
    W, H, L, R, T, B = 720, 420, 70, 170, 40, 50
    pw, ph = W - L - R, H - T - B
    X = lambda m: L + pw * m / xmax
    Y = lambda e: T + ph * (hi - e) / (hi - lo)
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">' % (W, H),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="%d" y="22" font-size="14">%s</text>' % (L, title)]
    step = 100 if hi - lo <= 1000 else 200
    for e in range(lo, hi + 1, step):
        out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="%s"/>' % (L, Y(e), L + pw, Y(e), "#888" if e == 0 else "#eee"))
        out.append('<text x="%d" y="%.1f" text-anchor="end">%+d</text>' % (L - 6, Y(e) + 4, e))
    xstep = 5 if xmax <= 60 else 10
    for m in range(0, int(xmax) + 1, xstep):
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#eee"/>' % (X(m), T, X(m), T + ph))
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%d</text>' % (X(m), T + ph + 16, m))
    out.append('<text x="%.1f" y="%d" text-anchor="middle">minutes of training</text>' % (L + pw / 2, H - 10))
    out.append('<text x="16" y="%.1f" transform="rotate(-90 16 %.1f)" text-anchor="middle">Elo (95%% interval)</text>' % (T + ph / 2, T + ph / 2))
    out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#444"/>' % (L, T, pw, ph))
    for k, (name, c) in enumerate(curves.items()):
        col = COLOURS[k % len(COLOURS)]
        curve = sorted(c, key=lambda p: p["minutes"])
        for c in curve:
            out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="1.5"/>' %
                       (X(c["minutes"]), Y(c["elo_low"]), X(c["minutes"]), Y(c["elo_high"]), col))
            out.append('<circle cx="%.1f" cy="%.1f" r="4" fill="%s"/>' % (X(c["minutes"]), Y(c["elo"]), col))
        out.append('<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>' %
                   (col, " ".join("%.1f,%.1f" % (X(c["minutes"]), Y(c["elo"])) for c in curve)))
        out.append('<rect x="%d" y="%d" width="14" height="4" fill="%s"/>' % (L + pw + 14, T + 14 + 20 * k, col))
        out.append('<text x="%d" y="%d">%s</text>' % (L + pw + 34, T + 20 + 20 * k, name))
    out.append("</svg>")
    with open(argv[2], "w") as f:
        f.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
