#!/usr/bin/env bash
# One learning run alone on the machine, then its Elo curve against a fixed ladder,
# NOT a CI test (issue 16 section 4: the 15x15 freestyle hour).
# Trains --config through launch/start.sh (server, trainer, the config's workers,
# evaluator; every checkpoint kept) for --minutes, stops it, then rates through
# tools/rate_net.sh (two arena processes, one per core; the results do not depend
# on the load, only the training does):
#   - the checkpoint at each of --points minutes (the newest one published by then)
#     against each rung of --ladder, --games games each;
#   - the final checkpoint against --final-vs over --final-games games;
#   - the checkpoint at each of --points minutes against the final net, --vs-final
#     games each over tools/arena's balanced openings (--openings 4: two nets are
#     deterministic), two matches at a time: one Elo scale with headroom (0 = the
#     final net) once a fixed rung is beaten every game; at --vs-final-sims
#     simulations (default --sims), e.g. a small budget where the net's own play
#     shows more than the search's (a run already rated keeps its other curves).
# Every match is played under the run's own config (its mcts.*: solver, FPU, ...)
# at --sims simulations without noise.  A match already in OUT/ratings.jsonl is
# not played again with --rate-only (an interrupted rating resumes).  Writes OUT/summary.json (one curve per
# rung, in tools/plot_compare.py's shape, the evaluator's own curve, the final
# match) and OUT/curve.svg; prints a table.
#
# usage: tools/learn_run.sh --config FILE [--minutes M (60)] [--out DIR (runs/learn-<config name>)]
#          [--points LIST (10,20,30,40,50,60: those <= M)] [--ladder LIST (rollout:1000,rollout:10000)]
#          [--games G (10)] [--final-vs SPEC (rollout:10000)] [--final-games F (40)] [--sims S (100)]
#          [--vs-final G (20; 0 = off)] [--vs-final-sims S (--sims)] [--set key=value]... [--rate-only]
#   --rate-only  skip training: rate the run already in OUT (OUT/t0 marks its minute 0)
#   --set        applies to the run and to every match
#   GOMOKU_BIN=DIR runs a copy of build/bin (so that rebuilding during the run changes nothing).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${GOMOKU_BIN:-$ROOT/build/bin}
export GOMOKU_BIN=$BIN
PY=/usr/bin/python3
CONFIG="" MINUTES=60 OUT="" POINTS="10,20,30,40,50,60" LADDER="rollout:1000,rollout:10000" GAMES=10
FINAL_VS=rollout:10000 FINAL_GAMES=40 SIMS=100 RATE_ONLY=0 SETS=() VS_FINAL=20 VS_FINAL_SIMS=
usage() { sed -n '2,/^[^#]/{/^#/p}' "$0"; }  # the header comment, however long
while (($#)); do
  case "$1" in
    --config) CONFIG=$2; shift 2 ;;
    --minutes) MINUTES=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --points) POINTS=$2; shift 2 ;;
    --ladder) LADDER=$2; shift 2 ;;
    --games) GAMES=$2; shift 2 ;;
    --final-vs) FINAL_VS=$2; shift 2 ;;
    --final-games) FINAL_GAMES=$2; shift 2 ;;
    --sims) SIMS=$2; shift 2 ;;
    --vs-final) VS_FINAL=$2; shift 2 ;;
    --vs-final-sims) VS_FINAL_SIMS=$2; shift 2 ;;
    --set) SETS+=(--set "$2"); shift 2 ;;
    --rate-only) RATE_ONLY=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "learn_run.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
VS_FINAL_SIMS=${VS_FINAL_SIMS:-$SIMS}
[ -n "$CONFIG" ] || { echo "learn_run.sh: --config FILE is required" >&2; exit 2; }
[ -f "$CONFIG" ] || { echo "learn_run.sh: config file '$CONFIG' not found" >&2; exit 2; }
CONFIG=$(cd "$(dirname "$CONFIG")" && pwd)/$(basename "$CONFIG")
[[ "$MINUTES" =~ ^[1-9][0-9]*$ && "$GAMES" =~ ^[1-9][0-9]*$ && "$FINAL_GAMES" =~ ^[1-9][0-9]*$ &&
   "$SIMS" =~ ^[1-9][0-9]*$ && "$VS_FINAL_SIMS" =~ ^[1-9][0-9]*$ && "$VS_FINAL" =~ ^[0-9]+$ && "$POINTS" =~ ^[0-9]+(,[0-9]+)*$ ]] ||
  { echo "learn_run.sh: --minutes, --games, --final-games, --sims and --vs-final-sims must be positive integers, --vs-final an integer, --points a list of them" >&2; exit 2; }
