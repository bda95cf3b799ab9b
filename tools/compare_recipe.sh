#!/usr/bin/env bash
# Baseline recipe vs the new recipe (issue 16 section 4), NOT a CI test.
# Trains configs/baseline-11x11.json (the 2017 recipe) and configs/recipe-11x11.json
# (the new recipe; with --solver also a run of it plus mcts.solver, or pick runs with
# --runs) through launch/start.sh, each with its evaluator rating every checkpoint,
# for --minutes each: AT THE SAME TIME by default (every run sees the same load and
# gets the same share of the machine), or with --sequential one after the other,
# each alone on the machine.
# Every checkpoint is kept (train.keep_every=1) so that any minute can be rated.
# Then, under one and the same search (the baseline config: 100 simulations, solver
# off, no noise, --openings 4), through tools/arena, two matches at a time:
#   - each run's final net against rollout:R;
#   - each run's checkpoint at each of --points minutes (the newest one published by
#     then) against the reference run's final net (--reference, the baseline unless
#     told): the curves of all runs on one Elo scale (0 = the reference's final net).
# Prints each run's own Elo curve (its evaluator, its anchor, its search settings),
# the one-scale curves and the finals; writes OUT/summary.json.
#
# GOMOKU_BIN=DIR runs a copy of build/bin (so that rebuilding during the run changes nothing).
# usage: tools/compare_recipe.sh [--minutes M (25)] [--workers W (7 per run at the same time,
#          the config's when --sequential)] [--games G (20)] [--rollouts R (1000)] [--solver]
#          [--runs LIST (baseline,recipe[,recipe-solver])] [--reference NAME (baseline)] [--sequential]
#          [--points LIST (5,10,13,20,30,40: those <= M)] [--rate-only] [--out DIR (runs/compare-11x11)]
#   --rate-only  skip training: rate the runs already in OUT (their OUT/NAME.t0 marks minute 0)
#   --reference  the run whose final net is 0 on the one scale; one of --runs (e.g. the solver
#                ablation: --runs recipe,recipe-solver --reference recipe-solver)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${GOMOKU_BIN:-$ROOT/build/bin}
export GOMOKU_BIN=$BIN
PY=/usr/bin/python3
MINUTES=25 WORKERS="" GAMES=20 ROLLOUTS=1000 SOLVER=0 OUT=$ROOT/runs/compare-11x11 RUNS="" SEQUENTIAL=0
POINTS="5,10,13,20,30,40" RATE_ONLY=0 REF=baseline
while (($#)); do
  case "$1" in
    --minutes) MINUTES=$2; shift 2 ;;
    --workers) WORKERS=$2; shift 2 ;;
    --games) GAMES=$2; shift 2 ;;
    --rollouts) ROLLOUTS=$2; shift 2 ;;
    --solver) SOLVER=1; shift ;;
    --runs) RUNS=$2; shift 2 ;;
    --sequential) SEQUENTIAL=1; shift ;;
    --reference) REF=$2; shift 2 ;;
    --points) POINTS=$2; shift 2 ;;
    --rate-only) RATE_ONLY=1; shift ;;
    --out) OUT=$2; shift 2 ;;
    -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
    *) echo "compare_recipe.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
if [ -n "$RUNS" ]; then IFS=, read -r -a NAMES <<<"$RUNS"
else NAMES=(baseline recipe); ((SOLVER)) && NAMES+=(recipe-solver); fi
for n in "${NAMES[@]}"; do
  case "$n" in baseline|recipe|recipe-solver) ;; *) echo "compare_recipe.sh: --runs: unknown run '$n' (baseline, recipe, recipe-solver)" >&2; exit 2 ;; esac
done
[[ " ${NAMES[*]} " == *" $REF "* ]] ||
  { echo "compare_recipe.sh: --runs must include the reference run '$REF' (--reference; the common scale's 0)" >&2; exit 2; }
[[ "$MINUTES" =~ ^[0-9]+$ && "$GAMES" =~ ^[0-9]+$ && "$ROLLOUTS" =~ ^[0-9]+$ && "$POINTS" =~ ^[0-9]+(,[0-9]+)*$ ]] ||
  { echo "compare_recipe.sh: --minutes, --games, --rollouts and --points must be integers" >&2; exit 2; }
