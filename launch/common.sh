# Shared helpers of the launch scripts (sourced, not run).
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="${GOMOKU_BIN:-$ROOT/build/bin}"

die() { echo "ERROR: $*" >&2; exit 1; }

# pid_alive PIDFILE NEEDLE: the pid in PIDFILE is alive and its command line
# contains NEEDLE (never pgrep -f, which can match itself).
pid_alive() {
  local f="$1" needle="$2" pid
  [ -s "$f" ] || return 1
  pid="$(cat "$f" 2>/dev/null)" || return 1
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  # (2>/dev/null first: a process gone since kill -0 fails the < redirection itself)
  tr '\0' ' ' 2>/dev/null < "/proc/$pid/cmdline" | grep -q -- "$needle"
}

# The run directory's names, spelled once for every script
# (common/data/run_layout.h; `gz_status --layout` prints its answers and the
# test launch_layout checks these against them).  Each reads RUN_DIR
# (the run directory) and HOST ("" on one machine; a self-play host's name
# keeps that host's files apart on the shared directory).  NAME is a
# process: server, trainer, trainer_R, evaluator, dashboard, worker_ID.
# Logs and pid files under a host's own folder are launch's alone (the
# programs take them as arguments; gz_status reads the host-less ones).
run_logs_dir() { echo "$RUN_DIR/logs${HOST:+/$HOST}"; }
run_log_file() { echo "$(run_logs_dir)/$1.log"; }  # run_log_file NAME: the process's log
run_out_file() { echo "$(run_logs_dir)/$1.out"; }  # run_out_file NAME: its stdout and stderr
run_pids_dir() { echo "$RUN_DIR/pids${HOST:+/$HOST}"; }
run_pid_file() { echo "$(run_pids_dir)/$1.pid"; }  # run_pid_file NAME
run_pid_name() { basename "$1" .pid; }             # run_pid_name PIDFILE -> NAME
run_worker_name() { echo "worker_$1"; }            # run_worker_name ID
run_socket() { echo "$RUN_DIR/sock/${HOST:+$HOST/}infer.sock"; }
run_metadata() { echo "$RUN_DIR/metadata.json"; }
run_generations() { echo "$RUN_DIR/generations.jsonl"; }
run_ratings() { echo "$RUN_DIR/ratings.jsonl"; }
run_checkpoints() { echo "$RUN_DIR/checkpoints"; }
run_checkpoint() { echo "$(run_checkpoints)/weights_it$1.pt"; }  # run_checkpoint ITERATION
run_status_dir() { echo "$RUN_DIR/status${HOST:+/$HOST}"; }
run_worker_status() { echo "$(run_status_dir)/$(run_worker_name "$1").json"; }  # run_worker_status ID
run_evaluator_status() { echo "$RUN_DIR/status/evaluator.json"; }
run_reload_ack() { echo "$(run_status_dir)/reload_ack.json"; }  # HOST's server's heartbeat

# default_run_dir CONFIG -> runs/<config name>
default_run_dir() { echo "$ROOT/runs/$(basename "${1%.json}")"; }

# default_config -> configs/gpu.json when LibTorch sees CUDA, else configs/cpu.json
default_config() {
  if [ "$("$BIN/gz_status" --device 2>/dev/null | cut -f1)" = cuda ]; then echo "$ROOT/configs/gpu.json"
  else echo "$ROOT/configs/cpu.json"; fi
}

# needle_of NAME -> the binary name a pid file NAME.pid must point at
needle_of() {
  case "$1" in
    server) echo infer_server ;; trainer|trainer_[0-9]*) echo trainer ;; evaluator) echo evaluator ;;
    dashboard) echo gz_dashboard ;; *) echo worker ;;
  esac
}

# json_get FILE-OR-DASH DOTTED.KEY -> the value (strings bare, lists/objects as JSON)
json_get() {
  /usr/bin/python3 -c '
import json, sys
src, key = sys.argv[1], sys.argv[2]
v = json.load(sys.stdin if src == "-" else open(src))
for k in key.split("."):
    v = v[k]
print(v if isinstance(v, str) else json.dumps(v))' "$1" "$2"
}
