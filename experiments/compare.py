#!/usr/bin/env python3
"""Two or more training recipes side by side, on one Elo scale (NOT a CI test).

Trains each --run NAME=CONFIG through launch/start.sh, each with its evaluator rating
every checkpoint, for --minutes each: AT THE SAME TIME by default (every run sees the
same load and gets the same share of the machine), or with --sequential one after the
other, each alone on the machine.  Every checkpoint is kept (train.keep_every=1).
Then, under one and the same search (--search-config, the reference run's config unless
told; --sims simulations, no noise, --openings balanced openings), through arena
(experiments/runlib.py's match pool, at most --jobs at a time):
  - each run's final net against rollout:R (--rollouts);
  - each run's checkpoint at each of --points minutes (the newest one published by then)
    against the reference run's final net (--reference, the first --run unless told):
    the curves of all runs on one Elo scale (0 = the reference's final net).
Prints each run's own Elo curve (its evaluator, its anchor, its search settings), the
one-scale curves and the finals; writes OUT/summary.json (runlib's shape) and OUT/curves.svg.

usage: experiments/compare.py --out DIR --run NAME=CONFIG --run NAME=CONFIG... [--set [NAME:]key=value]...
         [--reference NAME (the first run)] [--minutes M (25)] [--sequential]
         [--workers W (7 per run at the same time, the config's when --sequential)]
         [--points LIST (5,10,13,20,30,40: those <= M)] [--games G (20)] [--rollouts R (1000)]
         [--search-config FILE] [--sims S (100)] [--openings K|default (default)] [--jobs N (cores)] [--rate-only]
  --run        a run of the comparison: its name (OUT/NAME is its run directory) and config;
               the same config twice with different --set NAME:key=value is an ablation
  --set        NAME:key=value applies to run NAME only, key=value to every run (not to the matches)
  --workers W  also sets run.target_games = W x run.worker_games_per_worker (min_games half of
               it) so that every worker's whole quota makes an iteration
  --rate-only  skip training: rate the runs already in OUT (minute zero: OUT/NAME.t0)
  GOMOKU_BIN=DIR runs a copy of build/bin (so that rebuilding during the run changes nothing).
e.g. the 2017 recipe against the new one, and the solver ablation:
  experiments/compare.py --out runs/cmp --run baseline=configs/baseline-11x11.json \\
      --run recipe=configs/recipe-11x11.json --run recipe-solver=configs/recipe-11x11.json \\
      --set recipe-solver:mcts.solver=true
"""
import json
import os
import re
import subprocess
import sys
import time

import runlib

PROG = "compare.py"


def args_of(argv):
    p = runlib.parser(__doc__, PROG)
    p.add_argument("--out", required=True)
    p.add_argument("--run", dest="runs", action="append", default=[])
    p.add_argument("--set", dest="sets", action="append", default=[])
    p.add_argument("--reference")
    p.add_argument("--minutes", type=runlib.positive, default=25)
    p.add_argument("--sequential", action="store_true")
    p.add_argument("--workers", type=runlib.positive)
    p.add_argument("--points", type=runlib.int_list, default=[5, 10, 13, 20, 30, 40])
    p.add_argument("--games", type=runlib.positive, default=20)
    p.add_argument("--rollouts", type=runlib.positive, default=1000)
    p.add_argument("--search-config")
    p.add_argument("--sims", type=runlib.positive, default=runlib.DEFAULT_SIMS)
    p.add_argument("--openings", type=runlib.openings_arg, default=runlib.DEFAULT_OPENINGS)
    p.add_argument("--jobs", type=runlib.positive)
    p.add_argument("--rate-only", action="store_true")
    a = p.parse_args(argv)
    a.config, a.run_sets, order = {}, {}, []
    for spec in a.runs:
        m = re.fullmatch(r"([A-Za-z0-9_.-]+)=(.+)", spec)
        if not m:
            p.error("--run '%s' must be NAME=CONFIG (NAME: letters, digits, _ . -)" % spec)
        if m.group(1) in a.config:
            p.error("--run: two runs named '%s'" % m.group(1))
        if not os.path.isfile(m.group(2)):
            p.error("--run %s: config file '%s' not found" % (m.group(1), m.group(2)))
        a.config[m.group(1)] = os.path.abspath(m.group(2))
        order.append(m.group(1))
    if len(order) < 2:
        p.error("give at least two --run NAME=CONFIG")
    a.names = order
    for n in order:
        a.run_sets[n] = []
    for s in a.sets:
        key = s.split("=", 1)[0]
        if "=" not in s:
            p.error("--set '%s' must be [NAME:]key=value" % s)
        if ":" in key:
            n, kv = s.split(":", 1)
            if n not in a.config:
                p.error("--set %s: no run named '%s' (--run)" % (s, n))
            a.run_sets[n].append(kv)
        else:
            for n in order:
                a.run_sets[n].append(s)
    a.reference = a.reference or order[0]
    if a.reference not in a.config:
        p.error("--reference '%s' is not one of the runs (%s)" % (a.reference, ", ".join(order)))
    a.search_config = os.path.abspath(a.search_config or a.config[a.reference])
    a.out = os.path.abspath(a.out)
    return a


