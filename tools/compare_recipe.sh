#!/usr/bin/env bash
# Baseline recipe vs the new recipe (issue 16 section 4), NOT a CI test.
# Runs configs/baseline-11x11.json and configs/recipe-11x11.json (and, with
# --solver, the recipe plus mcts.solver) AT THE SAME TIME on this machine, each
# through launch/start.sh with its evaluator rating every checkpoint, for
# --minutes; so every run sees the same machine load at every moment and gets
# the same share of it.  Then the final net of each run plays, under one and
# the same search (the baseline config's, solver off): rollout:R and the
# baseline's final net, --games games each, through tools/arena.
# Prints each run's Elo curve (minutes, Elo, interval; the run's own evaluator
# and anchor) and the final table; writes OUT/summary.json.
#
# GOMOKU_BIN=DIR runs a copy of build/bin (so that rebuilding during the run changes nothing).
# usage: tools/compare_recipe.sh [--minutes M (25)] [--workers W (7 per run)] [--games G (20)]
#                                [--rollouts R (1000)] [--solver] [--out DIR (runs/compare-11x11)]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${GOMOKU_BIN:-$ROOT/build/bin}
export GOMOKU_BIN=$BIN
PY=/usr/bin/python3
MINUTES=25 WORKERS=7 GAMES=20 ROLLOUTS=1000 SOLVER=0 OUT=$ROOT/runs/compare-11x11
while (($#)); do
  case "$1" in
    --minutes) MINUTES=$2; shift 2 ;;
    --workers) WORKERS=$2; shift 2 ;;
    --games) GAMES=$2; shift 2 ;;
    --rollouts) ROLLOUTS=$2; shift 2 ;;
    --solver) SOLVER=1; shift ;;
    --out) OUT=$2; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "compare_recipe.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
NAMES=(baseline recipe)
((SOLVER)) && NAMES+=(recipe-solver)
config_of() { case "$1" in baseline) echo "$ROOT/configs/baseline-11x11.json" ;; *) echo "$ROOT/configs/recipe-11x11.json" ;; esac; }
sets_of() { [ "$1" = recipe-solver ] && echo "--set mcts.solver=true" || true; }
mkdir -p "$OUT"
# Every worker's whole quota makes an iteration (fewer workers than the config's 20).
TARGET=$((WORKERS * $($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["run"]["worker_games_per_worker"])' "$ROOT/configs/baseline-11x11.json")))
stop_all() { for n in "${NAMES[@]}"; do "$ROOT/launch/stop.sh" --run-dir "$OUT/$n" >/dev/null 2>&1 || true; done; }
trap stop_all EXIT
for n in "${NAMES[@]}"; do
  [ -e "$OUT/$n/metadata.json" ] && { echo "compare_recipe.sh: $OUT/$n exists: remove it or use --out" >&2; exit 2; }
  # shellcheck disable=SC2046
  "$ROOT/launch/start.sh" --config "$(config_of "$n")" --run-dir "$OUT/$n" --workers "$WORKERS" --no-dashboard \
    --set run.max_iterations=0 --set "run.target_games=$TARGET" --set "run.min_games=$((TARGET / 2))" $(sets_of "$n") >"$OUT/$n.start.log" 2>&1 ||
    { echo "compare_recipe.sh: start of $n failed (see $OUT/$n.start.log)" >&2; exit 2; }
  date +%s >"$OUT/$n.t0"
  echo "$(date +%T) started $n in $OUT/$n"
done
sleep $((MINUTES * 60))
stop_all
echo "$(date +%T) stopped after $MINUTES minutes"

final_ckpt() { ls "$OUT/$1/checkpoints" | sed -n 's/^weights_it\([0-9]*\)\.pt$/\1/p' | sort -n | tail -1; }
declare -A FINAL
for n in "${NAMES[@]}"; do FINAL[$n]="$OUT/$n/checkpoints/weights_it$(final_ckpt "$n").pt"; done
ARENA=("$BIN/arena" --config "$ROOT/configs/baseline-11x11.json" --games "$GAMES" --openings 4 --json)
: >"$OUT/arena.jsonl"
for n in "${NAMES[@]}"; do
  echo "$(date +%T) arena: $n final (${FINAL[$n]##*/}) vs rollout:$ROLLOUTS"
  "${ARENA[@]}" --player-a "net:${FINAL[$n]}:100" --player-b "rollout:$ROLLOUTS" |
    $PY -c 'import json,sys; d=json.load(sys.stdin); d["a"]=sys.argv[1]; d["b"]=sys.argv[2]; print(json.dumps(d))' "$n" "rollout:$ROLLOUTS" >>"$OUT/arena.jsonl"
  if [ "$n" != baseline ]; then
    echo "$(date +%T) arena: $n final vs baseline final"
    "${ARENA[@]}" --player-a "net:${FINAL[$n]}:100" --player-b "net:${FINAL[baseline]}:100" |
      $PY -c 'import json,sys; d=json.load(sys.stdin); d["a"]=sys.argv[1]; d["b"]=sys.argv[2]; print(json.dumps(d))' "$n" baseline >>"$OUT/arena.jsonl"
  fi
done

$PY - "$OUT" "${NAMES[@]}" <<'PY'
import json, os, sys
out, names = sys.argv[1], sys.argv[2:]
summary = {"runs": {}, "arena": [json.loads(l) for l in open(os.path.join(out, "arena.jsonl")) if l.strip()]}
for n in names:
    run = os.path.join(out, n)
    t0 = float(open(os.path.join(out, n + ".t0")).read())
    gens = {}
    for l in open(os.path.join(run, "generations.jsonl")):
        try:
            r = json.loads(l)
            gens[r["iteration"]] = r
        except ValueError:
            pass
    curve = []
    try:
        for l in open(os.path.join(run, "ratings.jsonl")):
            r = json.loads(l)
            if not r.get("complete") or not r.get("player", "").startswith("checkpoint:"):
                continue
            g = gens.get(r["iteration"])
            if g is None:
                continue
            curve.append({"iteration": r["iteration"], "minutes": round((g["end"] - t0) / 60, 2),
                          "elo": r["elo"], "elo_low": r["elo_low"], "elo_high": r["elo_high"]})
    except OSError:
        pass
    summary["runs"][n] = {"iterations": len(gens), "games": sum(g.get("games_used", 0) for g in gens.values()),
                          "curve": curve}
    print("== %s: %d iterations, %d games; Elo vs its anchor (minutes, Elo [interval]):" %
          (n, len(gens), summary["runs"][n]["games"]))
    for c in curve:
        print("   %6.1f  %+6.0f  [%+.0f, %+.0f]  it%d" % (c["minutes"], c["elo"], c["elo_low"], c["elo_high"], c["iteration"]))
print("== final nets under one search (baseline config, 100 simulations, solver off):")
for a in summary["arena"]:
    print("   %-14s vs %-14s  W/D/L %s/%s/%s  score %.2f  Elo %+.0f [%+.0f, %+.0f]" %
          (a["a"], a["b"], a.get("wins"), a.get("draws"), a.get("losses"), a.get("score", float("nan")),
           a.get("elo", float("nan")), a.get("elo_low", float("nan")), a.get("elo_high", float("nan"))))
json.dump(summary, open(os.path.join(out, "summary.json"), "w"), indent=1)
PY