IFS=, read -r -a RUNGS <<<"$LADDER"
for r in "${RUNGS[@]}" "$FINAL_VS"; do
  [[ "$r" =~ ^rollout:[1-9][0-9]*$ ]] ||
    { echo "learn_run.sh: ladder rung '$r' must be rollout:N (a fixed opponent: the curve's rungs do not move)" >&2; exit 2; }
done
[ -n "$OUT" ] || OUT=$ROOT/runs/learn-$(basename "$CONFIG" .json)
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
RUN=$OUT/run
log() { echo "$(date +%T) learn_run: $*"; }

if ((!RATE_ONLY)); then
  [ -e "$RUN/metadata.json" ] && { echo "learn_run.sh: $RUN holds a run: remove it, use --out, or --rate-only" >&2; exit 2; }
  trap '"$ROOT/launch/stop.sh" --run-dir "$RUN" >/dev/null 2>&1 || true' EXIT
  "$ROOT/launch/start.sh" --config "$CONFIG" --run-dir "$RUN" --no-dashboard \
    --set run.max_iterations=0 --set train.keep_every=1 "${SETS[@]}" >"$OUT/start.log" 2>&1 ||
    { echo "learn_run.sh: start failed (see $OUT/start.log)" >&2; exit 2; }
  date +%s >"$OUT/t0"
  log "started $(basename "$CONFIG") in $RUN for $MINUTES minutes"
  end=$(($(cat "$OUT/t0") + MINUTES * 60))
  while (($(date +%s) < end)); do
    sleep 60
    [ -s "$RUN/generations.jsonl" ] || continue  # no iteration finished yet
    PYTHONPATH=$ROOT/tools $PY - "$RUN" "$(cat "$OUT/t0")" <<'PY' || true
import sys, time
import runlog
g = runlog.generations(sys.argv[1])
if g:
    r = g[max(g)]
    print("%s learn_run: %.0f min: iteration %d, %d games so far" %
          (time.strftime("%H:%M:%S"), (time.time() - float(sys.argv[2])) / 60, r["iteration"],
           sum(x.get("games_used", 0) for x in g.values())))
PY
  done
  "$ROOT/launch/stop.sh" --run-dir "$RUN" >/dev/null 2>&1 || true
  trap - EXIT
  log "stopped after $MINUTES minutes"
fi
[ -f "$OUT/t0" ] && [ -f "$RUN/generations.jsonl" ] || { echo "learn_run.sh: no run in $OUT (t0, run/generations.jsonl)" >&2; exit 2; }

# ckpt_at MINUTE: the newest kept checkpoint published within MINUTE minutes of
# minute 0 (generations.jsonl "end"); "final": the newest one.
ckpt_at() { $PY "$ROOT/tools/runlog.py" checkpoint-at "$RUN" "$(cat "$OUT/t0")" "$1"; }
FINAL=$(ckpt_at final)
((FINAL > 0)) || { echo "learn_run.sh: no trained checkpoint in $RUN" >&2; exit 2; }