def worker_sets(a, name, workers):
    if not workers:
        return []
    per = json.load(open(a.config[name])).get("run", {}).get("worker_games_per_worker")
    if per is None:
        return []
    target = workers * int(per)
    return ["run.target_games=%d" % target, "run.min_games=%d" % (target // 2)]


def train(a):
    run_dir = lambda n: os.path.join(a.out, n)
    workers = a.workers or (None if a.sequential else 7)
    start = lambda n: runlib.start_run(a.config[n], run_dir(n), worker_sets(a, n, workers) + a.run_sets[n], workers)
    started = []
    try:
        if a.sequential:
            for n in a.names:
                start(n)
                started.append(n)
                runlib.log(PROG, "started %s in %s for %d minutes" % (n, run_dir(n), a.minutes))
                time.sleep(a.minutes * 60)
                runlib.stop_run(run_dir(n))
                runlib.log(PROG, "stopped %s" % n)
        else:
            for n in a.names:
                start(n)
                started.append(n)
                runlib.log(PROG, "started %s in %s" % (n, run_dir(n)))
            time.sleep(a.minutes * 60)
    finally:
        for n in started:
            runlib.stop_run(run_dir(n))
    runlib.log(PROG, "stopped after %d minutes" % a.minutes)


def main(argv):
    a = args_of(argv)
    os.makedirs(a.out, exist_ok=True)
    if not a.rate_only:
        train(a)
    run_dir = lambda n: os.path.join(a.out, n)
    finals = {}
    for n in a.names:
        finals[n] = runlib.checkpoint_at(run_dir(n), "final")
        if not finals[n]:
            raise RuntimeError("no trained checkpoint in %s" % run_dir(n))
    ref = a.reference
    net = lambda n, it: "net:%s:%d" % (runlib.checkpoint_path(run_dir(n), it), a.sims)
    mk = lambda n, it, b, **lab: runlib.match(net(n, it), b, a.games, a.search_config, [], a.openings,
                                              run=n, iteration=it, **lab)
    plan = []  # (run, minute or None for a final, iteration, match)
    for n in a.names:
        plan.append((n, None, finals[n], mk(n, finals[n], "rollout:%d" % a.rollouts, point="final")))
        for m in a.points:
            if m > a.minutes:
                continue
            it = runlib.checkpoint_at(run_dir(n), m)
            if not it:
                runlib.log(PROG, "%s: no checkpoint by minute %d: skipped" % (n, m))
            elif not (n == ref and it == finals[ref]):  # itself: 0 by definition
                plan.append((n, float(m), it, mk(n, it, net(ref, finals[ref]), point=m, vs="%s-final" % ref)))
    pool = runlib.MatchPool(a.jobs, os.path.join(a.out, "matches.jsonl"), os.path.join(a.out, "arena"), PROG)
    results = pool.play([m for _, _, _, m in plan])
    curves = {n: [] for n in a.names}
    final_records = []
    for n, minute, it, m in plan:
        r = results.get(runlib.match_key(m))
        if r and minute is None:
            final_records.append(r)
        elif r:
            curves[n].append(runlib.point(r, minute, it, runlib.minutes_of(run_dir(n), it)))
    curves[ref].append(runlib.reference_point(float(a.minutes), finals[ref], runlib.minutes_of(run_dir(ref), finals[ref])))
    summary = {"kind": "compare", "minutes": a.minutes, "reference": "%s (it%d)" % (ref, finals[ref]),
               "search": {"config": a.search_config, "sets": [], "sims": a.sims, "openings": a.openings},
               "runs": {n: dict(runlib.run_stats(run_dir(n)), config=a.config[n], sets=a.run_sets[n]) for n in a.names},
               "curves": curves, "finals": final_records}
    runlib.write_summary(a.out, summary)
    runlib.print_summary(summary)
    svg = os.path.join(a.out, "curves.svg")
    if subprocess.call([sys.executable, os.path.join(os.path.dirname(__file__), "plot.py"),
                        os.path.join(a.out, "summary.json"), svg]) == 0:
        runlib.log(PROG, "figure: %s" % svg)
    return 0 if all(runlib.match_key(m) in results for _, _, _, m in plan) else 1


if __name__ == "__main__":
    runlib.run_main(PROG, main)
