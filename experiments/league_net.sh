#!/usr/bin/env bash
# One league's net (docs/engine.md "Nets for every league"): a conv-heads
# net of RULE for SIZE x SIZE boards, started from a trained net's tower
# (build/bin/derive_net) and trained by the main job (launch/start.sh with
# configs/cpu.json) for MINUTES minutes, without the evaluator or dashboard.
# The run's final checkpoint is copied to OUT_NET when given.
#
#   experiments/league_net.sh --rule RULE --size N --from NET --minutes M --run-dir DIR
#                             [--sizes LIST] [--workers W] [--out-net PATH] [--set key=value]...
#
# --sizes: selfplay.board_sizes (e.g. 20:3,15:1; default: N only).
# Binaries: build/bin, or GOMOKU_BIN (a copy, so that rebuilding during the run
# changes nothing).  Prints the run's last generations line and the net written.
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2; }

root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${GOMOKU_BIN:-$root/build/bin}"
rule="" size="" from="" minutes="" run_dir="" sizes="" workers="" out_net=""
sets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --rule) rule="$2"; shift ;;
    --size) size="$2"; shift ;;
    --from) from="$2"; shift ;;
    --minutes) minutes="$2"; shift ;;
    --run-dir) run_dir="$2"; shift ;;
    --sizes) sizes="$2"; shift ;;
    --workers) workers="$2"; shift ;;
    --out-net) out_net="$2"; shift ;;
    --set) sets+=(--set "$2"); shift ;;
    -h|--help) usage ;;
    *) echo "$0: unknown argument '$1'" >&2; usage ;;
  esac
  shift
done
[ -n "$rule" ] && [ -n "$size" ] && [ -n "$from" ] && [ -n "$minutes" ] && [ -n "$run_dir" ] || usage
case "$minutes" in ''|*[!0-9]*) echo "$0: --minutes must be a whole number, got '$minutes'" >&2; exit 2 ;; esac
[ -f "$from" ] || { echo "$0: --from '$from' does not exist" >&2; exit 2; }
[ -e "$run_dir" ] && { echo "$0: run dir '$run_dir' exists; pick a new one" >&2; exit 2; }

mkdir -p "$run_dir"
init="$run_dir.init.pt"
"$bin/derive_net" --from "$from" --out "$init" --rule "$rule" --heads conv --board-size "$size"

args=(--config "$root/configs/cpu.json" --run-dir "$run_dir" --no-eval --no-dashboard
      --set board.size="$size" --set board.rule="$rule" --set net.heads=conv
      --set train.init_weights="$(cd "$(dirname "$init")" && pwd)/$(basename "$init")")
[ -n "$sizes" ] && args+=(--set selfplay.board_sizes="$sizes")
[ -n "$workers" ] && args+=(--workers "$workers")
args+=("${sets[@]}")

rmdir "$run_dir"  # start.sh makes it
GOMOKU_BIN="$bin" "$root/launch/start.sh" "${args[@]}"
date +%s > "$run_dir.t0"  # minute zero (experiments/runlib.py)
trap 'GOMOKU_BIN="$bin" "$root/launch/stop.sh" --run-dir "$run_dir" || true' EXIT
sleep "$((minutes * 60))"
GOMOKU_BIN="$bin" "$root/launch/stop.sh" --run-dir "$run_dir"
trap - EXIT

tail -n 1 "$run_dir/generations.jsonl" || true
iteration="$(/usr/bin/python3 "$root/experiments/runlib.py" checkpoint-at "$run_dir" final)"
[ "$iteration" != 0 ] || { echo "$0: the run kept no checkpoint" >&2; exit 1; }
final="$run_dir/checkpoints/weights_it$iteration.pt"
echo "final checkpoint: $final"
if [ -n "$out_net" ]; then
  cp -f "$final" "$out_net.tmp"
  sync "$out_net.tmp"
  mv -f "$out_net.tmp" "$out_net"
  echo "net written: $out_net"
fi
