"""Reading a run's files from the tools (PYTHONPATH=tools, or as a command).

generations(run_dir): {iteration: record} from RUN/generations.jsonl; a torn
or unparsable line (a kill mid-append) is skipped, as the trainer skips it.

checkpoint_at(run_dir, t0, minute): the newest kept checkpoint
(RUN/checkpoints/weights_it{N}.pt, N > 0) whose iteration ended (its "end")
within `minute` minutes of t0 (seconds since the epoch); minute "final" = the
newest kept one; 0 when there is none.

    python3 tools/runlog.py checkpoint-at RUN_DIR T0 MINUTE|final

openings(run_dir, first, last, balanced_stones): self-play results by kind
of opening over the game files of iterations first..last: "open N" for the
open openings (N < balanced_stones stones: the empty board and 1-3 stones
near the centre, selfplay.open_opening_share) and "balanced" for the rest;
games, black / white wins, draws, resigned, mean searched moves.  Needs numpy
(Debian's /usr/bin/python3).

    /usr/bin/python3 tools/runlog.py openings RUN_DIR FIRST LAST [BALANCED_STONES]

own_curve(run_dir, t0): the run's own evaluator curve from RUN/ratings.jsonl:
each complete checkpoint rating of an iteration in generations.jsonl, with the
minutes (from t0) its iteration ended, its Elo and interval and its opponents'
W/D/L; [] when the evaluator wrote nothing.
"""
import json
import os
import sys


def generations(run_dir):
    out = {}
    with open(os.path.join(run_dir, "generations.jsonl")) as f:
        for line in f:
            try:
                r = json.loads(line)
                out[r["iteration"]] = r
            except (ValueError, KeyError, TypeError):
                pass
    return out


def checkpoint_at(run_dir, t0, minute):
    best = 0
    for r in generations(run_dir).values():
        path = os.path.join(run_dir, "checkpoints", "weights_it%d.pt" % r["iteration"])
        if os.path.exists(path) and (minute == "final" or r["end"] - t0 <= float(minute) * 60):
            best = max(best, r["iteration"])
    return best


def own_curve(run_dir, t0):
    gens = generations(run_dir)
    out = []
    try:
        lines = open(os.path.join(run_dir, "ratings.jsonl")).read().splitlines()
    except OSError:
        return out
    for line in lines:
        try:
            e = json.loads(line)
        except ValueError:
            continue
        if not e.get("complete") or not e.get("player", "").startswith("checkpoint:") or e.get("iteration") not in gens:
            continue
        out.append({"iteration": e["iteration"], "minutes": round((gens[e["iteration"]]["end"] - t0) / 60, 2),
                    "elo": e["elo"], "elo_low": e["elo_low"], "elo_high": e["elo_high"],
                    "opponents": [{k: o.get(k) for k in ("name", "wins", "draws", "losses")}
                                  for o in e.get("opponents", [])]})
    return out


def openings(run_dir, first, last, balanced_stones=4):
    import glob
    import numpy as np
    kinds = {}
    for it in range(first, last + 1):
        for path in glob.glob(os.path.join(run_dir, "games", "it%d" % it, "*.npz")):
            try:
                g = np.load(path)
                stones = len(g["opening"])
                winner = int(g["winner"])
                moves = len(g["moves"]) if "moves" in g.files else len(g["policy"])
                resigned = "resigned" in g.files and int(g["resigned"]) == 1
            except Exception:  # a torn or foreign file: the trainer skips it too
                continue
            kind = "open %d" % stones if stones < balanced_stones else "balanced"
            k = kinds.setdefault(kind, {"games": 0, "black": 0, "white": 0, "draws": 0, "resigned": 0, "moves": 0})
            k["games"] += 1
            k["black" if winner == 1 else "white" if winner == 2 else "draws"] += 1
            k["resigned"] += resigned
            k["moves"] += moves
    for k in kinds.values():
        k["mean_moves"] = round(k.pop("moves") / k["games"], 1)
    return dict(sorted(kinds.items()))


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "checkpoint-at":
        print(checkpoint_at(sys.argv[2], float(sys.argv[3]), sys.argv[4]))
    elif len(sys.argv) in (5, 6) and sys.argv[1] == "openings":
        stones = int(sys.argv[5]) if len(sys.argv) == 6 else 4
        print(json.dumps(openings(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), stones), indent=1))
    else:
        sys.exit("usage: runlog.py checkpoint-at RUN_DIR T0 MINUTE|final\n"
                 "       runlog.py openings RUN_DIR FIRST LAST [BALANCED_STONES]")
