#!/usr/bin/env bash
# Proof of learning (NOT a CI test): trains configs/learn-8x8.json (8x8, five in a
# row, small net) from scratch on this machine with the real trainer and workers,
# while build/bin/evaluator rates every checkpoint against pure MCTS with 1000
# rollout playouts (docs/ratings.md).  At the end the newest checkpoint's
# evaluation is extended to --games games; target: score >= 0.90 against
# rollout:1000.  Prints the Elo curve (Elo and 95% interval against minutes of
# training) and writes it to RUN_DIR/curve.tsv.
#
# usage: tools/learn_8x8.sh [--minutes M] [--games G] [--eval-games E] [--rollouts N] [--sims S]
#                           [--workers W] [--run-dir DIR] [--build DIR] [--server]
#                           [--eval-only] [--config FILE] [--ladder LIST] [--set key=value]...
#   --minutes M   training time budget (default 60); the trainer and workers are
#                 stopped (SIGTERM) when it runs out, or earlier if run.max_iterations
#                 is set with --set and reached
#   --games G     games of the final evaluation (default 50); --eval-games E: games per
#                 checkpoint while training (default 20); --rollouts N: the anchor's playouts
#                 (default 1000)
#   --sims S      MCTS simulations of the trained player (eval.simulations, default 400)
#   --workers W   self-play workers (default: run.worker_count of the config, 2)
#   --server      also run build/bin/infer_server and let the workers use it
#                 (default: workers use local inference: on 2 CPU cores this is as fast)
#   --eval-only   skip training; extend the evaluation of the newest checkpoint in --run-dir
#   --config FILE the run's config (default configs/learn-8x8.json; configs/recipe-8x8.json
#                 is the same run with the self-play recipe and the solver)
#   --ladder LIST the evaluator's ladder while training (default rollout:N; e.g.
#                 rollout:1000,rollout:10000,previous:5 to see the net climb past the anchor)
# Exit: 0 when the score reaches the target, 1 when it does not, 2 on setup errors.
# Everything lands in the run directory: logs/, generations.jsonl, ratings.jsonl,
# eval/results.jsonl, curve.tsv.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$ROOT/build
CONFIG=$ROOT/configs/learn-8x8.json
MINUTES=60
GAMES=50
EVAL_GAMES=20
ROLLOUTS=1000
SIMS=400
WORKERS=2
RUN_DIR=$ROOT/runs/learn-8x8-$(date +%Y%m%d-%H%M%S)
USE_SERVER=0
EVAL_ONLY=0
SETS=()
LADDER=""
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) MINUTES=$2; shift 2 ;;
    --games) GAMES=$2; shift 2 ;;
    --eval-games) EVAL_GAMES=$2; shift 2 ;;
    --rollouts) ROLLOUTS=$2; shift 2 ;;
    --sims) SIMS=$2; shift 2 ;;
    --workers) WORKERS=$2; shift 2 ;;
    --run-dir) RUN_DIR=$2; shift 2 ;;
    --build) BUILD=$2; shift 2 ;;
    --server) USE_SERVER=1; shift ;;
    --eval-only) EVAL_ONLY=1; shift ;;
    --set) SETS+=(--set "$2"); shift 2 ;;
    --config) CONFIG=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift 2 ;;
    --ladder) LADDER=$2; shift 2 ;;
    -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
    *) echo "learn_8x8.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
PY=/usr/bin/python3
for b in trainer worker evaluator; do
  [ -x "$BUILD/bin/$b" ] || { echo "learn_8x8.sh: $BUILD/bin/$b missing (build it first)" >&2; exit 2; }
done
[ "$USE_SERVER" = 0 ] || [ -x "$BUILD/bin/infer_server" ] || { echo "learn_8x8.sh: no infer_server" >&2; exit 2; }
mkdir -p "$RUN_DIR/logs"
RUN_DIR=$(cd "$RUN_DIR" && pwd)
SETS+=(--set "run.dir=$RUN_DIR" --set "run.worker_count=$WORKERS")
EVAL_SETS=(--set "eval.ladder=${LADDER:-rollout:$ROLLOUTS}" --set "eval.anchor=rollout:$ROLLOUTS" --set "eval.simulations=$SIMS")
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
  "$BUILD/bin/evaluator" --config "$CONFIG" --run-dir "$RUN_DIR" "${SETS[@]}" "${EVAL_SETS[@]}" \
    --set "eval.games=$EVAL_GAMES" >"$RUN_DIR/logs/evaluator.out" 2>&1 &
  PIDS+=($!)
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

