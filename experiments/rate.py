#!/usr/bin/env python3
"""Rates checkpoints outside a learning run, NOT a CI test.  Two modes:

Nets against opponents (the long measurements of docs/ratings.md): every --net plays
every --vs over --games games, at most --jobs arena processes at a time
(experiments/runlib.py's match pool; several nets or opponents use several cores).
Prints one JSON object per match: arena's W/D/L, score and Elo with its 95% interval,
plus the match's net, opponent, config, sets, seed.  --out appends them to FILE too.
  experiments/rate.py --net PATH [--net PATH]... [--vs SPEC (rollout:1000)]... [--games G (40)]
         [--sims S (100) | --engine-ms MS] [--seed S (1)] [--openings K|default (default)]
         [--config FILE (configs/cpu.json)] [--set key=value]... [--jobs N (cores)] [--out FILE]
  --set board.size=20 plays a conv checkpoint at 20x20, --set board.rule=renju under renju.
  --seed seeds the rollout players: more games of the same match need another --seed
  (the same seed replays the same games; nets and uniform:N are deterministic).
  --engine-ms MS: "at equal time in the engine" (docs/ratings.md). Every --net, and every
  --vs of the form net:PATH, is played by pbrain-gomoku-zero as shipped (the play settings
  in the checkpoint's header plus the engine's defaults) at MS milliseconds a move
  (eval.engine_turn_ms); --sims is then unused. Games are timed: play them alone.

"Does it keep climbing?" past a saturated anchor (--chain RUN): every kept checkpoint of
RUN (every --every-th) plays the kept checkpoint before it, net against net under one
search; the Elo steps (arena's) add up to a curve with the first kept checkpoint at 0,
its rough 95% interval the steps' variances added (a perfect score is clamped as arena
clamps it, so such a step is a lower bound).  Prints one row per checkpoint: iteration,
minutes from the run's minute zero, the step's W/D/L and Elo, the cumulative Elo.
Writes --out (default RUN/chain.json).
  experiments/rate.py --chain RUN --config FILE (RUN's config) [--every N (1)] [--games G (20)]
         [--sims S (100)] [--openings K|default (default)] [--set key=value]... [--jobs N (cores)] [--out FILE]

GOMOKU_BIN=DIR uses a copy of build/bin.
"""
import json
import math
import os
import sys

import runlib

PROG = "rate.py"


def args_of(argv):
    p = runlib.parser(__doc__, PROG)
    p.add_argument("--net", dest="nets", action="append", default=[])
    p.add_argument("--vs", action="append", default=[])
    p.add_argument("--chain")
    p.add_argument("--every", type=runlib.positive, default=1)
    p.add_argument("--games", type=runlib.positive)
    p.add_argument("--sims", type=runlib.positive, default=runlib.DEFAULT_SIMS)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--engine-ms", type=runlib.positive)
    p.add_argument("--openings", type=runlib.openings_arg, default=runlib.DEFAULT_OPENINGS)
    p.add_argument("--config")
    p.add_argument("--set", dest="sets", action="append", default=[])
    p.add_argument("--jobs", type=runlib.positive)
    p.add_argument("--out")
    a = p.parse_args(argv)
    if bool(a.nets) == bool(a.chain):
        p.error("give --net PATH (nets against opponents) or --chain RUN, not both")
    if a.chain:
        if a.vs:
            p.error("--vs: a chain plays each checkpoint against the one before it")
        if a.engine_ms:
            p.error("--engine-ms: a chain is played at fixed simulations")
        if not a.config:
            p.error("--chain needs --config FILE (the run's config)")
        a.games = a.games or 20
    else:
        a.vs = a.vs or ["rollout:1000"]
        a.games = a.games or 40
        a.config = a.config or os.path.join(runlib.ROOT, "configs", "cpu.json")
        for n in a.nets:
            if not os.path.isfile(n):
                p.error("--net %s: no such file" % n)
        for vs in a.vs if a.engine_ms else []:
            if vs.startswith("net:") and not os.path.isfile(vs[len("net:"):]):
                p.error("--vs %s: no such file (with --engine-ms a net opponent is net:PATH, played by time, "
                        "no :SIMS)" % vs)
    if not os.path.isfile(a.config):
        p.error("config file '%s' not found" % a.config)
    return a


