#!/usr/bin/env bash
# SIGSTOP workers (reliability checklist 9): with 2 of the 3 workers stopped,
# the trainer trains after the stall timeout on what the third produced;
# after SIGCONT the run goes on, and no iteration ever trains on a game of
# another iteration.
source "$(dirname "$0")/lib.sh"
start_run "start.sh reports a healthy system"
check "iteration 1 completes" wait_for 100 at_least_generations 1
N0="$(generations)"
S0="$(grep -c "stall timeout" "$(run_log_file trainer)" || true)"
kill -STOP "$(pid_of worker_1)" "$(pid_of worker_2)"
# configs/tiny.json: stall_timeout_s 20, min_games 3 = one worker's games per iteration.
check "an iteration completes with 2 workers stopped" wait_for 90 at_least_generations $((N0 + 1))
check "the trainer logged the stall timeout" test "$(grep -c "stall timeout" "$(run_log_file trainer)" || true)" -gt "$S0"
kill -CONT "$(pid_of worker_1)" "$(pid_of worker_2)"
check "iterations go on after SIGCONT" wait_for 100 at_least_generations $((N0 + 2))
check "all workers alive" bash -c "kill -0 $(pid_of worker_0) && kill -0 $(pid_of worker_1) && kill -0 $(pid_of worker_2)"
check "every game a step trained on is its iteration's own or a late game of an older iteration in its window, each used once" /usr/bin/python3 - "$RUN" <<'PY'
import glob, json, os, re, sys
import numpy as np
run = sys.argv[1]
window = json.load(open(os.path.join(run, "config.json")))["train"]["replay_iterations"]
checked = late = 0
seen = set()
def once(it, f):
    assert (it, f) not in seen, ("used twice", it, f)
    seen.add((it, f))
for path in glob.glob(os.path.join(run, "trainer", "games_it*.json")):
    n = int(re.search(r"games_it(\d+)\.json$", path).group(1))
    m = json.load(open(path))
    assert m["used"], path
    for f in m["used"]:
        assert int(np.load(os.path.join(run, "games", "it%d" % n, f))["iteration"]) == n, (path, f)
        once(n, f)
        checked += 1
    # Late games count by the iteration they were played for (docs/trainer.md):
    # never a newer iteration's, never one the window has left, tagged as recorded.
    for e in m.get("late", []):
        g = np.load(os.path.join(run, "games", "it%d" % e["iteration"], e["file"]))
        assert n - window < e["iteration"] < n, (path, e)
        assert int(g["iteration"]) == e["iteration"], (path, e)
        assert int(g["model_generation"]) == e["model_generation"], (path, e)
        once(e["iteration"], e["file"])
        late += 1
    for e in m.get("late_aged_out", []):
        assert e["iteration"] <= n - window, (path, e)
        once(e["iteration"], e["file"])
print("used game files checked:", checked, "of which late:", late)
assert checked > 0
PY
finish
