# Helpers for the end-to-end tests (sourced).  Each test gets a fresh run dir,
# starts real processes, and always stops them on exit.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BIN="${GZ_BIN_DIR:-$ROOT/build/bin}"
export GOMOKU_BIN="$BIN"
TESTNAME="$(basename "$0" .sh)"
RUN="$(mktemp -d /tmp/gz-e2e-XXXXXX)"
# The run's file names: launch/common.sh's run_* functions on RUN_DIR, here a
# name for RUN (a test that points RUN at another run moves them with it), and
# HOST "" (one machine; HOST=NAME run_... for a self-play host's names).
source "$ROOT/launch/common.sh"
declare -n RUN_DIR=RUN
HOST=""
# configs/tiny.json with a free dashboard port: the shipped port (18765) may
# be taken by a run the user has going on this machine, or by another test.
CONFIG_DIR="$(mktemp -d /tmp/gz-e2e-cfg-XXXXXX)"
CONFIG="$CONFIG_DIR/tiny.json"
/usr/bin/python3 - "$ROOT/configs/tiny.json" "$CONFIG" <<'PY'
import json, socket, sys
c = json.load(open(sys.argv[1]))
s = socket.socket()
s.bind(("127.0.0.1", 0))
c.setdefault("dashboard", {})["port"] = s.getsockname()[1]
s.close()
json.dump(c, open(sys.argv[2], "w"), indent=1)
PY
FAILS=0 PASSES=0

cleanup() {
  local pids
  pids="$(all_pids)"
  "$ROOT/launch/stop.sh" --run-dir "$RUN" --timeout 10 >/dev/null 2>&1 || true
  # Anything of ours still alive (e.g. a process started by hand) is killed.
  for p in $pids; do kill -KILL "$p" 2>/dev/null || true; done
  # A process of this run that no pid file names would keep writing into it:
  # that is a failure of the test (or of stop.sh), so say which one, kill it.
  local p
  for p in $(live_run_pids); do
    echo "FAILED: a process of this run outlived stop.sh: pid $p: $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)"
    FAILS=$((FAILS + 1))
    kill -KILL "$p" 2>/dev/null || true
  done
  if ((FAILS)); then
    echo "---- logs of the failed run ($RUN) ----"
    for f in "$(run_logs_dir)"/*; do [ -f "$f" ] && { echo "== $f"; tail -n 25 "$f"; }; done
  fi
  sleep 0.2  # let the killed ones go
  rm -rf "$RUN" "$CONFIG_DIR"
  ((FAILS == 0)) || exit 1
}
trap cleanup EXIT

check() {  # check "description" command...
  local what="$1"; shift
  if "$@"; then PASSES=$((PASSES + 1)); echo "ok: $what"; else FAILS=$((FAILS + 1)); echo "FAILED: $what"; fi
}

# wait_for SECONDS command... : polls until the command succeeds
wait_for() {
  local t="$1"; shift
  local end=$((SECONDS + t))
  until "$@"; do
    ((SECONDS < end)) || return 1
    sleep 0.5
  done
}

# start_run "description" [start.sh options...]: launch/start.sh on this
# test's run and config, as a check.
start_run() {
  local what="$1"; shift
  check "$what" "$ROOT/launch/start.sh" --config "$CONFIG" --run-dir "$RUN" "$@"
}
# server_stats_has TEXT: the run's server answers STATS (infer_ctl) with JSON
# that holds TEXT once white space is removed from both, e.g. '"rule":"renju"'.
server_stats_has() {
  local stats want="${1//[$' \n\t']/}"
  stats="$("$BIN/infer_ctl" --socket "$(run_socket)" stats)" || return 1
  stats="${stats//[$' \n\t']/}"
  [[ "$stats" == *"$want"* ]]
}
generations() { [ -f "$(run_generations)" ] && grep -c '"iteration"' "$(run_generations)" || echo 0; }
at_least_generations() { (($(generations) >= $1)); }
meta_iteration() { /usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["iteration"])' "$(run_metadata)"; }
# json_get PY-SUBSCRIPT: the value at d["a"]["b"] of stdin's JSON (replaces common.sh's json_get).
json_get() { /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); exec("print(d" + sys.argv[1] + ")")' "$1"; }
pid_of() { cat "$(run_pid_file "$1")"; }
# alive PID: running and not a zombie (a reparented process may stay a zombie
# when PID 1 does not reap; kill -0 alone would count it).
alive() {
  kill -0 "$1" 2>/dev/null || return 1
  local state
  state="$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" || return 1
  [ -n "$state" ] && [ "$state" != Z ]
}
# live_run_pids [TEXT]: pids of live processes whose command line names this
# run's directory (and contains TEXT), found through /proc, not pid files.
live_run_pids() {
  local d cmd
  for d in /proc/[0-9]*; do
    cmd="$(tr '\0' ' ' <"$d/cmdline" 2>/dev/null)" || continue
    [[ "$cmd" == *"$RUN"* && "$cmd" == *"${1:-}"* && "$cmd" != *"$TESTNAME"* ]] || continue
    alive "${d#/proc/}" && echo "${d#/proc/}"
  done
  return 0
}
no_process_left() {
  local p
  for p in "$@"; do alive "$p" && return 1; done
  return 0
}
all_pids() { cat "$(run_pids_dir)"/*.pid 2>/dev/null || true; }

finish() {
  echo "$PASSES passed, $FAILS failed"
  ((FAILS == 0))
}
