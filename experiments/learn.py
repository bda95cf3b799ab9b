#!/usr/bin/env python3
"""One learning run, then its Elo curve against fixed opponents (NOT a CI test).

Trains --config through launch/start.sh (server, trainer, workers, evaluator; every
checkpoint kept) for --minutes, stops it with launch/stop.sh (earlier when the trainer
exits, e.g. run.max_iterations set with --set), then rates its checkpoints with arena
(experiments/runlib.py's match pool: at most --jobs processes at a time; the results
do not depend on the load, only the training does):
  - the checkpoint at each point against each rung of --ladder, --games games each;
  - the final checkpoint against --final-vs over --final-games games (with --target,
    the run passes when that score reaches SCORE: exit 0, else exit 1);
  - the checkpoint at each point against the final net, --vs-final games each at
    --vs-final-sims simulations: one Elo scale with headroom (0 = the final net).
Points: --points (minutes; the newest checkpoint published by then), --iterations
(exactly these), or --spread N (N kept checkpoints spread evenly).  Every match is played
under the run's config (its mcts.*) plus --set, at --sims simulations, no noise, over
--openings balanced openings.  Matches already in OUT/matches.jsonl are not played again
(an interrupted rating resumes).  Writes OUT/summary.json (runlib's shape) and
OUT/curve.svg; prints the run's own evaluator curve and the rated curves.

usage: experiments/learn.py --config FILE [--minutes M (60)] [--out DIR (runs/learn-<config name>)]
         [--workers W (the config's)] [--set key=value]... [--rate-only] [--run-dir RUN (OUT/run)]
         [--points LIST (10,20,30,40,50,60: those <= M) | --iterations LIST | --spread N]
         [--ladder LIST (rollout:1000,rollout:10000)] [--games G (10)]
         [--final-vs SPEC (rollout:10000)] [--final-games F (40)] [--target SCORE]
         [--vs-final G (20; 0 = off)] [--vs-final-sims S (--sims)]
         [--sims S (100)] [--openings K|default (default)] [--jobs N (cores)]
  --rate-only  skip training: rate the run in --run-dir (default OUT/run); its minute zero
               is its mark (RUN.t0, or OUT/t0 of tools/learn_run.sh), else its first iteration
  --set        applies to the run and to every match
  GOMOKU_BIN=DIR runs a copy of build/bin (so that rebuilding during the run changes nothing).
Exit: 0 done (and the target reached), 1 target missed or a match failed, 2 setup error.
"""
import os
import subprocess
import sys
import time

import runlib

PROG = "learn.py"


def args_of(argv):
    p = runlib.parser(__doc__, PROG)
    p.add_argument("--config", required=True)
    p.add_argument("--minutes", type=runlib.positive, default=60)
    p.add_argument("--out")
    p.add_argument("--run-dir")
    p.add_argument("--workers", type=runlib.positive)
    p.add_argument("--set", dest="sets", action="append", default=[])
    p.add_argument("--rate-only", action="store_true")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--points", type=runlib.int_list, default=[10, 20, 30, 40, 50, 60])
    g.add_argument("--iterations", type=runlib.int_list)
    g.add_argument("--spread", type=runlib.positive)
    p.add_argument("--ladder", default="rollout:1000,rollout:10000")
    p.add_argument("--games", type=runlib.positive, default=10)
    p.add_argument("--final-vs", default="rollout:10000")
    p.add_argument("--final-games", type=runlib.positive, default=40)
    p.add_argument("--target", type=float)
    p.add_argument("--vs-final", type=int, default=20)
    p.add_argument("--vs-final-sims", type=runlib.positive)
    p.add_argument("--sims", type=runlib.positive, default=runlib.DEFAULT_SIMS)
    p.add_argument("--openings", type=runlib.openings_arg, default=runlib.DEFAULT_OPENINGS)
    p.add_argument("--jobs", type=runlib.positive)
    a = p.parse_args(argv)
    if not os.path.isfile(a.config):
        p.error("config file '%s' not found" % a.config)
    a.config = os.path.abspath(a.config)
    a.rungs = a.ladder.split(",")
    for r in a.rungs + [a.final_vs]:
        if not r.startswith("rollout:") or not r[8:].isdigit():
            p.error("rung '%s' must be rollout:N (a fixed opponent: the curve's rungs do not move)" % r)
    if a.vs_final < 0:
        p.error("--vs-final must be >= 0")
    a.vs_final_sims = a.vs_final_sims or a.sims
    name = os.path.splitext(os.path.basename(a.config))[0]
    a.out = os.path.abspath(a.out or os.path.join(runlib.ROOT, "runs", "learn-" + name))
    a.run_dir = os.path.abspath(a.run_dir or os.path.join(a.out, "run"))
    return a


def train(a):
    runlib.start_run(a.config, a.run_dir, a.sets, a.workers)
    try:
        t0, _ = runlib.minute_zero(a.run_dir)
        runlib.log(PROG, "started %s in %s for %d minutes" % (os.path.basename(a.config), a.run_dir, a.minutes))
        end = t0 + a.minutes * 60
        while time.time() < end:
            time.sleep(min(60, max(0, end - time.time())))
            if runlib.trainer_exited(a.run_dir):
                runlib.log(PROG, "the trainer exited (see %s/logs)" % a.run_dir)
                break
            g = runlib.generations(a.run_dir)
            if g:
                runlib.log(PROG, "%.0f min: iteration %d, %d games so far" %
                           ((time.time() - t0) / 60, max(g), sum(x.get("games_used", 0) for x in g.values())))
    finally:
        runlib.stop_run(a.run_dir)
    runlib.log(PROG, "stopped")
    trainer = os.path.join(os.environ.get("GOMOKU_BIN") or os.path.join(runlib.ROOT, "build", "bin"), "trainer")
    with open(os.path.join(a.run_dir, "timetable.txt"), "w") as f:
        subprocess.call([trainer, "timetable", "--run-dir", a.run_dir, "--last", "1000"], stdout=f,
                        stderr=subprocess.DEVNULL)


