#!/usr/bin/env bash
# "Does it keep climbing?" past a saturated anchor, NOT a CI test.  Every kept
# checkpoint of a run plays the kept checkpoint before it (tools/arena, net
# against net under one search, two matches at a time); the Elo steps add up to
# a curve with the first kept checkpoint at 0.  Prints one row per checkpoint:
# iteration, minutes of training (generations.jsonl), the step's W/D/L and Elo,
# the cumulative Elo and its rough 95% interval (the steps' variances added;
# a perfect score is clamped as arena clamps it, so such a step is a lower bound).
# Writes OUT (default RUN/chain.json).
#
# usage: tools/rate_chain.sh --run-dir RUN [--config FILE (RUN's config: --config is required)]
#                            [--games G (20)] [--sims S (200)] [--openings K (2)] [--every N (1)] [--out FILE]
#   --every N  only every N-th kept checkpoint (a longer step, fewer matches)
#   GOMOKU_BIN=DIR uses a copy of build/bin.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${GOMOKU_BIN:-$ROOT/build/bin}
PY=/usr/bin/python3
RUN="" CONFIG="" GAMES=20 SIMS=200 OPENINGS=2 EVERY=1 OUT=""
while (($#)); do
  case "$1" in
    --run-dir) RUN=$2; shift 2 ;;
    --config) CONFIG=$2; shift 2 ;;
    --games) GAMES=$2; shift 2 ;;
    --sims) SIMS=$2; shift 2 ;;
    --openings) OPENINGS=$2; shift 2 ;;
    --every) EVERY=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "rate_chain.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[ -n "$RUN" ] && [ -d "$RUN/checkpoints" ] || { echo "rate_chain.sh: --run-dir RUN with RUN/checkpoints is required" >&2; exit 2; }
[ -n "$CONFIG" ] && [ -f "$CONFIG" ] || { echo "rate_chain.sh: --config FILE (the run's config) is required" >&2; exit 2; }
for v in "$GAMES" "$SIMS" "$OPENINGS" "$EVERY"; do
  [[ "$v" =~ ^[0-9]+$ ]] || { echo "rate_chain.sh: --games, --sims, --openings and --every must be integers" >&2; exit 2; }
done
((EVERY >= 1 && GAMES >= 2)) || { echo "rate_chain.sh: --every >= 1 and --games >= 2" >&2; exit 2; }
OUT=${OUT:-$RUN/chain.json}
mapfile -t ITS < <(ls "$RUN/checkpoints" | sed -n 's/^weights_it\([0-9]*\)\.pt$/\1/p' | sort -n | awk -v e="$EVERY" 'NR % e == 1 || e == 1')
((${#ITS[@]} >= 2)) || { echo "rate_chain.sh: fewer than two checkpoints in $RUN/checkpoints" >&2; exit 2; }
TMP=$(mktemp -d /tmp/gz-chain-XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$TMP"' EXIT
echo "$(date +%T) $(( ${#ITS[@]} - 1 )) matches of $GAMES games, two at a time: ${ITS[*]}" >&2
for ((k = 1; k < ${#ITS[@]}; k++)); do
  a=${ITS[k]} b=${ITS[k - 1]}
  (OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 "$BIN/arena" --config "$CONFIG" --games "$GAMES" --openings "$OPENINGS" --json \
     --player-a "net:$RUN/checkpoints/weights_it$a.pt:$SIMS" --player-b "net:$RUN/checkpoints/weights_it$b.pt:$SIMS" \
     >"$TMP/$k.json" 2>"$TMP/$k.err" || echo "rate_chain.sh: it$a vs it$b failed: $(tail -1 "$TMP/$k.err")" >&2) &
  (($(jobs -rp | wc -l) >= 2)) && wait -n
done
wait
PYTHONPATH=$ROOT/tools $PY - "$TMP" "$RUN" "$OUT" "${ITS[@]}" <<'PY'
import json, math, os, sys
import runlog
tmp, run, out, its = sys.argv[1], sys.argv[2], sys.argv[3], [int(x) for x in sys.argv[4:]]
gens = runlog.generations(run)
t0 = gens[min(gens)]["start"] if gens else None
minutes = lambda it: round((gens[it]["end"] - t0) / 60, 2) if it in gens and t0 is not None else 0.0
rows = [{"iteration": its[0], "minutes": minutes(its[0]), "elo": 0.0, "elo_low": 0.0, "elo_high": 0.0}]
cum, var = 0.0, 0.0
print("iteration\tminutes\tW/D/L vs previous\tstep Elo\tElo\t95%")
print("%d\t%.1f\t-\t-\t+0\t[+0, +0]" % (its[0], rows[0]["minutes"]))
for k in range(1, len(its)):
    try:
        m = json.load(open(os.path.join(tmp, "%d.json" % k)))
    except (OSError, ValueError):
        print("%d\t-\t(match failed)" % its[k])
        break
    sigma = (m["elo_high"] - m["elo_low"]) / 3.92
    cum += m["elo"]
    var += sigma * sigma
    half = 1.96 * math.sqrt(var)
    rows.append({"iteration": its[k], "minutes": minutes(its[k]), "vs": its[k - 1], "wins": m["wins"], "draws": m["draws"],
                 "losses": m["losses"], "step_elo": m["elo"], "elo": cum, "elo_low": cum - half, "elo_high": cum + half})
    print("%d\t%.1f\t%d/%d/%d\t%+.0f\t%+.0f\t[%+.0f, %+.0f]" % (its[k], rows[-1]["minutes"], m["wins"], m["draws"], m["losses"],
                                                         m["elo"], cum, cum - half, cum + half))
json.dump({"run": run, "curve": rows}, open(out + ".tmp", "w"), indent=1)
os.replace(out + ".tmp", out)
PY
