#!/usr/bin/env bash
# Brings up a run, or this host's part of one, and proves it is healthy.
# See docs/operations.md.
#
#   launch/start.sh [--config FILE] [--workers N] [--run-dir DIR] [--set key=value]...
#                   [--role all|selfplay|trainer] [--host NAME] [--no-eval] [--no-dashboard]
#                   [--revive]
#
# --role all (default): this machine runs everything: inference server,
#   trainer (train.world_size ranks), workers, evaluator, dashboard.
# --role selfplay --host NAME: a self-play host of a multi-host run: its own
#   inference server (following DIR/reload.json) and its workers; file names
#   and status carry NAME.  DIR must be the shared run directory.
# --role trainer: the trainer host: trainer ranks, evaluator, dashboard.
# Default config: configs/gpu.json when LibTorch sees a CUDA device, else
# configs/cpu.json.  Default run dir: runs/<config name>.  The evaluator
# (ratings, eval.enabled) and the dashboard (dashboard.enabled, its URL is
# printed) start last; --no-eval / --no-dashboard leave them out.
# --revive: restart only the processes of a live run that are not running
#   (killed, crashed), with the same arguments as the first start; the live
#   ones are left alone and health-checked with the rest.  Without it,
#   start.sh refuses a run dir whose processes are alive.
set -euo pipefail
source "$(dirname "$0")/common.sh"

CONFIG="" WORKERS="" RUN_DIR="" SETS=() VERIFY_TIMEOUT="${GOMOKU_VERIFY_TIMEOUT:-60}" NO_EVAL=0 NO_DASHBOARD=0
ROLE=all HOST="" REVIVE=0
while (($#)); do
  case "$1" in
    --config) CONFIG="$2"; shift 2 ;;
    --workers) WORKERS="$2"; shift 2 ;;
    --run-dir) RUN_DIR="$2"; shift 2 ;;
    --set) SETS+=(--set "$2"); shift 2 ;;
    --role) ROLE="$2"; shift 2 ;;
    --host) HOST="$2"; shift 2 ;;
    --no-eval) NO_EVAL=1; shift ;;
    --no-dashboard) NO_DASHBOARD=1; shift ;;
    --revive) REVIVE=1; shift ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
case "$ROLE" in
  all|trainer) ;;
  selfplay) [ -n "$HOST" ] || die "--role selfplay needs --host NAME (the host's name in shared file names)" ;;
  *) die "unknown --role '$ROLE' (all, selfplay or trainer)" ;;
esac
[ "$ROLE" = trainer ] && [ -n "$HOST" ] && die "--role trainer takes no --host (hosts are the self-play machines)"
WANT_SELFPLAY=0 WANT_TRAINER=0
[ "$ROLE" != trainer ] && WANT_SELFPLAY=1
[ "$ROLE" != selfplay ] && WANT_TRAINER=1
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
# A host's processes keep their logs and pid files apart on the shared directory.
LOGS="$(run_logs_dir)" PIDS="$(run_pids_dir)"
mkdir -p "$LOGS" "$PIDS"
if [ -n "$HOST" ]; then SETS+=(--set "run.host=$HOST"); fi

