#!/usr/bin/env bash
# Whole system through launch/start.sh: 2 iterations, consistent status, clean stop.
source "$(dirname "$0")/lib.sh"
check "start.sh reports a healthy system" "$ROOT/launch/start.sh" --config "$CONFIG" --run-dir "$RUN"
PIDS_BEFORE="$(all_pids)"
check "start.sh refuses a second copy of the same run" bash -c "! '$ROOT/launch/start.sh' --config '$CONFIG' --run-dir '$RUN' >/dev/null 2>&1"
check "2 iterations complete" wait_for 100 at_least_generations 2
check "metadata advanced past iteration 2" test "$(meta_iteration)" -ge 3
GEN_META="$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["model_generation"])' "$RUN/metadata.json")"
GEN_SERVER="$("$BIN/infer_ctl" --socket "$RUN/sock/infer.sock" stats | json_get '["model_generation"]')"
check "server serves the generation metadata names ($GEN_SERVER == $GEN_META)" test "$GEN_SERVER" = "$GEN_META"
for i in 0 1 2; do
  check "worker $i logged remote mode" grep -q "remote batched inference enabled" "$RUN/logs/worker_$i.log"
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
check "stop.sh stops everything" "$ROOT/launch/stop.sh" --run-dir "$RUN"
check "no process left" no_process_left $PIDS_BEFORE
check "no stale socket" test ! -e "$RUN/sock/infer.sock"
finish
