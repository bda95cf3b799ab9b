#!/usr/bin/env bash
# The yardstick: a net in the engine as shipped (pbrain-gomoku-zero,
# 0.5 s a move) against each OPPONENT over the 24 even openings of 15x15
# freestyle with both colours (48 games), at most two matches at a time (one
# per core).  Each match's record (players, settings, openings, every game) is
# OUTDIR/TAG-500ms-vs-NAME.json; at the end one markdown row per match is
# printed (W/D/L, per colour, score and Elo from NET's view), as the tables of
# results/benchmarks-log.md show them.
#
#   experiments/engine_matches.sh [--bin DIR] [--games N] [--openings L] NET OUTDIR TAG OPPONENT...
#
# --openings L plays arena's random set of L stones instead (docs/ratings.md
# "Openings"): a check on openings that self-play never started from when a
# run trained on the even set (selfplay.even_opening_share).
# OPPONENT: net:PATH (that net in the same engine) or classical:N (the
# classical player at N nodes a move).  NAME: the net file's name without .pt,
# or classical-N.  DIR holds arena and pbrain-gomoku-zero (default build/bin;
# copy them aside when others rebuild build/ during the matches).  Timed
# engines against node-limited players depend on the machine's load: run them
# alone, and compare rows of one run only.
set -euo pipefail
bin=build/bin
games=48
openings=()
while [[ $# -gt 0 && $1 == --* ]]; do
  case $1 in
    --bin) bin=$2; shift 2 ;;
    --games) games=$2; shift 2 ;;
    --openings) openings=(--openings "$2"); shift 2 ;;
    *) echo "engine_matches.sh: unknown flag $1" >&2; exit 2 ;;
  esac
done
if [[ $# -lt 4 ]]; then
  echo "usage: engine_matches.sh [--bin DIR] [--games N] [--openings L] NET OUTDIR TAG OPPONENT..." >&2
  exit 2
fi
net=$1 outdir=$2 tag=$3
shift 3
[[ -f $net ]] || { echo "engine_matches.sh: no net file $net" >&2; exit 2; }
[[ -x $bin/arena && -x $bin/pbrain-gomoku-zero ]] || { echo "engine_matches.sh: no arena or pbrain-gomoku-zero in $bin" >&2; exit 2; }
mkdir -p "$outdir"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
engine="engine:$bin/pbrain-gomoku-zero --weights"
logs=$(mktemp -d)  # arena's stdout and stderr per match, kept out of OUTDIR
records=()
pids=()
for opp in "$@"; do
  case $opp in
    net:*) path=${opp#net:}; [[ -f $path ]] || { echo "engine_matches.sh: no net file $path" >&2; exit 2; }
           name=$(basename "$path" .pt); player="$engine $path" ;;
    classical:*) name=classical-${opp#classical:}; player=$opp ;;
    *) echo "engine_matches.sh: opponent '$opp' is neither net:PATH nor classical:N" >&2; exit 2 ;;
  esac
  rec="$outdir/$tag-500ms-vs-$name.json"
  records+=("$rec")
  if [[ ${#pids[@]} -ge 2 ]]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
  "$bin/arena" --player-a "$engine $net" --player-b "$player" --games "$games" "${openings[@]}" --set board.size=15 \
    --set eval.engine_turn_ms=500 --record "$rec" --json > "$logs/$name.json" 2> "$logs/$name.err" &
  pids+=($!)
done
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
[[ $status == 0 ]] || echo "engine_matches.sh: a match failed; arena's output is in $logs" >&2
/usr/bin/python3 - "${records[@]}" <<'PY'
import json, sys
for path in sys.argv[1:]:
    try:
        r = json.load(open(path))['result']
    except (OSError, ValueError, KeyError) as e:
        print('| %s | (no result: %s) |' % (path, e))
        continue
    b, w, n = r['a_as_black'], r['a_as_white'], r['games']
    elo = ('all won' if r['wins'] == n else 'all lost' if r['losses'] == n
           else '%+.0f (%+.0f .. %+.0f)' % (r['elo'], r['elo_low'], r['elo_high']))
    print('| %s | %d | %d/%d/%d | %d/%d/%d | %d/%d/%d | %.3f, %s |' % (
        r['player_b'].split()[-1] if r['player_b'].startswith('engine:') else r['player_b'], n,
        r['wins'], r['draws'], r['losses'], b['wins'], b['draws'], b['losses'],
        w['wins'], w['draws'], w['losses'], r['score'], elo))
PY
exit $status