# The final evaluation: the evaluator resumes the newest checkpoint's evaluation
# and plays the missing games up to --games (eval/results.jsonl is kept), then
# is stopped once ratings.jsonl says that evaluation is complete.
[ -f "$RUN_DIR/metadata.json" ] || { echo "learn_8x8.sh: no metadata.json in $RUN_DIR" >&2; exit 2; }
ITER=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["iteration"] - 1)' "$RUN_DIR/metadata.json")
log "final evaluation: checkpoint $ITER vs rollout:$ROLLOUTS, $GAMES games ($SIMS sims)"
"$BUILD/bin/evaluator" --config "$CONFIG" --run-dir "$RUN_DIR" "${SETS[@]}" "${EVAL_SETS[@]}" \
  --set "eval.games=$GAMES" --set "eval.nice=0" >>"$RUN_DIR/logs/evaluator.out" 2>&1 &
EVAL=$!
PIDS+=($EVAL)
final_done() {
  $PY - "$RUN_DIR/ratings.jsonl" "$ITER" "$GAMES" <<'PY'
import json, sys
path, it, games = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
try:
    lines = [json.loads(l) for l in open(path) if l.strip()]
except (OSError, ValueError):
    sys.exit(1)
done = [r for r in lines if r["iteration"] == it and sum(o["games"] for o in r["opponents"]) >= games]
sys.exit(0 if done else 1)
PY
}
until final_done; do
  kill -0 "$EVAL" 2>/dev/null || { echo "learn_8x8.sh: the evaluator exited (see $RUN_DIR/logs/evaluator.out)" >&2; exit 2; }
  sleep 5
done
stop_all

# The curve: one row per evaluated checkpoint, minutes of training from generations.jsonl.
PYTHONPATH=$ROOT/tools $PY - "$RUN_DIR" "$ITER" "$ROLLOUTS" >"$RUN_DIR/curve.tsv" <<'PY'
import json, os, sys
import runlog
run, final, rollouts = sys.argv[1], int(sys.argv[2]), sys.argv[3]
gens = runlog.generations(run)
t0 = None
if gens:
    first = gens[min(gens)]
    t0 = first.get("start")
print("iteration\tminutes\telo\telo_low\telo_high\twins\tdraws\tlosses\tgames")
for l in open(os.path.join(run, "ratings.jsonl")):
    r = json.loads(l)
    it = r["iteration"]
    g = gens.get(it)
    minutes = (g["start"] + g["total_s"] - t0) / 60 if g and t0 is not None and "total_s" in g else float("nan")
    o = [x for x in r["opponents"] if x["name"] == "rollout:" + rollouts]
    w, d, lo = (o[0]["wins"], o[0]["draws"], o[0]["losses"]) if o else (0, 0, 0)
    fmt = lambda v: "nan" if v is None else "%.0f" % v
    print("%d\t%.1f\t%s\t%s\t%s\t%d\t%d\t%d\t%d" % (it, minutes, fmt(r["elo"]), fmt(r["elo_low"]), fmt(r["elo_high"]), w, d, lo, w + d + lo))
PY
column -t "$RUN_DIR/curve.tsv" || cat "$RUN_DIR/curve.tsv"
SCORE=$($PY - "$RUN_DIR/curve.tsv" "$ITER" <<'PY'
import sys
rows = [l.split("\t") for l in open(sys.argv[1]).read().splitlines()[1:]]
row = [r for r in rows if int(r[0]) == int(sys.argv[2])][-1]
w, d, l = int(row[5]), int(row[6]), int(row[7])
print("%.3f" % ((w + d / 2) / max(1, w + d + l)))
PY
)
if $PY -c "import sys; sys.exit(0 if float('$SCORE') >= 0.9 else 1)"; then
  log "PASS: score $SCORE >= 0.90 against rollout:$ROLLOUTS after iteration $ITER"
  exit 0
fi
log "FAIL: score $SCORE < 0.90 against rollout:$ROLLOUTS after iteration $ITER"
exit 1
