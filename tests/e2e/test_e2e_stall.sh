#!/usr/bin/env bash
# SIGSTOP workers (reliability checklist 9): with 2 of the 3 workers stopped,
# the trainer trains after the stall timeout on what the third produced;
# after SIGCONT the run goes on, and no iteration ever trains on a game of
# another iteration.
source "$(dirname "$0")/lib.sh"
check "start.sh reports a healthy system" "$ROOT/launch/start.sh" --config "$CONFIG" --run-dir "$RUN"
check "iteration 1 completes" wait_for 100 at_least_generations 1
N0="$(generations)"
S0="$(grep -c "stall timeout" "$RUN/logs/trainer.log" || true)"
kill -STOP "$(pid_of worker_1)" "$(pid_of worker_2)"
# configs/tiny.json: stall_timeout_s 20, min_games 3 = one worker's games per iteration.
check "an iteration completes with 2 workers stopped" wait_for 90 at_least_generations $((N0 + 1))
check "the trainer logged the stall timeout" test "$(grep -c "stall timeout" "$RUN/logs/trainer.log" || true)" -gt "$S0"
kill -CONT "$(pid_of worker_1)" "$(pid_of worker_2)"
check "iterations go on after SIGCONT" wait_for 100 at_least_generations $((N0 + 2))
check "all workers alive" bash -c "kill -0 $(pid_of worker_0) && kill -0 $(pid_of worker_1) && kill -0 $(pid_of worker_2)"
check "every game an iteration trained on is tagged with that iteration" /usr/bin/python3 - "$RUN" <<'PY'
import glob, json, os, re, sys
import numpy as np
run = sys.argv[1]
checked = 0
for path in glob.glob(os.path.join(run, "trainer", "games_it*.json")):
    n = int(re.search(r"games_it(\d+)\.json$", path).group(1))
    used = json.load(open(path))["used"]
    assert used, path
    for f in used:
        f = f if os.path.isabs(f) else os.path.join(run, "games", "it%d" % n, f)
        assert int(np.load(f)["iteration"]) == n, (path, f)
        checked += 1
print("used game files checked:", checked)
assert checked > 0
PY
finish
