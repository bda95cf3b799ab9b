#!/usr/bin/env python3
"""What the evaluator costs the run (NOT a CI test): one whole run through launch/start.sh
with the evaluator on, in which the evaluator is paused (SIGSTOP) and resumed (SIGCONT)
in alternating windows; self-play games per minute are counted from the game files in
each window.  Both conditions share one run (same iterations, same machine state), so
the ratio is the figure.

usage: experiments/eval_cost.py [--config FILE (configs/cpu.json)] [--window S (60)] [--pairs P (3)]
         [--warmup S (60)] [--run-dir DIR (a temporary one)] [--set key=value]...
  P on/off pairs, the order alternating; the warm-up runs from minute zero.
Prints one row per window, the totals, the first finished evaluator game's time from
minute zero (experiments/runlib.py) and the ratings the run produced meanwhile, and
the dashboard's URL; the run directory is removed at the end.
"""
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import runlib

PROG = "eval_cost.py"


def main(argv):
    p = runlib.parser(__doc__, PROG)
    p.add_argument("--config", default=os.path.join(runlib.ROOT, "configs", "cpu.json"))
    p.add_argument("--window", type=runlib.positive, default=60)
    p.add_argument("--pairs", type=runlib.positive, default=3)
    p.add_argument("--warmup", type=int, default=60)
    p.add_argument("--run-dir")
    p.add_argument("--set", dest="sets", action="append", default=[])
    a = p.parse_args(argv)
    run = os.path.abspath(a.run_dir or tempfile.mkdtemp(prefix="gz-evalcost-"))
    log_path = run + ".start.log"
    evaluator = None
    try:
        # The whole run, dashboard included (what a user of this run sees); not runlib.start_run,
        # which keeps every checkpoint and leaves the dashboard out.
        with open(log_path, "w") as f:
            sets = [x for s in a.sets for x in ("--set", s)]
            if subprocess.call([os.path.join(runlib.ROOT, "launch", "start.sh"), "--config", a.config,
                                "--run-dir", run] + sets, stdout=f, stderr=subprocess.STDOUT) != 0:
                sys.stderr.write(open(log_path).read())
                return 2
        runlib.mark_minute_zero(run)
        evaluator = int(open(runlib.pid_path(run, "evaluator")).read())
        games = lambda: len(glob.glob(os.path.join(runlib.games_dir(run), "**", "*.npz"), recursive=True))
        print("eval_cost: %s UTC, %d cores, config %s, windows of %ds" %
              (time.strftime("%F %T", time.gmtime()), os.cpu_count(), a.config, a.window))
        time.sleep(a.warmup)
        total = {"on": [0, 0.0], "off": [0, 0.0]}
        print("%-6s %-10s %8s %10s" % ("window", "evaluator", "games", "games/min"))
        for k in range(a.pairs):
            for state in (("on", "off") if k % 2 == 0 else ("off", "on")):
                os.kill(evaluator, signal.SIGCONT if state == "on" else signal.SIGSTOP)
                g0, t0 = games(), time.time()
                time.sleep(a.window)
                n, dt = games() - g0, time.time() - t0
                print("%-6d %-10s %8d %10.1f" % (k + 1, state, n, 60 * n / dt))
                total[state][0] += n
                total[state][1] += dt
        os.kill(evaluator, signal.SIGCONT)
        rate = {s: 60 * n / dt for s, (n, dt) in total.items()}
        for s in ("on", "off"):
            print("evaluator %-4s %.1f games/min (%d games)" % (s + ":", rate[s], total[s][0]))
        if rate["off"] > 0:
            print("on/off = %.3f (the evaluator costs %.1f%% of self-play)" %
                  (rate["on"] / rate["off"], 100 * (1 - rate["on"] / rate["off"])))
        # What a user of this run saw: the first Elo point, and the dashboard serving it.
        zero, _ = runlib.minute_zero(run)
        results = [json.loads(l) for l in open(runlib.eval_results_path(run)) if l.strip()] \
            if os.path.exists(runlib.eval_results_path(run)) else []
        ratings = [json.loads(l) for l in open(runlib.ratings_path(run)) if l.strip()] \
            if os.path.exists(runlib.ratings_path(run)) else []
        first = results[0].get("time") if results else None
        print("evaluated checkpoints: %d; first finished evaluator game %s" %
              (len(ratings), "%.0f s after minute zero" % (first - zero) if first else "(none)"))
        for r in ratings:
            print("  %s: Elo %s [%s, %s] (%d games)" % (r["player"], r["elo"], r["elo_low"], r["elo_high"], r["games"]))
        m = re.search(r"dashboard: http\S*", open(log_path).read())
        if m:
            print(m.group(0))
        return 0
    finally:
        if evaluator:
            try:
                os.kill(evaluator, signal.SIGCONT)
            except OSError:
                pass
        runlib.stop_run(run)
        shutil.rmtree(run, ignore_errors=True)
        for path in (log_path, runlib.mark_path(run)):
            if os.path.exists(path):
                os.remove(path)


if __name__ == "__main__":
    runlib.run_main(PROG, main)