# The matches, one line each: LABEL_MINUTE ITERATION OPPONENT GAMES
MATCHES=$OUT/matches.txt
: >"$MATCHES"
for m in ${POINTS//,/ }; do
  ((m <= MINUTES)) || continue
  it=$(ckpt_at "$m")
  ((it > 0)) || { log "no checkpoint by minute $m: skipped"; continue; }
  for r in "${RUNGS[@]}"; do
    g=$GAMES
    [ "$it" = "$FINAL" ] && [ "$r" = "$FINAL_VS" ] && g=$FINAL_GAMES   # the final match doubles as this point
    echo "$m $it $r $g" >>"$MATCHES"
  done
done
grep -q " $FINAL $FINAL_VS $FINAL_GAMES\$" "$MATCHES" || echo "final $FINAL $FINAL_VS $FINAL_GAMES" >>"$MATCHES"
log "$(wc -l <"$MATCHES") matches against rollout rungs (final: it$FINAL)"
RATINGS=$OUT/ratings.jsonl
((RATE_ONLY)) || : >"$RATINGS"
touch "$RATINGS"
# rated MINUTE IT VS GAMES SIMS: that match's result is already in ratings.jsonl
# (a record without "sims" was played at --sims).
rated() {
  $PY - "$RATINGS" "$SIMS" "$@" <<'PY'
import json, sys
path, default_sims, minute, it, vs, games, sims = sys.argv[1:8]
for line in open(path):
    try:
        r = json.loads(line)
    except ValueError:
        continue
    if (str(r.get("minute")) == minute and r.get("iteration") == int(it) and r.get("vs") == vs and
            r.get("games") == int(games) and int(r.get("sims", default_sims)) == int(sims)):
        sys.exit(0)
sys.exit(1)
PY
}
while read -r minute it vs games; do
  rated "$minute" "$it" "$vs" "$games" "$SIMS" && { log "minute $minute it$it vs $vs: rated already"; continue; }
  t=$(date +%s)
  "$ROOT/tools/rate_net.sh" --net "$RUN/checkpoints/weights_it$it.pt:$SIMS" --vs "$vs" --games "$games" \
      --config "$CONFIG" "${SETS[@]}" |
    $PY -c 'import json,sys; d=json.load(sys.stdin); d.update(minute=sys.argv[1], iteration=int(sys.argv[2]), sims=int(sys.argv[3])); print(json.dumps(d))' \
      "$minute" "$it" "$SIMS" >>"$RATINGS" ||
    { echo "learn_run.sh: match it$it vs $vs failed" >&2; exit 1; }
  log "minute $minute it$it vs $vs: $(tail -1 "$RATINGS" | $PY -c 'import json,sys; d=json.load(sys.stdin); print("%d/%d/%d, Elo %+.0f" % (d["wins"], d["draws"], d["losses"], d["elo"]))') ($(($(date +%s) - t)) s)"
done <"$MATCHES"

# One scale with headroom: each point's checkpoint against the final net.
if ((VS_FINAL > 0)); then
  ARENA_DIR=$OUT/arena
  mkdir -p "$ARENA_DIR"
  for m in ${POINTS//,/ }; do
    ((m <= MINUTES)) || continue
    it=$(ckpt_at "$m")
    ((it > 0 && it != FINAL)) || continue
    rated "$m" "$it" final "$VS_FINAL" "$VS_FINAL_SIMS" && continue
    a=$ARENA_DIR/$m-s$VS_FINAL_SIMS
    (OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 "$BIN/arena" --config "$CONFIG" "${SETS[@]}" --games "$VS_FINAL" \
       --openings 4 --json --player-a "net:$RUN/checkpoints/weights_it$it.pt:$VS_FINAL_SIMS" \
       --player-b "net:$RUN/checkpoints/weights_it$FINAL.pt:$VS_FINAL_SIMS" >"$a.json" 2>"$a.err" &&
     $PY -c 'import json,sys; d=json.load(open(sys.argv[1])); d.update(minute=sys.argv[2], iteration=int(sys.argv[3]), vs="final", final_iteration=int(sys.argv[4]), sims=int(sys.argv[5])); print(json.dumps(d))' \
       "$a.json" "$m" "$it" "$FINAL" "$VS_FINAL_SIMS" >>"$RATINGS" &&
     log "minute $m it$it vs the final net it$FINAL at $VS_FINAL_SIMS simulations: $($PY -c 'import json,sys; d=json.load(open(sys.argv[1])); print("%d/%d/%d, Elo %+.0f" % (d["wins"], d["draws"], d["losses"], d["elo"]))' "$a.json")" ||
     echo "learn_run.sh: match it$it vs the final net failed: $(tail -1 "$a.err")" >&2) &
    (($(jobs -rp | wc -l) >= 2)) && wait -n  # two at a time: one per core
  done
  wait
fi

PYTHONPATH=$ROOT/tools $PY - "$OUT" "$MINUTES" "$FINAL_VS" "$CONFIG" "${SETS[*]:-}" "$SIMS" <<'PY'
import json, os, sys
import runlog
out, minutes, final_vs, config, sets = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
sims = int(sys.argv[6])
sims_of = lambda r: int(r.get("sims", sims))  # a record without "sims" was played at --sims
run = os.path.join(out, "run")
t0 = float(open(os.path.join(out, "t0")).read())
gens = runlog.generations(run)
at = lambda it: round((gens[it]["end"] - t0) / 60, 2) if it in gens else None
ratings = [json.loads(l) for l in open(os.path.join(out, "ratings.jsonl")) if l.strip()]
curves = {}
for r in ratings:
    if r["minute"] == "final":
        continue
    name = "vs the final net (it%d)" % r["final_iteration"] if r["vs"] == "final" else "vs " + r["vs"]
    if sims_of(r) != sims:
        name += " at %d simulations" % sims_of(r)
    curves.setdefault(name, {"one_scale_curve": []})["one_scale_curve"].append(
        {"minutes": float(r["minute"]), "iteration": r["iteration"], "at_minutes": at(r["iteration"]),
         "wins": r["wins"], "draws": r["draws"], "losses": r["losses"], "score": r["score"],
         "elo": r["elo"], "elo_low": r["elo_low"], "elo_high": r["elo_high"]})
if curves:  # the final net itself on its own scale: 0 by definition
    for name, c in curves.items():
        if name.startswith("vs the final net"):
            last = max(gens)
            c["one_scale_curve"].append({"minutes": minutes, "iteration": last, "at_minutes": at(last), "reference": True,
                                         "wins": 0, "draws": 0, "losses": 0, "score": 0.5,
                                         "elo": 0.0, "elo_low": 0.0, "elo_high": 0.0})
for c in curves.values():
    c["one_scale_curve"].sort(key=lambda p: p["minutes"])
final = [r for r in ratings if r["vs"] == final_vs and sims_of(r) == sims and r["iteration"] == max(gens)] or \
        [r for r in ratings if r["vs"] == final_vs and sims_of(r) == sims][-1:]
own = runlog.own_curve(run, t0)
games = sum(g.get("games_used", 0) for g in gens.values())
late = sum(g.get("late_games_used", 0) for g in gens.values())
last = gens[max(gens)] if gens else {}
summary = {"config": config, "sets": sets, "minutes": minutes, "iterations": len(gens), "games": games,
           "late_games_used": late,
           "never_trained_share": last.get("never_trained_share"), "runs": curves, "final": final[0] if final else None, "own_curve": own}
json.dump(summary, open(os.path.join(out, "summary.json"), "w"), indent=1)
print("== %s%s: %d iterations, %d games in %.0f minutes (late games used %d, never-trained share %s)" %
      (os.path.basename(config), " " + sets if sets else "", len(gens), games, minutes, late, last.get("never_trained_share")))
print("== the evaluator's own curve while training (its ladder, its anchor):")
for c in own:
    print("   %6.1f min  it%-4d Elo %+6.0f [%+.0f, %+.0f]  %s" % (c["minutes"], c["iteration"], c["elo"], c["elo_low"], c["elo_high"],
          ", ".join("%s %d/%d/%d" % (o["name"], o["wins"], o["draws"], o["losses"]) for o in c["opponents"])))
for name, c in curves.items():
    print("== %s (minute: checkpoint, W/D/L, Elo relative to the opponent [95%%]):" % name)
    for p in c["one_scale_curve"]:
        if p.get("reference"):
            print("   %4.0f  it%-4d (the reference: 0 by definition)" % (p["minutes"], p["iteration"]))
            continue
        print("   %4.0f  it%-4d (published at %5.1f min)  %2d/%d/%-2d  Elo %+5.0f [%+.0f, %+.0f]" %
              (p["minutes"], p["iteration"], p["at_minutes"] or 0, p["wins"], p["draws"], p["losses"], p["elo"], p["elo_low"], p["elo_high"]))
if final:
    f = final[0]
    print("== final net it%d vs %s over %d games: %d/%d/%d, score %.2f, Elo %+.0f [%+.0f, %+.0f]" %
          (f["iteration"], f["vs"], f["games"], f["wins"], f["draws"], f["losses"], f["score"], f["elo"], f["elo_low"], f["elo_high"]))
PY
$PY "$ROOT/tools/plot_compare.py" "$OUT/summary.json" "$OUT/curve.svg" \
  --title "$(basename "$CONFIG" .json): Elo relative to each opponent" && log "figure: $OUT/curve.svg"
