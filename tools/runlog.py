"""Reading a run's files from the tools (PYTHONPATH=tools, or as a command).

generations(run_dir): {iteration: record} from RUN/generations.jsonl; a torn
or unparsable line (a kill mid-append) is skipped, as the trainer skips it.

checkpoint_at(run_dir, t0, minute): the newest kept checkpoint
(RUN/checkpoints/weights_it{N}.pt, N > 0) whose iteration ended (its "end")
within `minute` minutes of t0 (seconds since the epoch); minute "final" = the
newest kept one; 0 when there is none.

    python3 tools/runlog.py checkpoint-at RUN_DIR T0 MINUTE|final

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


if __name__ == "__main__":
    if len(sys.argv) != 5 or sys.argv[1] != "checkpoint-at":
        sys.exit("usage: runlog.py checkpoint-at RUN_DIR T0 MINUTE|final")
    print(checkpoint_at(sys.argv[2], float(sys.argv[3]), sys.argv[4]))
