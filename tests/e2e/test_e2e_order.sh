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
    for p in $(cat "$d"/pids/*.pid 2>/dev/null || true); do kill -KILL "$p" 2>/dev/null || true; done
    if ((FAILS)); then
      echo "---- logs of $d ----"
      for f in "$d"/logs/*; do [ -f "$f" ] && { echo "== $f"; tail -n 25 "$f"; }; done
    fi
  done
  RUN="$BASE"
  cleanup
}
trap stop_all EXIT
export OMP_NUM_THREADS=1

start_server() {
  setsid "$BIN/infer_server" --config "$CONFIG" --set "run.dir=$RUN" --run-dir "$RUN" </dev/null \
    >"$RUN/logs/server.out" 2>&1 &
  echo $! >"$RUN/pids/server.pid"
}
start_trainer() {
  setsid "$BIN/trainer" --config "$CONFIG" --set "run.dir=$RUN" </dev/null >"$RUN/logs/trainer.out" 2>&1 &
  echo $! >"$RUN/pids/trainer.pid"
}
start_workers() {
  local i
  for i in 0 1 2; do
    setsid "$BIN/worker" --config "$CONFIG" --set "run.dir=$RUN" --id $i </dev/null >"$RUN/logs/worker_$i.out" 2>&1 &
    echo $! >"$RUN/pids/worker_$i.pid"
  done
}

n=0
for order in "server trainer workers" "server workers trainer" "trainer server workers" \
             "trainer workers server" "workers server trainer" "workers trainer server"; do
  n=$((n + 1))
  RUN="$BASE/order_$n"
  mkdir -p "$RUN/logs" "$RUN/pids"
  export GOMOKU_INFER_SOCK="$RUN/sock/infer.sock"
  first=1
  for what in $order; do
    ((first)) || sleep 1
    first=0
    "start_$what"
  done
  check "$order: iteration 1 completes" wait_for 100 at_least_generations 1
  check "$order: workers reached the server" wait_for 60 grep -q "remote batched inference" "$RUN/logs/worker_0.log"
  "$ROOT/launch/stop.sh" --run-dir "$RUN" --timeout 10 >/dev/null 2>&1 || true
done
RUN="$BASE"
finish
