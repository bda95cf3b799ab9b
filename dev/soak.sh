#!/usr/bin/env bash
# Soak (reliability checklist 17; docs/testing.md): a whole run through
# launch/start.sh for N trainer iterations with a tiny network, sampling the
# resident memory (VmRSS) of the server, the trainer and every worker, and
# the GPU's used memory where nvidia-smi answers (column gpu_memory).
#
#   dev/soak.sh [--iterations N] [--config FILE] [--run-dir DIR] [--interval S] [--set key=value]...
#
# Defaults: 200 iterations of configs/tiny.json (7x7, 8x1 net) in a fresh
# temporary run dir, a sample every 5 s into <run>/soak_rss.csv.  Warm-up ends
# at iteration max(2, N/10); the report compares each process's RSS then with
# its RSS at the end.  Exit status 1 if any process grew by more than 5%, died,
# or the run did not reach N iterations; the run is stopped either way.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
N=200 CONFIG="$ROOT/configs/tiny.json" RUN_DIR="" INTERVAL=5 SETS=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --iterations) N="$2"; shift 2 ;;
    --config) CONFIG="$2"; shift 2 ;;
    --run-dir) RUN_DIR="$2"; shift 2 ;;
    --interval) INTERVAL="$2"; shift 2 ;;
    --set) SETS+=(--set "$2"); shift 2 ;;
    *) sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 2 ;;
  esac
done
[[ -n "$RUN_DIR" ]] || RUN_DIR="$(mktemp -d /tmp/gz-soak.XXXXXX)"
source "$ROOT/launch/common.sh"
HOST=""  # the run's names: common.sh's run_* on RUN_DIR, one machine
WARM=$(( N / 10 > 2 ? N / 10 : 2 ))
"$ROOT/launch/start.sh" --config "$CONFIG" --run-dir "$RUN_DIR" --set run.max_iterations="$N" "${SETS[@]}" ||
  { echo "soak: start.sh failed"; "$ROOT/launch/stop.sh" --run-dir "$RUN_DIR"; exit 1; }
PIDS="$(run_pids_dir)" CSV="$RUN_DIR/soak_rss.csv"
rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }
# GPU memory (the device's used memory, in kB like RSS) is a column when
# nvidia-smi answers; the same 5% gate applies to it.
gpu_kb() { nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits 2>/dev/null | head -1 |
           awk '{printf "%d", $1 * 1024}'; }
names=()
for p in "$PIDS"/*.pid; do names+=("$(run_pid_name "$p")"); done
[[ -n "$(gpu_kb)" ]] && names+=(gpu_memory)
echo "seconds,iteration,${names[*]}" | tr ' ' ',' >"$CSV"
declare -A warm_rss last_rss
start=$(date +%s) status=0 it=0
trainer_pid="$(cat "$(run_pid_file trainer)")"
while kill -0 "$trainer_pid" 2>/dev/null; do
  it=$(cat "$(run_generations)" 2>/dev/null | wc -l)
  row="$(( $(date +%s) - start )),$it"
  for n in "${names[@]}"; do
    if [[ "$n" == gpu_memory ]]; then kb=$(gpu_kb); kb=${kb:-0}; else kb=$(rss_kb "$(cat "$(run_pid_file "$n")")"); fi
    row+=",$kb"
    [[ "$kb" -gt 0 ]] && last_rss[$n]=$kb
    [[ "$it" -ge "$WARM" && -z "${warm_rss[$n]:-}" && "$kb" -gt 0 ]] && warm_rss[$n]=$kb
  done
  echo "$row" >>"$CSV"
  sleep "$INTERVAL"
done
it=$(cat "$(run_generations)" 2>/dev/null | wc -l)
echo "soak: $it of $N iterations in $(( $(date +%s) - start )) s (samples: $CSV)"
[[ "$it" -ge "$N" ]] || { echo "soak: the trainer stopped early (see $RUN_DIR/logs)"; status=1; }
for n in "${names[@]}"; do
  w="${warm_rss[$n]:-0}" l="${last_rss[$n]:-0}"
  if [[ "$w" -eq 0 ]]; then echo "  $n: no sample after warm-up"; status=1; continue; fi
  if [[ "$n" != trainer && "$n" != gpu_memory ]] && ! kill -0 "$(cat "$(run_pid_file "$n")")" 2>/dev/null; then
    echo "  $n: died during the soak"; status=1
  fi
  pct=$(awk -v w="$w" -v l="$l" 'BEGIN {printf "%.1f", (l - w) * 100.0 / w}')
  what=RSS; [[ "$n" == gpu_memory ]] && what="used"
  echo "  $n: $what $((w / 1024)) MiB after iteration $WARM -> $((l / 1024)) MiB at the end ($pct%)"
  awk -v p="$pct" 'BEGIN {exit !(p > 5.0)}' && { echo "  $n grew by more than 5%"; status=1; }
done
"$ROOT/launch/stop.sh" --run-dir "$RUN_DIR" >/dev/null
exit "$status"
