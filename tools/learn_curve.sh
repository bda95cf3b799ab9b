#!/usr/bin/env bash
# Learning curve of a finished (or running) run: plays the checkpoints kept in
# RUN_DIR/checkpoints against the pure-MCTS baseline with build/bin/arena and
# prints one row per checkpoint: iteration, minutes of training (end of that
# iteration minus the start of iteration 1, from generations.jsonl), score.
# Rows are also appended to RUN_DIR/curve.jsonl (one arena JSON object each,
# plus iteration and minutes).  NOT a CI test.
#
# usage: tools/learn_curve.sh RUN_DIR [--points P] [--iterations I,J,...] [--games G]
#                             [--rollouts N] [--sims S] [--config FILE] [--build DIR]
#   --points P       evaluate P checkpoints spread evenly over those kept (default 6)
#   --iterations ... exactly these iterations instead
#   --games G        arena games per checkpoint (default 20); --rollouts N (default 1000)
#   --sims S         simulations of the trained player (default 400)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$ROOT/build
CONFIG=$ROOT/configs/learn-8x8.json
POINTS=6
ITERATIONS=""
GAMES=20
ROLLOUTS=1000
SIMS=400
PY=/usr/bin/python3
[ $# -ge 1 ] || { sed -n '2,14p' "$0"; exit 2; }
RUN_DIR=$1
shift
while [ $# -gt 0 ]; do
  case "$1" in
    --points) POINTS=$2; shift 2 ;;
    --iterations) ITERATIONS=$2; shift 2 ;;
    --games) GAMES=$2; shift 2 ;;
    --rollouts) ROLLOUTS=$2; shift 2 ;;
    --sims) SIMS=$2; shift 2 ;;
    --config) CONFIG=$2; shift 2 ;;
    --build) BUILD=$2; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "learn_curve.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -d "$RUN_DIR/checkpoints" ] || { echo "learn_curve.sh: no $RUN_DIR/checkpoints" >&2; exit 2; }
[ -f "$RUN_DIR/generations.jsonl" ] || { echo "learn_curve.sh: no $RUN_DIR/generations.jsonl" >&2; exit 2; }
[ -x "$BUILD/bin/arena" ] || { echo "learn_curve.sh: $BUILD/bin/arena missing" >&2; exit 2; }

# Kept checkpoints in numeric order (never lexicographic), then the chosen ones.
CHOSEN=$($PY - "$RUN_DIR" "$POINTS" "$ITERATIONS" <<'EOF'
import os, re, sys
run, points, wanted = sys.argv[1], int(sys.argv[2]), sys.argv[3]
kept = sorted(int(m.group(1)) for f in os.listdir(run + "/checkpoints")
              if (m := re.fullmatch(r"weights_it(\d+)\.pt", f)) and int(m.group(1)) > 0)
if wanted:
    want = [int(x) for x in wanted.split(",") if x]
    missing = [w for w in want if w not in kept]
    if missing:
        sys.exit("learn_curve.sh: no checkpoint for iteration(s) %s" % missing)
    print(" ".join(map(str, want)))
elif kept:
    n = min(points, len(kept))
    idx = sorted({round(i * (len(kept) - 1) / max(1, n - 1)) for i in range(n)})
    print(" ".join(str(kept[i]) for i in idx))
EOF
)
[ -n "$CHOSEN" ] || { echo "learn_curve.sh: no trained checkpoint in $RUN_DIR" >&2; exit 2; }

minutes_at() {
  PYTHONPATH=$ROOT/tools $PY - "$RUN_DIR" "$1" <<'EOF'
import sys
import runlog
recs = runlog.generations(sys.argv[1])
it = int(sys.argv[2])
print("%.1f" % ((recs[it]["end"] - recs[min(recs)]["start"]) / 60) if it in recs and recs else "?")
EOF
}

echo "| iteration | minutes | games | W / D / L | score | Elo (95% interval) |"
echo "|---|---|---|---|---|---|"
for it in $CHOSEN; do
  out=$("$BUILD/bin/arena" --config "$CONFIG" --player-a "net:$RUN_DIR/checkpoints/weights_it$it.pt:$SIMS" \
        --player-b "rollout:$ROLLOUTS" --games "$GAMES" --json 2>>"$RUN_DIR/curve.err")
  min=$(minutes_at "$it")
  echo "$out" | $PY -c '
import json, sys
r = json.loads(sys.stdin.read()); it, mins = int(sys.argv[1]), sys.argv[2]
r["iteration"], r["minutes"] = it, mins
with open(sys.argv[3], "a") as f: f.write(json.dumps(r, sort_keys=True) + "\n")
print("| %d | %s | %d | %d / %d / %d | %.2f | %+.0f (%+.0f .. %+.0f) |" % (it, mins, r["games"], r["wins"], r["draws"],
      r["losses"], r["score"], r["elo"], r["elo_low"], r["elo_high"]))' "$it" "$min" "$RUN_DIR/curve.jsonl"
done
