#!/usr/bin/env bash
# Proof of learning (NOT a CI test): trains configs/learn-8x8.json (8x8, five in a
# row, small net) from scratch on this machine with the real trainer and workers,
# then scores the newest checkpoint against pure MCTS with 1000 rollout playouts
# using build/bin/arena.  Target: score >= 0.90 over >= 50 games after <= 60
# minutes of training.
#
# usage: tools/learn_8x8.sh [--minutes M] [--games G] [--rollouts N] [--sims S]
#                           [--workers W] [--run-dir DIR] [--build DIR] [--server]
#                           [--eval-only] [--set key=value]...
#   --minutes M   training time budget (default 60); the trainer and workers are
#                 stopped (SIGTERM) when it runs out, or earlier if run.max_iterations
#                 is set with --set and reached
#   --games G     arena games (default 50); --rollouts N: baseline playouts (default 1000)
#   --sims S      MCTS simulations of the trained player in the arena (default 400)
#   --workers W   self-play workers (default: run.worker_count of the config, 2)
#   --server      also run build/bin/infer_server and let the workers use it
#                 (default: workers use local inference: on 2 CPU cores this is as fast)
#   --eval-only   skip training; evaluate the newest checkpoint in --run-dir
# Exit: 0 when the score reaches the target, 1 when it does not, 2 on setup errors.
# Everything lands in the run directory: logs/, generations.jsonl, arena.json.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$ROOT/build
CONFIG=$ROOT/configs/learn-8x8.json
MINUTES=60
GAMES=50
ROLLOUTS=1000
SIMS=400
WORKERS=2
RUN_DIR=$ROOT/runs/learn-8x8-$(date +%Y%m%d-%H%M%S)
USE_SERVER=0
EVAL_ONLY=0
SETS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) MINUTES=$2; shift 2 ;;
    --games) GAMES=$2; shift 2 ;;
    --rollouts) ROLLOUTS=$2; shift 2 ;;
    --sims) SIMS=$2; shift 2 ;;
    --workers) WORKERS=$2; shift 2 ;;
    --run-dir) RUN_DIR=$2; shift 2 ;;
    --build) BUILD=$2; shift 2 ;;
    --server) USE_SERVER=1; shift ;;
    --eval-only) EVAL_ONLY=1; shift ;;
    --set) SETS+=(--set "$2"); shift 2 ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "learn_8x8.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
PY=/usr/bin/python3
for b in trainer worker arena; do
  [ -x "$BUILD/bin/$b" ] || { echo "learn_8x8.sh: $BUILD/bin/$b missing (build it first)" >&2; exit 2; }
done
[ "$USE_SERVER" = 0 ] || [ -x "$BUILD/bin/infer_server" ] || { echo "learn_8x8.sh: no infer_server" >&2; exit 2; }
mkdir -p "$RUN_DIR/logs"
RUN_DIR=$(cd "$RUN_DIR" && pwd)
SETS+=(--set "run.dir=$RUN_DIR" --set "run.worker_count=$WORKERS")
SOCK=$RUN_DIR/sock/infer.sock
PIDS=()

stop_all() {
  # Only the processes this script started, by pid.
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
  PIDS=()
}
trap stop_all EXIT

log() { echo "$(date '+%F %T') learn_8x8: $*"; }

if [ "$EVAL_ONLY" = 0 ]; then
  log "run dir $RUN_DIR, training for $MINUTES min with $WORKERS workers (server: $USE_SERVER)"
  if [ "$USE_SERVER" = 1 ]; then
    "$BUILD/bin/infer_server" --config "$CONFIG" "${SETS[@]}" >"$RUN_DIR/logs/server.out" 2>&1 &
    PIDS+=($!)
    export GOMOKU_INFER_SOCK=$SOCK
  else
    unset GOMOKU_INFER_SOCK
    SETS+=(--set "server.socket=$RUN_DIR/sock/none.sock")
  fi
  "$BUILD/bin/trainer" --config "$CONFIG" "${SETS[@]}" >"$RUN_DIR/logs/trainer.out" 2>&1 &
  TRAINER=$!
  PIDS+=($TRAINER)
  for id in $(seq 0 $((WORKERS - 1))); do
    "$BUILD/bin/worker" --config "$CONFIG" --id "$id" "${SETS[@]}" >"$RUN_DIR/logs/worker_$id.out" 2>&1 &
    PIDS+=($!)
  done
  START=$(date +%s)
  DEADLINE=$((START + MINUTES * 60))
  while [ "$(date +%s)" -lt "$DEADLINE" ]; do
    sleep 20
    if ! kill -0 "$TRAINER" 2>/dev/null; then
      log "trainer exited (see $RUN_DIR/logs/trainer.out)"
      break
    fi
    last=$(tail -n 1 "$RUN_DIR/generations.jsonl" 2>/dev/null || true)
    [ -n "$last" ] && log "$(( ($(date +%s) - START) / 60 )) min: $(echo "$last" | $PY -c '
import json,sys
try:
    r=json.loads(sys.stdin.read()); l=r["losses"]
    print("iteration %d: %d games, policy %.3f value %.3f entropy %.2f, %.0fs" % (r["iteration"], r["games_used"], l["policy"], l["value"], r["entropy"], r["total_s"]))
except Exception: print("(no complete record yet)")')"
  done
  log "training time over; stopping trainer and workers"
  stop_all
  "$BUILD/bin/trainer" timetable --run-dir "$RUN_DIR" --last 1000 >"$RUN_DIR/timetable.txt" || true
  tail -n 5 "$RUN_DIR/timetable.txt" || true
fi

WEIGHTS=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["weights"])' "$RUN_DIR/metadata.json")
[ -f "$WEIGHTS" ] || { echo "learn_8x8.sh: no checkpoint in $RUN_DIR" >&2; exit 2; }
ITER=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["iteration"] - 1)' "$RUN_DIR/metadata.json")
log "arena: $WEIGHTS (iteration $ITER, $SIMS sims) vs rollout:$ROLLOUTS, $GAMES games"
"$BUILD/bin/arena" --config "$CONFIG" "${SETS[@]}" --player-a "net:$WEIGHTS:$SIMS" --player-b "rollout:$ROLLOUTS" \
  --games "$GAMES" --json >"$RUN_DIR/arena.json" 2>"$RUN_DIR/logs/arena.err"
cat "$RUN_DIR/arena.json"
SCORE=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["score"])' "$RUN_DIR/arena.json")
if $PY -c "import sys; sys.exit(0 if float('$SCORE') >= 0.9 else 1)"; then
  log "PASS: score $SCORE >= 0.90 after iteration $ITER"
  exit 0
fi
log "FAIL: score $SCORE < 0.90 after iteration $ITER"
exit 1
