"""Reading a run's files from the tools (PYTHONPATH=tools, or as a command).

generations(run_dir): {iteration: record} from RUN/generations.jsonl; a torn
or unparsable line (a kill mid-append) is skipped, as the trainer skips it.

checkpoint_at(run_dir, t0, minute): the newest kept checkpoint
(RUN/checkpoints/weights_it{N}.pt, N > 0) whose iteration ended (its "end")
within `minute` minutes of t0 (seconds since the epoch); minute "final" = the
newest kept one; 0 when there is none.

    python3 tools/runlog.py checkpoint-at RUN_DIR T0 MINUTE|final
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


if __name__ == "__main__":
    if len(sys.argv) != 5 or sys.argv[1] != "checkpoint-at":
        sys.exit("usage: runlog.py checkpoint-at RUN_DIR T0 MINUTE|final")
    print(checkpoint_at(sys.argv[2], float(sys.argv[3]), sys.argv[4]))
