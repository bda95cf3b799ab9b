#!/usr/bin/env bash
# Brings up a whole run: inference server, trainer, then every worker, and
# proves it is healthy.  See docs/operations.md.
#
#   launch/start.sh [--config FILE] [--workers N] [--run-dir DIR] [--set key=value]...
#
# Default config: configs/gpu.json when LibTorch sees a CUDA device, else
# configs/cpu.json.  Default run dir: runs/<config name>.
set -euo pipefail
source "$(dirname "$0")/common.sh"

CONFIG="" WORKERS="" RUN_DIR="" SETS=() VERIFY_TIMEOUT="${GOMOKU_VERIFY_TIMEOUT:-60}"
while (($#)); do
  case "$1" in
    --config) CONFIG="$2"; shift 2 ;;
    --workers) WORKERS="$2"; shift 2 ;;
    --run-dir) RUN_DIR="$2"; shift 2 ;;
    --set) SETS+=(--set "$2"); shift 2 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
for b in infer_server infer_ctl trainer worker gz_status; do
  [ -x "$BIN/$b" ] || die "$BIN/$b not built: run launch/setup.sh first"
done

if [ -z "$CONFIG" ]; then
  read -r DEV WHY < <("$BIN/gz_status" --device)
  if [ "$DEV" = cuda ]; then CONFIG="$ROOT/configs/gpu.json"; else CONFIG="$ROOT/configs/cpu.json"; fi
  echo "config: $CONFIG (chosen because: $WHY)"
else
  echo "config: $CONFIG (from --config)"
fi
[ -f "$CONFIG" ] || die "config file '$CONFIG' not found"
[ -n "$RUN_DIR" ] || RUN_DIR="$(default_run_dir "$CONFIG")"
mkdir -p "$RUN_DIR"
RUN_DIR="$(cd "$RUN_DIR" && pwd)"
SETS+=(--set "run.dir=$RUN_DIR")
[ -n "$WORKERS" ] && SETS+=(--set "run.worker_count=$WORKERS")
LOGS="$RUN_DIR/logs" PIDS="$RUN_DIR/pids"
mkdir -p "$LOGS" "$PIDS"

# Refuse a second copy of the same run.
for p in "$PIDS"/*.pid; do
  [ -e "$p" ] || continue
  name="$(basename "$p" .pid)"
  needle="worker"; [ "$name" = server ] && needle="infer_server"; [ "$name" = trainer ] && needle="trainer"
  if pid_alive "$p" "$needle"; then die "run $RUN_DIR is already running ($name pid $(cat "$p")); use launch/stop.sh --run-dir $RUN_DIR"; fi
done
rm -f "$PIDS"/*.pid

# Validate the config once, up front, with a clear message (the worker parses it fully).
WORKER_COUNT="$(CONFIG="$CONFIG" "$BIN/worker" --config "$CONFIG" "${SETS[@]}" --id 0 --print-config 2>/dev/null \
  | sed -n 's/.*"worker_count": *\([0-9]*\).*/\1/p' | head -1)" || true
[ -n "$WORKER_COUNT" ] || { "$BIN/worker" --config "$CONFIG" "${SETS[@]}" --id 0 --print-config >/dev/null; die "invalid config"; }
echo "run dir: $RUN_DIR; workers: $WORKER_COUNT"

# Each process: its own session (setsid), pinned BLAS/OpenMP threads, logs in the run dir.
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}" OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-1}" MKL_NUM_THREADS=1
launch() {  # launch NAME CMD...
  local name="$1"; shift
  setsid "$@" </dev/null >"$LOGS/$name.out" 2>&1 &
  echo $! >"$PIDS/$name.pid"
}

