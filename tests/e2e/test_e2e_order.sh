#!/usr/bin/env bash
# Start the three kinds of process (server, trainer, workers) in each of the
# 6 orders, on empty run directories, one second apart (reliability checklist
# 7): iteration 1 completes every time, and the workers end up using the
# server even when it came last.
source "$(dirname "$0")/lib.sh"
BASE="$RUN"
stop_all() {
  local d
  for d in "$BASE"/order_*; do
    [ -d "$d" ] && "$ROOT/launch/stop.sh" --run-dir "$d" --timeout 10 >/dev/null 2>&1 || true
    RUN="$d"
    for p in $(all_pids); do kill -KILL "$p" 2>/dev/null || true; done
    if ((FAILS)); then
      echo "---- logs of $d ----"
      for f in "$(run_logs_dir)"/*; do [ -f "$f" ] && { echo "== $f"; tail -n 25 "$f"; }; done
    fi
  done
  RUN="$BASE"
  cleanup
}
trap stop_all EXIT
export OMP_NUM_THREADS=1

start_server() {
  setsid "$BIN/infer_server" --config "$CONFIG" --set "run.dir=$RUN" --run-dir "$RUN" </dev/null \
    >"$(run_out_file server)" 2>&1 &
  echo $! >"$(run_pid_file server)"
}
start_trainer() {
  setsid "$BIN/trainer" --config "$CONFIG" --set "run.dir=$RUN" </dev/null >"$(run_out_file trainer)" 2>&1 &
  echo $! >"$(run_pid_file trainer)"
}
start_workers() {
  local i
  for i in 0 1 2; do
    setsid "$BIN/worker" --config "$CONFIG" --set "run.dir=$RUN" --id $i </dev/null \
      >"$(run_out_file "$(run_worker_name $i)")" 2>&1 &
    echo $! >"$(run_pid_file "$(run_worker_name $i)")"
  done
}

n=0
for order in "server trainer workers" "server workers trainer" "trainer server workers" \
             "trainer workers server" "workers server trainer" "workers trainer server"; do
  n=$((n + 1))
  RUN="$BASE/order_$n"
  mkdir -p "$(run_logs_dir)" "$(run_pids_dir)"
  export GOMOKU_INFER_SOCK="$(run_socket)"
  first=1
  for what in $order; do
    ((first)) || sleep 1
    first=0
    "start_$what"
  done
  check "$order: iteration 1 completes" wait_for 100 at_least_generations 1
  check "$order: workers reached the server" wait_for 60 grep -q "remote batched inference" "$(run_log_file worker_0)"
  "$ROOT/launch/stop.sh" --run-dir "$RUN" --timeout 10 >/dev/null 2>&1 || true
done
RUN="$BASE"
finish
