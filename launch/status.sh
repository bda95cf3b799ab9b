#!/usr/bin/env bash
# Status view of a run: launch/status.sh [--run-dir DIR] [--json] [--last N]
set -euo pipefail
source "$(dirname "$0")/common.sh"
RUN_DIR="" ARGS=()
while (($#)); do
  case "$1" in
    --run-dir) RUN_DIR="$2"; shift 2 ;;
    *) ARGS+=("$1"); shift ;;
  esac
done
[ -n "$RUN_DIR" ] || RUN_DIR="$(default_run_dir "$(default_config)")"
exec "$BIN/gz_status" --run-dir "$RUN_DIR" "${ARGS[@]}"
