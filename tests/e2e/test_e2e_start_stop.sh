#!/usr/bin/env bash
# Whole system through launch/start.sh: 2 iterations, consistent status, clean stop.
source "$(dirname "$0")/lib.sh"
start_run "start.sh reports a healthy system"
PIDS_BEFORE="$(all_pids)"
check "start.sh refuses a second copy of the same run" bash -c "! '$ROOT/launch/start.sh' --config '$CONFIG' --run-dir '$RUN' >/dev/null 2>&1"
check "2 iterations complete" wait_for 100 at_least_generations 2
check "metadata advanced past iteration 2" test "$(meta_iteration)" -ge 3
GEN_META="$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["model_generation"])' "$(run_metadata)")"
GEN_SERVER="$("$BIN/infer_ctl" --socket "$(run_socket)" stats | json_get '["model_generation"]')"
check "server serves the generation metadata names ($GEN_SERVER == $GEN_META)" test "$GEN_SERVER" = "$GEN_META"
# Reload before metadata (checklist 5): the games of iteration N+1 carry the generation the server
# acknowledged for the weights of iteration N, and no move of theirs was evaluated by an older model.
check "game generation tags match the acknowledged generations; no move used an older model" \
  /usr/bin/python3 - "$RUN" <<'PY'
import glob, json, os, sys
import numpy as np
run = sys.argv[1]
acked = {}
for line in open(os.path.join(run, "generations.jsonl")):
    try:
        d = json.loads(line)
    except ValueError:
        continue  # a line being written
    acked[d["iteration"]] = d["model_generation"]
checked = 0
for n, gen in sorted(acked.items()):
    for f in glob.glob(os.path.join(run, "games", "it%d" % (n + 1), "*.npz")):
        z = np.load(f)
        tag = int(z["model_generation"])
        assert tag == gen, (f, tag, gen)
        assert (z["model_generations"] >= tag).all(), (f, z["model_generations"].min(), tag)
        checked += 1
print("game files checked:", checked)
assert checked > 0
PY
for i in 0 1 2; do
  check "worker $i logged remote mode" grep -q "remote batched inference enabled" "$(run_log_file "$(run_worker_name $i)")"
done
M_BEFORE="$(meta_iteration)"
STATUS="$("$ROOT/launch/status.sh" --run-dir "$RUN" --json)"
M_AFTER="$(meta_iteration)"
S_IT="$(echo "$STATUS" | json_get '["iteration"]')"
# The run keeps going while we look: the status must show the metadata iteration of its moment.
check "status iteration matches metadata ($M_BEFORE <= $S_IT <= $M_AFTER)" test "$M_BEFORE" -le "$S_IT" -a "$S_IT" -le "$M_AFTER"
check "status sees 3 live workers" test "$(echo "$STATUS" | json_get '["workers_alive"]')" = 3
check "status sees the server alive" test "$(echo "$STATUS" | json_get '["server"]["alive"]')" = True
check "status time table has >= 2 rows in numeric order" /usr/bin/python3 -c '
import json,sys; t=json.loads(sys.argv[1])["generations"]; it=[r["iteration"] for r in t]
assert len(it) >= 2 and it == sorted(it), it' "$STATUS"
check "status text view renders" bash -c "'$ROOT/launch/status.sh' --run-dir '$RUN' | grep -q 'iteration'"
# The evaluator (started and health-checked by start.sh) rates the run while it goes on.
check "the evaluator writes ratings.jsonl with an Elo and its interval" wait_for 120 /usr/bin/python3 -c '
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1] + "/ratings.jsonl") if l.strip()]
r = lines[-1]
assert r["player"].startswith("checkpoint:") and r["elo_low"] <= r["elo"] <= r["elo_high"], r' "$RUN"
STATUS="$("$ROOT/launch/status.sh" --run-dir "$RUN" --json)"
check "status sees the evaluator alive" test "$(echo "$STATUS" | json_get '["evaluator"]["alive"]')" = True
check "status text view shows the newest Elo with its interval" \
  bash -c "'$ROOT/launch/status.sh' --run-dir '$RUN' | grep -E 'newest Elo: checkpoint:[0-9]+ .* [+-][0-9]+ \[[+-][0-9]+, [+-][0-9]+\] vs rollout:50'"
PORT="$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["dashboard"]["port"])' "$CONFIG")"
check "the dashboard answers on the configured port" bash -c "exec 3<>/dev/tcp/127.0.0.1/$PORT && printf 'GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n' >&3 && head -1 <&3 | grep -q '200'"
# A partly dead run (operations.md, "One part died"): start.sh still refuses it, --revive brings
# back exactly the dead processes and the run goes on.
W1_OLD="$(pid_of worker_1)" SERVER_OLD="$(pid_of server)" TRAINER_OLD="$(pid_of trainer)"
W1_LOG_SIZE="$(stat -c %s "$(run_log_file worker_1)")"
kill -KILL "$W1_OLD" "$SERVER_OLD"
wait_for 10 no_process_left "$W1_OLD" "$SERVER_OLD" || true
check "start.sh without --revive refuses the partly dead run" bash -c "! '$ROOT/launch/start.sh' --config '$CONFIG' --run-dir '$RUN' >/dev/null 2>&1"
start_run "start.sh --revive restarts the dead and reports a healthy system" --revive
check "the worker and the server are new processes" test "$(pid_of worker_1)" != "$W1_OLD" -a "$(pid_of server)" != "$SERVER_OLD"
check "the live trainer was left running" test "$(pid_of trainer)" = "$TRAINER_OLD"
check "the revived worker connected again (its log since the revive)" \
  bash -c "tail -c +$((W1_LOG_SIZE + 1)) '$(run_log_file worker_1)' | grep -q 'remote batched inference enabled'"
GEN_REVIVED="$(generations)"
check "the run goes on after the revive" wait_for 100 at_least_generations $((GEN_REVIVED + 1))
PIDS_BEFORE="$PIDS_BEFORE $(all_pids)"
check "stop.sh stops everything" "$ROOT/launch/stop.sh" --run-dir "$RUN"
check "no process left" no_process_left $PIDS_BEFORE
check "no stale socket" test ! -e "$(run_socket)"
finish