[ -z "$WORKERS" ] || [[ "$WORKERS" =~ ^[1-9][0-9]*$ ]] || { echo "compare_recipe.sh: --workers must be a positive integer" >&2; exit 2; }
config_of() { case "$1" in baseline) echo "$ROOT/configs/baseline-11x11.json" ;; *) echo "$ROOT/configs/recipe-11x11.json" ;; esac; }
sets_of() { [ "$1" = recipe-solver ] && echo "--set mcts.solver=true" || true; }
cfg_get() { $PY -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d[sys.argv[2]][sys.argv[3]])' "$ROOT/configs/baseline-11x11.json" "$1" "$2"; }
mkdir -p "$OUT"

start_run() {  # NAME: start one run; its minute 0 is when start.sh has verified it
  local n=$1 extra=()
  [ -e "$OUT/$n/metadata.json" ] && { echo "compare_recipe.sh: $OUT/$n exists: remove it or use --out" >&2; exit 2; }
  if [ -n "$WORKERS" ]; then
    # Every worker's whole quota makes an iteration.
    local target=$((WORKERS * $(cfg_get run worker_games_per_worker)))
    extra=(--workers "$WORKERS" --set "run.target_games=$target" --set "run.min_games=$((target / 2))")
  fi
  # shellcheck disable=SC2046
  "$ROOT/launch/start.sh" --config "$(config_of "$n")" --run-dir "$OUT/$n" --no-dashboard \
    --set run.max_iterations=0 --set train.keep_every=1 "${extra[@]}" $(sets_of "$n") >"$OUT/$n.start.log" 2>&1 ||
    { echo "compare_recipe.sh: start of $n failed (see $OUT/$n.start.log)" >&2; exit 2; }
  date +%s >"$OUT/$n.t0"
  echo "$(date +%T) started $n in $OUT/$n"
}
stop_run() { "$ROOT/launch/stop.sh" --run-dir "$OUT/$1" >/dev/null 2>&1 || true; }
stop_all() { for n in "${NAMES[@]}"; do stop_run "$n"; done; }

if ((!RATE_ONLY)); then
  trap stop_all EXIT
  if ((SEQUENTIAL)); then
    for n in "${NAMES[@]}"; do
      start_run "$n"; sleep $((MINUTES * 60)); stop_run "$n"
      echo "$(date +%T) stopped $n after $MINUTES minutes"
    done
  else
    [ -n "$WORKERS" ] || WORKERS=7
    for n in "${NAMES[@]}"; do start_run "$n"; done
    sleep $((MINUTES * 60)); stop_all
    echo "$(date +%T) stopped after $MINUTES minutes"
  fi
  trap - EXIT
fi

# ckpt_at NAME MINUTE: the newest checkpoint published within MINUTE minutes of
# the run's minute 0 (generations.jsonl "end"); MINUTE "final" = the newest one.
ckpt_at() { $PY "$ROOT/tools/runlog.py" checkpoint-at "$OUT/$1" "$(cat "$OUT/$1.t0")" "$2"; }
ckpt_path() { echo "$OUT/$1/checkpoints/weights_it$2.pt"; }
REF_FINAL=$(ckpt_at "$REF" final)