def engine_spec(path):
    brain = os.path.join(os.path.dirname(runlib.arena_bin()), "pbrain-gomoku-zero")
    return "engine:%s --weights %s" % (brain, os.path.abspath(path))


def rate_nets(a):
    if a.engine_ms:
        player = engine_spec
        opponent = lambda vs: engine_spec(vs[len("net:"):]) if vs.startswith("net:") else vs
        sets = a.sets + ["eval.engine_turn_ms=%d" % a.engine_ms]
    else:
        player = lambda n: "net:%s:%d" % (os.path.abspath(n), a.sims)
        opponent = lambda vs: vs
        sets = a.sets
    matches = [runlib.match(player(n), opponent(vs), a.games, a.config, sets, a.openings, a.seed, net=n, vs=vs)
               for n in a.nets for vs in a.vs]
    results = runlib.MatchPool(a.jobs, prog=PROG).play(matches)
    for m in matches:
        r = results.get(runlib.match_key(m))
        if not r:
            continue
        how = {"engine_ms": a.engine_ms} if a.engine_ms else {"sims": a.sims}
        line = json.dumps(dict(r, net=m["labels"]["net"], vs=m["labels"]["vs"], **how), sort_keys=True)
        print(line)
        if a.out:
            with open(a.out, "a") as f:
                f.write(line + "\n")
    return 0 if all(runlib.match_key(m) in results for m in matches) else 1


def rate_chain(a):
    run = a.chain
    its = runlib.kept_checkpoints(run)[::a.every]
    if len(its) < 2:
        raise RuntimeError("fewer than two kept checkpoints in %s/checkpoints" % run)
    net = lambda it: "net:%s:%d" % (os.path.abspath(runlib.checkpoint_path(run, it)), a.sims)
    matches = [runlib.match(net(its[k]), net(its[k - 1]), a.games, a.config, a.sets, a.openings, iteration=its[k])
               for k in range(1, len(its))]
    results = runlib.MatchPool(a.jobs, prog=PROG).play(matches)
    rows = [{"iteration": its[0], "minutes": runlib.minutes_of(run, its[0]), "elo": 0.0, "elo_low": 0.0, "elo_high": 0.0}]
    print("iteration\tminutes\tW/D/L vs previous\tstep Elo\tElo\t95%")
    print("%d\t%s\t-\t-\t+0\t[+0, +0]" % (its[0], rows[0]["minutes"]))
    cum, var = 0.0, 0.0
    for k, m in enumerate(matches, start=1):
        r = results.get(runlib.match_key(m))
        if not r:
            print("%d\t-\t(match failed)" % its[k])
            break
        sigma = (r["elo_high"] - r["elo_low"]) / 3.92  # arena's interval is +-1.96 sigma
        cum += r["elo"]
        var += sigma * sigma
        half = 1.96 * math.sqrt(var)
        rows.append({"iteration": its[k], "minutes": runlib.minutes_of(run, its[k]), "vs": its[k - 1],
                     "wins": r["wins"], "draws": r["draws"], "losses": r["losses"], "step_elo": r["elo"],
                     "elo": cum, "elo_low": cum - half, "elo_high": cum + half})
        print("%d\t%s\t%d/%d/%d\t%+.0f\t%+.0f\t[%+.0f, %+.0f]" % (its[k], rows[-1]["minutes"], r["wins"], r["draws"],
                                                               r["losses"], r["elo"], cum, cum - half, cum + half))
    t0, source = runlib.minute_zero(run)
    runlib.write_atomic(a.out or os.path.join(run, "chain.json"),
                        json.dumps({"run": os.path.abspath(run), "minute_zero_from": source, "curve": rows}, indent=1))
    return 0 if len(rows) == len(its) else 1


def main(argv):
    a = args_of(argv)
    return rate_chain(a) if a.chain else rate_nets(a)


if __name__ == "__main__":
    runlib.run_main(PROG, main)