def points(a):
    """[(minute label, iteration)] to rate; the minute is None for --iterations/--spread
    points whose iteration has no record."""
    run = a.run_dir
    if a.iterations:
        missing = [i for i in a.iterations if i not in runlib.kept_checkpoints(run)]
        if missing:
            raise RuntimeError("no checkpoint for iteration(s) %s in %s" % (missing, run))
        return [(runlib.minutes_of(run, i), i) for i in a.iterations]
    if a.spread:
        return [(runlib.minutes_of(run, i), i) for i in runlib.spread(runlib.kept_checkpoints(run), a.spread)]
    out = []
    for m in a.points:
        if m > a.minutes:
            continue
        it = runlib.checkpoint_at(run, m)
        if it:
            out.append((float(m), it))
        else:
            runlib.log(PROG, "no checkpoint by minute %d: skipped" % m)
    return out


def main(argv):
    a = args_of(argv)
    if not a.rate_only:
        os.makedirs(a.out, exist_ok=True)
        train(a)
    if not runlib.generations(a.run_dir):
        raise RuntimeError("no run in %s (generations.jsonl)" % a.run_dir)
    os.makedirs(a.out, exist_ok=True)
    run = a.run_dir
    final = runlib.checkpoint_at(run, "final")
    if not final:
        raise RuntimeError("no trained checkpoint in %s" % run)
    net = lambda it, sims: "net:%s:%d" % (runlib.checkpoint_path(run, it), sims)
    mk = lambda it, b, games, sims, **lab: runlib.match(net(it, sims), b, games, a.config, a.sets, a.openings,
                                                         iteration=it, **lab)
    pts = points(a)
    plan = []  # (curve label or None for the final, minute, iteration, match)
    for minute, it in pts:
        for r in a.rungs:
            # The final net against --final-vs doubles as that point.
            games = a.final_games if it == final and r == a.final_vs else a.games
            plan.append(("vs " + r, minute, it, mk(it, r, games, a.sims, point=minute)))
    final_match = mk(final, a.final_vs, a.final_games, a.sims, point="final")
    plan.append((None, None, final, final_match))
    vs_final_label = "vs the final net (it%d)" % final + (
        " at %d simulations" % a.vs_final_sims if a.vs_final_sims != a.sims else "")
    if a.vs_final > 0:
        for minute, it in pts:
            if it != final:
                plan.append((vs_final_label, minute, it,
                             mk(it, net(final, a.vs_final_sims), a.vs_final, a.vs_final_sims, point=minute, vs="final")))
    pool = runlib.MatchPool(a.jobs, os.path.join(a.out, "matches.jsonl"), os.path.join(a.out, "arena"), PROG)
    results = pool.play([m for _, _, _, m in plan])
    curves = {}
    for label, minute, it, m in plan:
        r = results.get(runlib.match_key(m))
        if label and r:
            curves.setdefault(label, []).append(runlib.point(r, minute, it, runlib.minutes_of(run, it)))
    if vs_final_label in curves:
        at = runlib.minutes_of(run, final)
        by_minute = not (a.iterations or a.spread)
        curves[vs_final_label].append(runlib.reference_point(float(a.minutes) if by_minute else at, final, at))
    fin = results.get(runlib.match_key(final_match))
    summary = {"kind": "learn", "minutes": a.minutes, "reference": None,
               "search": {"config": a.config, "sets": a.sets, "sims": a.sims, "openings": a.openings},
               "runs": {"run": dict(runlib.run_stats(run), config=a.config, sets=a.sets)},
               "curves": curves, "finals": [fin] if fin else []}
    rc = 0 if all(runlib.match_key(m) in results for _, _, _, m in plan) else 1
    if a.target is not None:
        reached = bool(fin) and fin["score"] >= a.target
        summary["target"] = {"vs": a.final_vs, "score": a.target, "reached": reached,
                             "final_score": fin["score"] if fin else None}
        rc = rc or (0 if reached else 1)
    runlib.write_summary(a.out, summary)
    runlib.print_summary(summary)
    if a.target is not None:
        runlib.log(PROG, "%s: final net it%d scored %s against %s (target %.2f)" % (
            "PASS" if summary["target"]["reached"] else "FAIL", final,
            "%.3f" % fin["score"] if fin else "nothing", a.final_vs, a.target))
    if curves:
        svg = os.path.join(a.out, "curve.svg")
        if subprocess.call([sys.executable, os.path.join(os.path.dirname(__file__), "plot.py"), os.path.join(a.out, "summary.json"),
                            svg, "--title", "%s: Elo relative to each opponent" %
                            os.path.splitext(os.path.basename(a.config))[0]]) == 0:
            runlib.log(PROG, "figure: %s" % svg)
    return rc


if __name__ == "__main__":
    runlib.run_main(PROG, main)
