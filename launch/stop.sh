#!/usr/bin/env bash
# Stops every process of a run started on this machine: SIGTERM, wait, report
# and kill what is left, remove a stale socket.
#   launch/stop.sh [--run-dir DIR] [--host NAME] [--timeout S]
# --host NAME stops what `start.sh --host NAME` started (a self-play host's
# server and workers); without it, what was started without --host.
set -euo pipefail
source "$(dirname "$0")/common.sh"
RUN_DIR="" TIMEOUT=20 HOST=""
while (($#)); do
  case "$1" in
    --run-dir) RUN_DIR="$2"; shift 2 ;;
    --timeout) TIMEOUT="$2"; shift 2 ;;
    --host) HOST="$2"; shift 2 ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) die "unknown argument '$1'" ;;
  esac
done
[ -n "$RUN_DIR" ] || RUN_DIR="$(default_run_dir "$(default_config)")"
PIDS="$(run_pids_dir)"
[ -d "$PIDS" ] || { echo "stop: no pid directory in $RUN_DIR: nothing to stop"; exit 0; }
live=()
for p in "$PIDS"/*.pid; do
  [ -e "$p" ] || continue
  name="$(run_pid_name "$p")"
  if pid_alive "$p" "$(needle_of "$name")"; then
    kill -TERM "$(cat "$p")" 2>/dev/null || true
    live+=("$p")
  fi
done
echo "stop: sent SIGTERM to ${#live[@]} process(es)"
deadline=$((SECONDS + TIMEOUT))
while ((SECONDS < deadline)); do
  left=0
  for p in "${live[@]}"; do pid_alive "$p" "$(needle_of "$(run_pid_name "$p")")" && left=1; done
  ((left == 0)) && break
  sleep 0.2
done
STUCK=0
for p in "${live[@]}"; do
  name="$(run_pid_name "$p")"
  if pid_alive "$p" "$(needle_of "$name")"; then
    echo "stop: $name (pid $(cat "$p")) still alive after ${TIMEOUT}s: sending SIGKILL" >&2
    kill -KILL "$(cat "$p")" 2>/dev/null || true
    STUCK=1
  fi
done
rm -f "$PIDS"/*.pid
SOCK="$(run_socket)"
if [ -S "$SOCK" ]; then echo "stop: removing stale socket $SOCK"; rm -f "$SOCK"; fi
((STUCK)) && { echo "stop: done (some processes needed SIGKILL)"; exit 1; }
echo "stop: all processes stopped"
