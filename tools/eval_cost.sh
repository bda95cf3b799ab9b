#!/usr/bin/env bash
# What the evaluator costs the run (NOT a CI test): one whole run through
# launch/start.sh with the evaluator on, in which the evaluator is paused
# (SIGSTOP) and resumed (SIGCONT) in alternating windows; self-play games per
# minute are counted from the game files in each window.  Both conditions share
# one run (same iterations, same machine state), so the ratio is the figure.
#
# usage: tools/eval_cost.sh [--config FILE] [--window S] [--pairs P] [--warmup S] [--run-dir DIR]
#   defaults: configs/cpu.json, 60 s windows, 3 on/off pairs (order alternates), 60 s warm-up
# Prints one row per window, the totals, and the ratings the run produced meanwhile;
# the run directory is removed at the end.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CONFIG=$ROOT/configs/cpu.json WINDOW=60 PAIRS=3 WARMUP=60 RUN_DIR=""
while [ $# -gt 0 ]; do
  case "$1" in
    --config) CONFIG=$2; shift 2 ;;
    --window) WINDOW=$2; shift 2 ;;
    --pairs) PAIRS=$2; shift 2 ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --run-dir) RUN_DIR=$2; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "eval_cost.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$RUN_DIR" ] || RUN_DIR=$(mktemp -d /tmp/gz-evalcost-XXXXXX)
cleanup() {
  [ -f "$RUN_DIR/pids/evaluator.pid" ] && kill -CONT "$(cat "$RUN_DIR/pids/evaluator.pid")" 2>/dev/null || true
  "$ROOT/launch/stop.sh" --run-dir "$RUN_DIR" >/dev/null 2>&1 || true
  rm -rf "$RUN_DIR"
}
trap cleanup EXIT
T_START=$(date +%s.%N)
"$ROOT/launch/start.sh" --config "$CONFIG" --run-dir "$RUN_DIR" >"$RUN_DIR.start.log" 2>&1 ||
  { cat "$RUN_DIR.start.log" >&2; exit 2; }
EVAL_PID=$(cat "$RUN_DIR/pids/evaluator.pid")
games() { find "$RUN_DIR/games" -name '*.npz' 2>/dev/null | wc -l; }
echo "eval_cost: $(date -u '+%F %T') UTC, $(nproc) cores, config $CONFIG, windows of ${WINDOW}s"
sleep "$WARMUP"
calc() { awk "BEGIN { print $* }"; }
ON_GAMES=0 OFF_GAMES=0 ON_S=0 OFF_S=0
printf '%-6s %-10s %8s %10s\n' window evaluator games games/min
for ((p = 0; p < PAIRS; p++)); do
  if ((p % 2 == 0)); then ORDER="on off"; else ORDER="off on"; fi
  for state in $ORDER; do
    if [ "$state" = on ]; then kill -CONT "$EVAL_PID"; else kill -STOP "$EVAL_PID"; fi
    g0=$(games) t0=$(date +%s.%N)
    sleep "$WINDOW"
    g1=$(games) t1=$(date +%s.%N)
    n=$((g1 - g0)) dt=$(calc "$t1 - $t0")
    printf '%-6s %-10s %8d %10.1f\n' "$((p + 1))" "$state" "$n" "$(calc "60 * $n / $dt")"
    if [ "$state" = on ]; then ON_GAMES=$((ON_GAMES + n)) ON_S=$(calc "$ON_S + $dt")
    else OFF_GAMES=$((OFF_GAMES + n)) OFF_S=$(calc "$OFF_S + $dt"); fi
  done
done
kill -CONT "$EVAL_PID"
ON_RATE=$(calc "60 * $ON_GAMES / $ON_S") OFF_RATE=$(calc "60 * $OFF_GAMES / $OFF_S")
printf 'evaluator on:  %.1f games/min (%d games)\nevaluator off: %.1f games/min (%d games)\n' \
  "$ON_RATE" "$ON_GAMES" "$OFF_RATE" "$OFF_GAMES"
printf 'on/off = %.3f (the evaluator costs %.1f%% of self-play)\n' "$(calc "$ON_RATE / $OFF_RATE")" \
  "$(calc "100 * (1 - $ON_RATE / $OFF_RATE)")"
# What a user of this run saw: the first Elo point, and the dashboard serving it.
/usr/bin/python3 - "$RUN_DIR" "$T_START" <<'PY'
import json, os, sys
run, t0 = sys.argv[1], float(sys.argv[2])
try:
    lines = [json.loads(l) for l in open(os.path.join(run, "ratings.jsonl")) if l.strip()]
except OSError:
    lines = []
first = [json.loads(l) for l in open(os.path.join(run, "eval", "results.jsonl")) if l.strip()][:1]
print("evaluated checkpoints: %d; first finished evaluator game %.0f s after start.sh" %
      (len(lines), first[0]["time"] - t0 if first and "time" in first[0] else float("nan")))
for r in lines:
    print("  %s: Elo %s [%s, %s] (%d games)" % (r["player"], r["elo"], r["elo_low"], r["elo_high"], r["games"]))
PY
grep -o 'dashboard: http[^ ]*' "$RUN_DIR.start.log" || true
rm -f "$RUN_DIR.start.log"
