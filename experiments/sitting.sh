#!/usr/bin/env bash
# One sitting of a training line that outlives a session: the main job
# (launch/start.sh) started from the line's newest committed checkpoint, run for
# MINUTES, stopped, and its final checkpoint written back into the line's
# folder, which is committed, so the next sitting (on any machine, which keeps
# no ignored files) goes on from it.
#
#   experiments/sitting.sh --line NAME --minutes M --run-dir DIR [--workers W] [--set key=value]...
#   experiments/sitting.sh --line NAME --finish DIR     stop a sitting's run started earlier, record it
#   experiments/sitting.sh --line NAME --status         the line's sittings so far
#
# The line: experiments/sittings/NAME/line.json = {"config": FILE, "start_net": NET,
# "sets": ["key=value", ...]}.  Sitting K+1 starts from sitting-K.pt (the first from
# start_net) with the line's sets and then the command's --set (a later --set of the
# same key wins, e.g. a lower learning rate).  Each sitting appends one line to
# sittings.jsonl: {"sitting", "date", "commit", "from", "to", "run_dir",
# "minutes", "iterations", "games", "sets"}.  What a sitting does not keep: the
# replay window and the optimiser's state (a new sitting refills its window from
# its own games).  Binaries: build/bin, or a copy in GOMOKU_BIN.
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2; }

root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${GOMOKU_BIN:-$root/build/bin}"
line="" minutes="" run_dir="" workers="" finish="" status=0
sets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --line) line="$2"; shift ;;
    --minutes) minutes="$2"; shift ;;
    --run-dir) run_dir="$2"; shift ;;
    --workers) workers="$2"; shift ;;
    --finish) finish="$2"; shift ;;
    --status) status=1 ;;
    --set) sets+=("$2"); shift ;;
    -h|--help) usage ;;
    *) echo "$0: unknown argument '$1'" >&2; usage ;;
  esac
  shift
done
[ -n "$line" ] || usage
dir="$root/experiments/sittings/$line"
[ -f "$dir/line.json" ] || { echo "$0: no line '$line': $dir/line.json does not exist" >&2; exit 2; }
py=/usr/bin/python3

if [ "$status" = 1 ]; then
  [ -f "$dir/sittings.jsonl" ] && cat "$dir/sittings.jsonl" || echo "line $line: no sitting yet"
  exit 0
fi

# The checkpoint the next sitting starts from: the newest sitting-K.pt, else start_net.
last_k="$(ls "$dir" | sed -n 's/^sitting-\([0-9]*\)\.pt$/\1/p' | sort -n | tail -1)"
if [ -n "$last_k" ]; then from="experiments/sittings/$line/sitting-$last_k.pt"; else
  from="$($py -c 'import json,sys; print(json.load(open(sys.argv[1]))["start_net"])' "$dir/line.json")"
fi
next_k=$(( ${last_k:-0} + 1 ))

record() {  # record RUN_DIR MINUTES SETS...: copy the final checkpoint, append the sitting's line
  local rd="$1" mins="$2"; shift 2
  $py - "$rd" "$dir" "$next_k" "$from" "$mins" "$(git -C "$root" rev-parse --short HEAD)" "$@" <<'PY'
import glob, json, os, re, shutil, sys, time
rd, d, k, frm, mins, commit = sys.argv[1:7]
sets = sys.argv[7:]
cks = glob.glob(os.path.join(rd, "checkpoints", "weights_it*.pt"))
if not cks:
    sys.exit("sitting: %s has no checkpoint; nothing recorded" % rd)
last = max(cks, key=lambda p: int(re.search(r"weights_it(\d+)\.pt$", p).group(1)))
it = int(re.search(r"weights_it(\d+)\.pt$", last).group(1))
gens = [json.loads(l) for l in open(os.path.join(rd, "generations.jsonl")) if l.strip()]
games = sum(g.get("games_used", 0) for g in gens)
to = os.path.join(d, "sitting-%s.pt" % k)
tmp = to + ".tmp"
shutil.copyfile(last, tmp)
with open(tmp, "rb") as f:
    os.fsync(f.fileno())
os.replace(tmp, to)
rel = os.path.relpath(to, os.path.join(d, "..", "..", ".."))
entry = {"sitting": int(k), "date": time.strftime("%Y-%m-%d", time.gmtime()), "commit": commit, "from": frm,
         "to": rel, "run_dir": os.path.basename(os.path.normpath(rd)), "minutes": float(mins),
         "iterations": it, "games": games, "sets": sets}
with open(os.path.join(d, "sittings.jsonl"), "a") as f:
    f.write(json.dumps(entry) + "\n")
    f.flush()
    os.fsync(f.fileno())
print("sitting %s: %s (iteration %d, %d games) -> %s" % (k, last, it, games, rel))
PY
}

line_sets() { $py -c 'import json,sys; [print(s) for s in json.load(open(sys.argv[1])).get("sets", [])]' "$dir/line.json"; }

if [ -n "$finish" ]; then
  [ -d "$finish" ] || { echo "$0: --finish '$finish' is not a run dir" >&2; exit 2; }
  t0="$(cat "$finish.t0" 2>/dev/null || $py "$root/experiments/runlib.py" minute-zero "$finish")"
  GOMOKU_BIN="$bin" "$root/launch/stop.sh" --run-dir "$finish" || true
  mins=$(( ($(date +%s) - ${t0%.*}) / 60 ))
  mapfile -t all < <(line_sets)
  record "$finish" "$mins" "${all[@]}" "${sets[@]}"
  exit 0
fi

[ -n "$minutes" ] && [ -n "$run_dir" ] || usage
case "$minutes" in ''|*[!0-9]*) echo "$0: --minutes must be a whole number, got '$minutes'" >&2; exit 2 ;; esac
[ -e "$run_dir" ] && { echo "$0: run dir '$run_dir' exists; pick a new one" >&2; exit 2; }
config="$($py -c 'import json,sys; print(json.load(open(sys.argv[1]))["config"])' "$dir/line.json")"
mapfile -t all < <(line_sets)
all+=("${sets[@]}")
args=(--config "$root/$config" --run-dir "$run_dir" --no-eval --no-dashboard --set "train.init_weights=$root/$from")
for s in "${all[@]}"; do args+=(--set "$s"); done
[ -n "$workers" ] && args+=(--workers "$workers")
GOMOKU_BIN="$bin" "$root/launch/start.sh" "${args[@]}"
date +%s > "$run_dir.t0"
trap 'GOMOKU_BIN="$bin" "$root/launch/stop.sh" --run-dir "$run_dir" || true' EXIT
sleep "$((minutes * 60))"
GOMOKU_BIN="$bin" "$root/launch/stop.sh" --run-dir "$run_dir"
trap - EXIT
record "$run_dir" "$minutes" "${all[@]}"
