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
  tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$needle"
}

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
