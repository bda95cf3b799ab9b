"""Reading a run's files from the tools' inline Python (PYTHONPATH=tools).

generations(run_dir): {iteration: record} from RUN/generations.jsonl; a torn
or unparsable line (a kill mid-append) is skipped, as the trainer skips it.
"""
import json
import os


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
