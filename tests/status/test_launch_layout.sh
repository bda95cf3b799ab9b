#!/usr/bin/env bash
# launch/common.sh's run_* names against RunLayout's, as `gz_status --layout`
# prints them (common/data/run_layout.h is the one list; the launch scripts,
# dev/chaos.sh and tests/e2e/lib.sh spell run paths only through run_*).
#
#   test_launch_layout.sh GZ_STATUS      compare with that program's --layout
#   test_launch_layout.sh LAYOUT.json    compare with a saved (or doctored) copy
#
# Prints one FAILED line per disagreement and "launch_layout: N checks, F failed";
# exit status 1 when F > 0.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$ROOT/launch/common.sh"
(($# == 1)) || die "usage: $0 GZ_STATUS | LAYOUT.json"
if [[ "$1" == *.json ]]; then LAYOUT="$(cat "$1")"; else LAYOUT="$("$1" --layout)"; fi
declare -A WANT=()
while IFS=$'\t' read -r key path; do WANT[$key]="$path"; done < <(
  /usr/bin/python3 -c 'import json, sys
for k, v in json.load(sys.stdin).items(): print(k + "\t" + v)' <<<"$LAYOUT")

RUN_DIR=/RUN HOST="" CHECKS=0 FAILS=0
declare -A CHECKED=()
fail() { echo "FAILED: $*"; FAILS=$((FAILS + 1)); }
# same ACCESSOR HOST FUNCTION ARG...: FUNCTION ARG... with that HOST names
# RunLayout's ACCESSOR (relative to the run directory).
same() {
  local key="$1" host="$2" got; shift 2
  CHECKS=$((CHECKS + 1)) CHECKED[$1]=1
  [ -n "${WANT[$key]+set}" ] || { fail "the layout has no '$key' (checked against: $*)"; return 0; }
  got="$(HOST="$host" "$@")"
  got="${got#"$RUN_DIR/"}"
  [ "$got" = "${WANT[$key]}" ] || fail "$*${host:+ (HOST=$host)} names '$got'; RunLayout's $key is '${WANT[$key]}'"
}
same metadata "" run_metadata
same generations "" run_generations
same ratings "" run_ratings
same checkpoints "" run_checkpoints
same checkpoint "" run_checkpoint 7
same status_dir "" run_status_dir
same status_dir_host hostA run_status_dir
same worker_status "" run_worker_status 2
same worker_status_host hostA run_worker_status 2
same evaluator_status "" run_evaluator_status
same reload_ack hostA run_reload_ack
same logs "" run_logs_dir
same log_file "" run_log_file trainer
same pids "" run_pids_dir
same pid_file "" run_pid_file trainer
same worker_pid_file "" run_pid_file "$(run_worker_name 2)"
same default_socket "" run_socket
same default_socket_host hostA run_socket
# run_pid_name reads back the NAME of run_pid_file NAME; run_worker_name is
# checked through worker_pid_file above.
CHECKS=$((CHECKS + 1)) CHECKED[run_pid_name]=1 CHECKED[run_worker_name]=1
[ "$(run_pid_name "$(run_pid_file "$(run_worker_name 2)")")" = worker_2 ] || fail "run_pid_name does not invert run_pid_file"
# Every run_* function of common.sh is compared here, or is launch's own:
# run_out_file (a process's captured stdout and stderr) has no RunLayout name.
CHECKED[run_out_file]=1
for f in $(declare -F | awk '$3 ~ /^run_/ {print $3}'); do
  [ -n "${CHECKED[$f]+set}" ] || fail "launch/common.sh's $f is not compared with the layout here"
done
echo "launch_layout: $CHECKS checks, $FAILS failed"
((FAILS == 0))
