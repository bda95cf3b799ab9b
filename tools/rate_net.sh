#!/usr/bin/env bash
# Rates one checkpoint against one opponent over G games split across J arena
# processes run side by side (each its own --seed), then merges the games and
# prints one JSON object: W/D/L, score and Elo with the same 95% interval as
# tools/arena (ComputeElo).  For the long measurements of docs/ratings.md;
# NOT a CI test.
#
# usage: tools/rate_net.sh --net PATH[:SIMS] [--vs SPEC (rollout:1000)] [--games G (40)]
#                          [--jobs J (2)] [--seed S (1000)] [--config FILE] [--set key=value]... [--out FILE]
#   --set board.size=20 plays a conv checkpoint at 20x20, --set board.rule=renju under renju.
#   --out appends the JSON object to FILE too.  Job j seeds its rollout players with S+j: more
#   games of the same match need another --seed (the same seed replays the same games).
#   Split only rollout:N matches (--jobs > 1): other opponents are deterministic, and are refused.
#   GOMOKU_BIN=DIR uses a copy of build/bin.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${GOMOKU_BIN:-$ROOT/build/bin}
PY=/usr/bin/python3
NET="" VS=rollout:1000 GAMES=40 JOBS=2 SEED=1000 CONFIG=$ROOT/configs/cpu.json OUT="" SETS=()
while (($#)); do
  case "$1" in
    --net) NET=$2; shift 2 ;;
    --vs) VS=$2; shift 2 ;;
    --games) GAMES=$2; shift 2 ;;
    --jobs) JOBS=$2; shift 2 ;;
    --seed) SEED=$2; shift 2 ;;
    --config) CONFIG=$2; shift 2 ;;
    --set) SETS+=(--set "$2"); shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "rate_net.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[ -n "$NET" ] || { echo "rate_net.sh: --net PATH[:SIMS] is required" >&2; exit 2; }
[[ "$GAMES" =~ ^[0-9]+$ && "$JOBS" =~ ^[0-9]+$ && "$SEED" =~ ^[0-9]+$ && "$JOBS" -ge 1 && "$GAMES" -ge "$JOBS" ]] ||
  { echo "rate_net.sh: --games, --jobs and --seed must be integers with games >= jobs >= 1" >&2; exit 2; }
# Only a rollout opponent's games depend on --seed: two deterministic players
# (a net, uniform:N) would replay the same games in every job.
if ((JOBS > 1)) && [[ "$VS" != rollout:* ]]; then
  echo "rate_net.sh: --vs $VS is deterministic against a net: every job would replay the same games; use --jobs 1" >&2
  exit 2
fi
TMP=$(mktemp -d /tmp/gz-rate-XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$TMP"' EXIT
t0=$(date +%s)
for ((j = 0; j < JOBS; j++)); do
  n=$(((GAMES / JOBS) + (j < GAMES % JOBS ? 1 : 0)))
  # Even game counts keep both colours equal within a job.
  OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 "$BIN/arena" --config "$CONFIG" "${SETS[@]}" --player-a "net:$NET" \
    --player-b "$VS" --games "$n" --seed $((SEED + j)) --json >"$TMP/$j.json" 2>"$TMP/$j.err" &
done
fail=0
for p in $(jobs -p); do wait "$p" || fail=1; done
((fail == 0)) || { echo "rate_net.sh: an arena job failed:" >&2; cat "$TMP"/*.err | tail -5 >&2; exit 1; }
$PY - "$TMP" "$JOBS" "$NET" "$VS" "$CONFIG" "$(( $(date +%s) - t0 ))" "$OUT" "${SETS[*]:-}" <<'PY'
import json, math, os, sys, time
tmp, jobs, net, vs, config, seconds, out, sets = sys.argv[1:9]
parts = [json.load(open(os.path.join(tmp, "%d.json" % j))) for j in range(int(jobs))]
w, d, l = (sum(p[k] for p in parts) for k in ("wins", "draws", "losses"))
g = w + d + l
score = (w + 0.5 * d) / g
var = (w * (1 - score) ** 2 + d * (0.5 - score) ** 2 + l * score ** 2) / g
half = 1.96 * math.sqrt(var / g)
def to_elo(s):
    s = min(max(s, 1e-4), 1 - 1e-4)
    return 0.0 - 400.0 * math.log10(1.0 / s - 1.0)
s = min(max(score, 0.5 / g), 1 - 0.5 / g)
r = {"net": net, "vs": vs, "config": config, "sets": sets, "games": g, "wins": w, "draws": d, "losses": l,
     "score": score, "elo": to_elo(s), "elo_low": to_elo(max(s - half, 0.5 / g / 2)),
     "elo_high": to_elo(min(s + half, 1 - 0.5 / g / 2)), "seconds": int(seconds),
     "forfeits": sum((p.get("forfeits") or [] for p in parts), []), "time": time.time()}
line = json.dumps(r, sort_keys=True)
print(line)
if out:
    with open(out, "a") as f:
        f.write(line + "\n")
PY