# (1) inference server; poll up to 60 s for it to answer ping.
SOCK="${GOMOKU_INFER_SOCK:-$RUN_DIR/sock/infer.sock}"
export GOMOKU_INFER_SOCK="$SOCK"
launch server "$BIN/infer_server" --config "$CONFIG" "${SETS[@]}" --run-dir "$RUN_DIR" --log "$LOGS/server.log"
SERVER_UP=0
for _ in $(seq 1 120); do
  if "$BIN/infer_ctl" --socket "$SOCK" ping >/dev/null 2>&1; then SERVER_UP=1; break; fi
  pid_alive "$PIDS/server.pid" infer_server || break
  sleep 0.5
done
if ((SERVER_UP)); then
  echo "server: up, answering ping on $SOCK"
else
  echo "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!" >&2
  echo "!! inference server did not answer ping on $SOCK" >&2
  echo "!! THIS RUN FALLS BACK TO LOCAL INFERENCE IN EVERY WORKER (much slower)." >&2
  echo "!! see $LOGS/server.out and $LOGS/server.log" >&2
  echo "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!" >&2
  unset GOMOKU_INFER_SOCK
fi

# (2) trainer (cold start: creates generation-0 weights and metadata.json).
launch trainer "$BIN/trainer" --config "$CONFIG" "${SETS[@]}"

# (3) every worker, explicitly: cold start never depends on the trainer.
for ((i = 0; i < WORKER_COUNT; i++)); do
  launch "worker_$i" "$BIN/worker" --config "$CONFIG" "${SETS[@]}" --id "$i"
done

# (4) verify: one live process per worker id; remote mode when the server is up.
echo "verifying (up to ${VERIFY_TIMEOUT}s)..."
deadline=$((SECONDS + VERIFY_TIMEOUT))
while :; do
  BAD=0
  for ((i = 0; i < WORKER_COUNT; i++)); do
    pid_alive "$PIDS/worker_$i.pid" worker || BAD=1
    if ((SERVER_UP)); then grep -q "remote batched inference enabled" "$LOGS/worker_$i.log" 2>/dev/null || BAD=1; fi
  done
  ((BAD == 0 || SECONDS >= deadline)) && break
  sleep 1
done
printf '%-10s %-8s %-8s %s\n' process pid state detail
row() { printf '%-10s %-8s %-8s %s\n' "$@"; }
FAIL=0
if pid_alive "$PIDS/server.pid" infer_server; then row server "$(cat "$PIDS/server.pid")" OK "$SOCK"
elif ((SERVER_UP)); then row server "-" PROBLEM "exited; see $LOGS/server.out"; FAIL=1
else row server "-" PROBLEM "not serving: workers use local inference"; fi
if pid_alive "$PIDS/trainer.pid" trainer; then row trainer "$(cat "$PIDS/trainer.pid")" OK ""
else row trainer "-" PROBLEM "exited; see $LOGS/trainer.out"; FAIL=1; fi
for ((i = 0; i < WORKER_COUNT; i++)); do
  pf="$PIDS/worker_$i.pid"
  if ! pid_alive "$pf" worker; then row "worker_$i" "-" PROBLEM "not running; see $LOGS/worker_$i.out"; FAIL=1; continue; fi
  if ((SERVER_UP)) && ! grep -q "remote batched inference enabled" "$LOGS/worker_$i.log" 2>/dev/null; then
    row "worker_$i" "$(cat "$pf")" PROBLEM "no 'remote batched inference enabled' line in worker_$i.log"; FAIL=1; continue
  fi
  row "worker_$i" "$(cat "$pf")" OK "$( ((SERVER_UP)) && echo remote || echo local)"
done

# (5) where to look.
cat <<MSG

logs:    $LOGS/{server,trainer,worker_N}.log
status:  launch/status.sh --run-dir $RUN_DIR        (add --json for machines)
server:  tail -f $LOGS/server.log | grep 'stats:'   (one line every server.stats_interval_s)
stop:    launch/stop.sh --run-dir $RUN_DIR
MSG
if ((FAIL)); then echo "start: some checks FAILED (see the table above)" >&2; exit 1; fi
echo "start: all processes healthy"