# Refuse a second copy of the same run; with --revive, note the live processes
# (launch leaves them running) and forget the pid files of the dead ones.
declare -A ALIVE=()
for p in "$PIDS"/*.pid; do
  [ -e "$p" ] || continue
  name="$(run_pid_name "$p")"
  if pid_alive "$p" "$(needle_of "$name")"; then
    ((REVIVE)) || die "run $RUN_DIR is already running ($name pid $(cat "$p")); use launch/stop.sh --run-dir $RUN_DIR (or --revive to restart only its dead processes)"
    ALIVE[$name]="$(cat "$p")"
  else
    rm -f "$p"
  fi
done

# Validate the config once, up front, with a clear message (the worker parses it fully).
CFG_JSON="$("$BIN/worker" --config "$CONFIG" "${SETS[@]}" --id 0 --print-config 2>/dev/null)" ||
  { "$BIN/worker" --config "$CONFIG" "${SETS[@]}" --id 0 --print-config >/dev/null; die "invalid config"; }
cfg() { json_get - "$1" <<<"$CFG_JSON"; }
WORKER_COUNT=0 WORLD_SIZE=0
((WANT_SELFPLAY)) && WORKER_COUNT="$(cfg run.worker_count)"
((WANT_TRAINER)) && WORLD_SIZE="$(cfg train.world_size)"
WITH_EVAL=0 WITH_DASHBOARD=0
((WANT_TRAINER)) && [ "$(cfg eval.enabled)" = true ] && ((NO_EVAL == 0)) && WITH_EVAL=1
((WANT_TRAINER)) && [ "$(cfg dashboard.enabled)" = true ] && ((NO_DASHBOARD == 0)) && WITH_DASHBOARD=1
for b in evaluator gz_dashboard; do
  if { [ $b = evaluator ] && ((WITH_EVAL)); } || { [ $b = gz_dashboard ] && ((WITH_DASHBOARD)); }; then
    [ -x "$BIN/$b" ] || die "$BIN/$b not built: run launch/setup.sh first (or --no-eval / --no-dashboard)"
  fi
done
echo "role: $ROLE${HOST:+ (host $HOST)}; run dir: $RUN_DIR; workers: $WORKER_COUNT; trainer ranks: $WORLD_SIZE; evaluator: $( ((WITH_EVAL)) && echo on || echo off); dashboard: $( ((WITH_DASHBOARD)) && echo on || echo off)"

# Each process: its own session (setsid), pinned BLAS/OpenMP threads, logs in the run dir.
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}" OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-1}" MKL_NUM_THREADS=1
launch() {  # launch NAME CMD... (a process --revive found alive is left running)
  local name="$1"; shift
  if [ -n "${ALIVE[$name]:-}" ]; then echo "$name: alive (pid ${ALIVE[$name]}), left running"; return 0; fi
  setsid "$@" </dev/null >"$(run_out_file "$name")" 2>&1 &
  echo $! >"$(run_pid_file "$name")"
}

# (1) inference server; poll up to 60 s for it to answer ping.
SERVER_UP=0 SOCK=""
if ((WANT_SELFPLAY)); then
  SOCK="${GOMOKU_INFER_SOCK:-$(run_socket)}"
  export GOMOKU_INFER_SOCK="$SOCK"
  launch server "$BIN/infer_server" --config "$CONFIG" "${SETS[@]}" --run-dir "$RUN_DIR" --log-file "$(run_log_file server)"
  for _ in $(seq 1 120); do
    if "$BIN/infer_ctl" --socket "$SOCK" ping >/dev/null 2>&1; then SERVER_UP=1; break; fi
    pid_alive "$(run_pid_file server)" infer_server || break
    sleep 0.5
  done
  if ((SERVER_UP)); then
    echo "server: up, answering ping on $SOCK"
  else
    echo "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!" >&2
    echo "!! inference server did not answer ping on $SOCK" >&2
    echo "!! THIS RUN FALLS BACK TO LOCAL INFERENCE IN EVERY WORKER (much slower)." >&2
    echo "!! see $(run_out_file server) and $(run_log_file server)" >&2
    echo "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!" >&2
    unset GOMOKU_INFER_SOCK
  fi
fi

# (2) trainer (cold start: creates generation-0 weights and metadata.json):
# rank 0, and ranks 1..train.world_size-1 of data-parallel training.
trainer_name() { if (($1 == 0)); then echo trainer; else echo "trainer_$1"; fi; }
for ((r = 0; r < WORLD_SIZE; r++)); do
  if ((r == 0)); then launch trainer "$BIN/trainer" --config "$CONFIG" "${SETS[@]}"
  else launch "trainer_$r" "$BIN/trainer" --config "$CONFIG" "${SETS[@]}" --rank "$r" --log-file "$(run_log_file "trainer_$r")"; fi
done

# (3) every worker, explicitly: cold start never depends on the trainer.
# WLOG_OFF: the size of each worker log before this start (logs are appended
# to), so that the health check reads only what this start's worker wrote.
declare -a WLOG_OFF=()
for ((i = 0; i < WORKER_COUNT; i++)); do
  w="$(run_worker_name "$i")"
  WLOG_OFF[i]=0
  [ -n "${ALIVE[$w]:-}" ] || WLOG_OFF[i]="$(stat -c %s "$(run_log_file "$w")" 2>/dev/null || echo 0)"
  launch "$w" "$BIN/worker" --config "$CONFIG" "${SETS[@]}" --id "$i" --log-file "$(run_log_file "$w")"
done

# (4) the evaluator (it lowers its own priority by eval.nice) and the dashboard.
if ((WITH_EVAL)); then
  # a stale one would pass the check below (a live evaluator keeps its own fresh)
  [ -n "${ALIVE[evaluator]:-}" ] || rm -f "$(run_evaluator_status)"
  launch evaluator "$BIN/evaluator" --config "$CONFIG" "${SETS[@]}" --run-dir "$RUN_DIR"
fi
DASH_URL=""
if ((WITH_DASHBOARD)); then
  DASH_BIND="$(cfg dashboard.bind)" DASH_PORT="$(cfg dashboard.port)"
  launch dashboard "$BIN/gz_dashboard" --config "$CONFIG" "${SETS[@]}" --run-dir "$RUN_DIR"
  DASH_URL="http://$DASH_BIND:$DASH_PORT/"
fi
# http_ok HOST PORT: GET / answers 200 (bash's /dev/tcp: no curl needed).
http_ok() {
  local host="$1" port="$2" line
  [ "$host" = 0.0.0.0 ] && host=127.0.0.1
  { exec 9<>"/dev/tcp/$host/$port"; } 2>/dev/null || return 1  # braces: bash reports a refused connect of exec itself
  printf 'GET / HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n' "$host" >&9
  IFS= read -r -t 5 line <&9 || { exec 9>&-; return 1; }
  exec 9>&-
  [[ "$line" == "HTTP/1.1 200"* ]]
}

# (5) verify: one live process per worker id; remote mode when the server is up;
# a self-play host's server acknowledges in status/HOST/reload_ack.json;
# the evaluator writes its status file; the dashboard answers GET /.
ACK_FILE="$(run_reload_ack)" EVAL_STATUS="$(run_evaluator_status)" METADATA="$(run_metadata)"
# A worker is healthy in remote mode, or (a self-play host started before the
# trainer) while it waits for the run's metadata.json.
# worker_state ID prints remote, waiting, or nothing (not ready). The verify
# loop keeps the states it saw when it stopped, and the table reports those:
# re-reading afterwards could see metadata.json appear before the worker
# logged its connection, and call a healthy worker broken.
worker_log() { tail -c +$((${WLOG_OFF[$1]:-0} + 1)) "$(run_log_file "$(run_worker_name "$1")")" 2>/dev/null || true; }
worker_state() {
  if worker_log "$1" | grep -q "remote batched inference enabled"; then echo remote
  elif [ ! -f "$METADATA" ] && worker_log "$1" | grep -q "waiting for .*metadata.json"; then echo waiting
  fi
}
declare -a WSTATE=()
echo "verifying (up to ${VERIFY_TIMEOUT}s)..."
deadline=$((SECONDS + VERIFY_TIMEOUT))
while :; do
  BAD=0
  WAITING=0
  for ((i = 0; i < WORKER_COUNT; i++)); do
    pid_alive "$(run_pid_file "$(run_worker_name "$i")")" worker || BAD=1
    if ((SERVER_UP)); then
      WSTATE[i]="$(worker_state "$i")"; [ -n "${WSTATE[i]}" ] || BAD=1
      [ "${WSTATE[i]}" = waiting ] && WAITING=1
    fi
  done
  # With the trainer started here, metadata.json is seconds away: wait for the
  # workers to connect, so that the table says "remote" (waiting stays healthy
  # at the deadline: a cold start on a slow disk is not an error).
  ((WANT_TRAINER && WAITING)) && BAD=1
  if ((SERVER_UP)) && [ -n "$HOST" ]; then [ -s "$ACK_FILE" ] || BAD=1; fi
  if ((WITH_EVAL)); then { pid_alive "$(run_pid_file evaluator)" evaluator && [ -s "$EVAL_STATUS" ]; } || BAD=1; fi
  if ((WITH_DASHBOARD)); then { pid_alive "$(run_pid_file dashboard)" gz_dashboard && http_ok "$DASH_BIND" "$DASH_PORT"; } || BAD=1; fi
  ((BAD == 0 || SECONDS >= deadline)) && break
  sleep 1
done
printf '%-10s %-8s %-8s %s\n' process pid state detail
row() { printf '%-10s %-8s %-8s %s\n' "$@"; }
FAIL=0
if ((WANT_SELFPLAY)); then
  pf="$(run_pid_file server)"
  if ! pid_alive "$pf" infer_server; then
    if ((SERVER_UP)); then row server "-" PROBLEM "exited; see $(run_out_file server)"; FAIL=1
    else row server "-" PROBLEM "not serving: workers use local inference"; fi
  elif [ -n "$HOST" ] && ((SERVER_UP)) && [ ! -s "$ACK_FILE" ]; then
    row server "$(cat "$pf")" PROBLEM "no heartbeat in $ACK_FILE"; FAIL=1
  else row server "$(cat "$pf")" OK "$SOCK${HOST:+, follows reload.json as host $HOST}"; fi
fi
for ((r = 0; r < WORLD_SIZE; r++)); do
  n="$(trainer_name "$r")"
  pf="$(run_pid_file "$n")"
  if pid_alive "$pf" trainer; then row "$n" "$(cat "$pf")" OK "$( ((WORLD_SIZE > 1)) && echo "rank $r of $WORLD_SIZE")"
  else row "$n" "-" PROBLEM "exited; see $(run_out_file "$n")"; FAIL=1; fi
done
for ((i = 0; i < WORKER_COUNT; i++)); do
  w="$(run_worker_name "$i")"
  pf="$(run_pid_file "$w")"
  if ! pid_alive "$pf" worker; then row "$w" "-" PROBLEM "not running; see $(run_out_file "$w")"; FAIL=1; continue; fi
  if ((SERVER_UP)) && [ -z "${WSTATE[i]:-}" ]; then
    row "$w" "$(cat "$pf")" PROBLEM "no 'remote batched inference enabled' line in $w.log"; FAIL=1; continue
  fi
  if ((SERVER_UP)) && [ "${WSTATE[i]}" = waiting ]; then
    row "$w" "$(cat "$pf")" OK "waiting for the trainer's metadata.json"; continue
  fi
  row "$w" "$(cat "$pf")" OK "$( ((SERVER_UP)) && echo remote || echo local)"
done
if ((WITH_EVAL)); then
  pf="$(run_pid_file evaluator)"
  if ! pid_alive "$pf" evaluator; then row evaluator "-" PROBLEM "exited; see $(run_out_file evaluator)"; FAIL=1
  elif [ ! -s "$EVAL_STATUS" ]; then row evaluator "$(cat "$pf")" PROBLEM "no status/evaluator.json yet"; FAIL=1
  else row evaluator "$(cat "$pf")" OK "ratings: $(run_ratings)"; fi
fi
if ((WITH_DASHBOARD)); then
  pf="$(run_pid_file dashboard)"
  if ! pid_alive "$pf" gz_dashboard; then row dashboard "-" PROBLEM "exited; see $(run_out_file dashboard)"; FAIL=1
  elif ! http_ok "$DASH_BIND" "$DASH_PORT"; then row dashboard "$(cat "$pf")" PROBLEM "no HTTP answer on $DASH_URL"; FAIL=1
  else row dashboard "$(cat "$pf")" OK "$DASH_URL"; fi
fi

# (6) where to look.
cat <<MSG

logs:    $LOGS/{server,trainer,worker_N,evaluator}.log
status:  launch/status.sh --run-dir $RUN_DIR        (add --json for machines)
server:  tail -f $(run_log_file server) | grep 'stats:'   (one line every server.stats_interval_s)
stop:    launch/stop.sh --run-dir $RUN_DIR${HOST:+ --host $HOST}
MSG
[ -n "$DASH_URL" ] && echo "dashboard: $DASH_URL"
if ((FAIL)); then echo "start: some checks FAILED (see the table above)" >&2; exit 1; fi
echo "start: all processes healthy"
