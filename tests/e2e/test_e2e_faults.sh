#!/usr/bin/env bash
# Fault runs: kill -9 a worker, the server, the trainer (and restart it).
source "$(dirname "$0")/lib.sh"
start_run "start.sh reports a healthy system"
check "iteration 1 completes" wait_for 100 at_least_generations 1

# kill -9 one worker mid-iteration: the iteration still completes (overproduction / stall timeout).
N0="$(generations)"
kill -KILL "$(pid_of worker_1)"
check "iteration completes without worker 1" wait_for 100 at_least_generations $((N0 + 1))

# kill -9 worker 1 ten more times at random moments (checklist 1), restarting it each time.
# (A simple command in the background, not "cd && setsid ... &": $! must be the worker itself.)
for _ in $(seq 10); do
  ( cd "$ROOT" || exit 1
    GOMOKU_INFER_SOCK="$(run_socket)" setsid "$BIN/worker" --config "$CONFIG" --set "run.dir=$RUN" --id 1 \
      </dev/null >>"$(run_out_file worker_1)" 2>&1 &
    echo $! >"$(run_pid_file worker_1)" )
  sleep "0.$((RANDOM % 10))$((RANDOM % 10))"
  kill -KILL "$(pid_of worker_1)" 2>/dev/null || true
done
no_worker_1_left() { [ -z "$(live_run_pids "run.dir=$RUN --id 1")" ]; }
check "each kill hit the worker it started (none left running)" wait_for 5 no_worker_1_left
N0B="$(generations)"
check "iterations go on after 10 more kills of worker 1" wait_for 100 at_least_generations $((N0B + 1))
check "every game file under a final name is whole (all zip CRCs)" /usr/bin/python3 - "$RUN" <<'PY'
import glob, sys, zipfile
files = glob.glob(sys.argv[1] + "/games/it*/*.npz")
bad = [f for f in files if zipfile.ZipFile(f).testzip() is not None]
print(len(files), "game files,", len(bad), "broken")
assert files and not bad, bad
PY

# kill -9 the server: workers log the fallback and the iteration completes.
N1="$(generations)"
kill -KILL "$(pid_of server)"
check "workers log the fallback" wait_for 60 grep -q "falling back to local inference" "$(run_log_file worker_0)" "$(run_log_file worker_2)"
check "iteration completes without the server" wait_for 100 at_least_generations $((N1 + 1))
fell_back() {  # worker 0's status file: local mode, and the fallback counted
  /usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d["mode"] != "local" or d["fallbacks_total"] < 1)' \
    "$(run_worker_status 0)" 2>/dev/null
}
check "worker 0's status shows local mode and counts the fallback" wait_for 30 fell_back
check "worker 0 survived the server's death" alive "$(pid_of worker_0)"

# kill -9 the trainer and start it again: it resumes the same run.
N2="$(generations)"
IT_BEFORE="$(meta_iteration)"
kill -KILL "$(pid_of trainer)"
sleep 0.5
( cd "$ROOT" || exit 1
  setsid "$BIN/trainer" --config "$CONFIG" --set "run.dir=$RUN" </dev/null >"$(run_out_file trainer2)" 2>&1 &
  echo $! >"$(run_pid_file trainer)" )
check "restarted trainer resumes (not from scratch)" wait_for 30 grep -q "resuming run at iteration" "$(run_out_file trainer2)" "$(run_log_file trainer)"
check "iterations continue after the restart" wait_for 100 at_least_generations $((N2 + 1))
check "iteration did not go back" test "$(meta_iteration)" -ge "$IT_BEFORE"
finish