# The matches, one line each: A_RUN A_MINUTE A_ITERATION B_SPEC B_LABEL
MATCHES=$OUT/matches.txt
: >"$MATCHES"
for n in "${NAMES[@]}"; do
  echo "$n final $(ckpt_at "$n" final) rollout:$ROLLOUTS rollout:$ROLLOUTS" >>"$MATCHES"
  for m in ${POINTS//,/ }; do
    ((m <= MINUTES)) || continue
    it=$(ckpt_at "$n" "$m")
    [ "$n" = "$REF" ] && [ "$it" = "$REF_FINAL" ] && continue  # itself: 0 by definition
    echo "$n $m $it net:$(ckpt_path "$REF" "$REF_FINAL"):100 $REF-final" >>"$MATCHES"
  done
done
echo "$(date +%T) $(wc -l <"$MATCHES") arena matches of $GAMES games, two at a time ($REF final: it$REF_FINAL)"
ARENA_DIR=$OUT/arena
rm -rf "$ARENA_DIR"; mkdir -p "$ARENA_DIR"
k=0
while read -r run minute it bspec blabel; do
  k=$((k + 1))
  (OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 "$BIN/arena" --config "$ROOT/configs/baseline-11x11.json" \
     --games "$GAMES" --openings 4 --json --player-a "net:$(ckpt_path "$run" "$it"):100" --player-b "$bspec" |
     $PY -c 'import json,sys; d=json.load(sys.stdin); d.update(run=sys.argv[1], minute=sys.argv[2], iteration=int(sys.argv[3]), b=sys.argv[4]); print(json.dumps(d))' \
       "$run" "$minute" "$it" "$blabel" >"$ARENA_DIR/$k.json" 2>"$ARENA_DIR/$k.err" ||
     echo "compare_recipe.sh: arena match $k ($run $minute it$it vs $blabel) failed: $(tail -1 "$ARENA_DIR/$k.err")" >&2) &
  # Two at a time: one per core.
  (($(jobs -rp | wc -l) >= 2)) && wait -n
done <"$MATCHES"
wait
echo "$(date +%T) arena done"

PYTHONPATH=$ROOT/tools $PY - "$OUT" "$MINUTES" "$REF" "${NAMES[@]}" <<'PY'
import glob, json, os, sys
import runlog
out, minutes, ref, names = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4:]
arena = []
for p in sorted(glob.glob(os.path.join(out, "arena", "*.json")), key=lambda p: int(os.path.basename(p)[:-5])):
    try:
        arena.append(json.load(open(p)))
    except ValueError:
        pass
summary = {"minutes": minutes, "reference": ref, "runs": {}, "arena": arena}
for n in names:
    run = os.path.join(out, n)
    t0 = float(open(os.path.join(out, n + ".t0")).read())
    gens = runlog.generations(run)
    own = runlog.own_curve(run, t0)
    # One scale: Elo against the reference run's final net, under the baseline's search.
    scale = [{"minutes": float(a["minute"]), "iteration": a["iteration"],
              "at_minutes": round((gens[a["iteration"]]["end"] - t0) / 60, 2) if a["iteration"] in gens else 0.0,
              "wins": a["wins"], "draws": a["draws"], "losses": a["losses"], "score": a["score"],
              "elo": a["elo"], "elo_low": a["elo_low"], "elo_high": a["elo_high"]}
             for a in arena if a["run"] == n and a["b"] == ref + "-final"]
    if n == ref:
        last = max(gens) if gens else 0
        scale.append({"minutes": minutes, "iteration": last,
                      "at_minutes": round((gens[last]["end"] - t0) / 60, 2) if gens else 0.0,
                      "reference": True, "elo": 0.0, "elo_low": 0.0, "elo_high": 0.0})
    scale.sort(key=lambda c: c["minutes"])
    summary["runs"][n] = {"iterations": len(gens), "games": sum(g.get("games_used", 0) for g in gens.values()),
                          "own_curve": own, "one_scale_curve": scale}
    print("== %s: %d iterations, %d games; Elo vs its own anchor (minutes, Elo [interval]):" %
          (n, len(gens), summary["runs"][n]["games"]))
    for c in own:
        print("   %6.1f  %+6.0f  [%+.0f, %+.0f]  it%d" % (c["minutes"], c["elo"], c["elo_low"], c["elo_high"], c["iteration"]))
    print("   one scale (Elo vs %s's final net, baseline search):" % ref)
    for c in scale:
        if c.get("reference"):
            print("   %6.1f  %+6.0f  it%d (the reference)" % (c["minutes"], 0, c["iteration"]))
        else:
            print("   %6.1f  %+6.0f  [%+.0f, %+.0f]  it%d (published at %.1f min)  W/D/L %d/%d/%d" %
                  (c["minutes"], c["elo"], c["elo_low"], c["elo_high"], c["iteration"], c["at_minutes"],
                   c["wins"], c["draws"], c["losses"]))
print("== finals vs rollout (baseline search, 100 simulations, solver off):")
for a in arena:
    if a["b"].startswith("rollout:"):
        print("   %-14s it%-4d vs %-14s  W/D/L %d/%d/%d  score %.2f  Elo %+.0f [%+.0f, %+.0f]" %
              (a["run"], a["iteration"], a["b"], a["wins"], a["draws"], a["losses"], a["score"],
               a["elo"], a["elo_low"], a["elo_high"]))
json.dump(summary, open(os.path.join(out, "summary.json"), "w"), indent=1)
PY
