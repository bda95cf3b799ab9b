#!/usr/bin/env bash
# Start the three kinds of process in reverse order (workers, trainer, server):
# iteration 1 still completes, and the workers end up using the server.
source "$(dirname "$0")/lib.sh"
mkdir -p "$RUN/logs" "$RUN/pids"
export GOMOKU_INFER_SOCK="$RUN/sock/infer.sock" OMP_NUM_THREADS=1
for i in 0 1 2; do
  setsid "$BIN/worker" --config "$CONFIG" --set "run.dir=$RUN" --id $i </dev/null >"$RUN/logs/worker_$i.out" 2>&1 &
  echo $! >"$RUN/pids/worker_$i.pid"
done
sleep 1
setsid "$BIN/trainer" --config "$CONFIG" --set "run.dir=$RUN" </dev/null >"$RUN/logs/trainer.out" 2>&1 &
echo $! >"$RUN/pids/trainer.pid"
sleep 1
setsid "$BIN/infer_server" --config "$CONFIG" --set "run.dir=$RUN" --run-dir "$RUN" </dev/null >"$RUN/logs/server.out" 2>&1 &
echo $! >"$RUN/pids/server.pid"
check "iteration 1 completes" wait_for 100 at_least_generations 1
check "workers reached the server" wait_for 60 grep -q "remote batched inference" "$RUN/logs/worker_0.log"
finish
