#!/usr/bin/env bash
# Chaos check, "everything fails at once" (results in
# docs/reliability.md, "Chaos run").  Over a live launch/start.sh run it
# repeatedly picks a random moment and a random process (inference server,
# trainer, a worker, evaluator, dashboard; one round in five two or three at
# once) and either kills it (SIGKILL) or freezes it (SIGSTOP, SIGCONT a random
# 1-6 s later).  Killed processes are restarted through the launch scripts, as
# a user would: `launch/start.sh --revive` (restarts only the dead processes,
# the live ones keep running), and every third restart `launch/stop.sh` +
# `launch/start.sh` (the whole run stopped and resumed).  A process that dies
# on its own is reported and revived the same way.  After a final
# launch/stop.sh it checks the run directory:
#   - metadata.json's iteration never went back (sampled every 0.5 s);
#   - every game file loads with numpy (every array, zip CRCs, tags match its
#     directory) and no iteration counted a corrupt one;
#   - every kept checkpoint loads (build/bin/export_net);
#   - each iteration is in generations.jsonl exactly once, none is missing;
#   - every game file is in at most one list of one trainer manifest;
#   - every line of every .jsonl is whole JSON (a torn *last* line is
#     tolerated where the docs say readers skip it: generations.jsonl and
#     eval/results.jsonl);
#   - every evaluator game is recorded once and ratings.jsonl counts it once;
#   - every status/*.json parses; no temp file (`*.tmp.<pid>.<n>`) is left;
#   - every restart came back healthy, no process died on its own, the run
#     made progress (at least 2 iterations), stop.sh stopped all without SIGKILL.
#
#   dev/chaos.sh [--minutes N] [--config FILE] [--workers N] [--run-dir DIR]
#                [--seed S] [--min-gap S] [--max-gap S] [--keep] [--set key=value]...
#   dev/chaos.sh --check DIR    (only the file invariants, on a stopped run's dir)
#
# Defaults: 3 minutes of chaos, configs/tiny.json (7x7 board, 8x1 net),
# 4 workers, a fresh /tmp/gz-chaos.XXXXXX run dir (removed after a pass unless
# --keep, kept after a failure; a --run-dir is never removed), a random seed (printed; --seed S replays the
# same choices of process, signal and delay), 3-12 s between rounds.  The
# dashboard gets a free random port.  Prints a summary (rounds, kills, stops,
# restarts, each invariant PASS/FAIL); exit 0 when every invariant holds, 1
# when one fails, 2 on bad usage.  Events: <run>/chaos/events.log; the launch
# scripts' output: <run>/chaos/launch.log.  A developer check (dev/README.md),
# not a CI test: it keeps both cores of a small machine busy for N minutes.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="${GOMOKU_BIN:-$ROOT/build/bin}"
PY=/usr/bin/python3  # the interpreter with numpy (docs/testing.md)

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
MINUTES=3 CONFIG="$ROOT/configs/tiny.json" WORKERS=4 RUN_DIR="" SEED="" MIN_GAP=3 MAX_GAP=12 KEEP=0 SETS=() CHECK_ONLY=0
while (($#)); do
  case "$1" in
    --minutes) MINUTES="${2:-}"; shift 2 ;;
    --config) CONFIG="${2:-}"; shift 2 ;;
    --workers) WORKERS="${2:-}"; shift 2 ;;
    --run-dir) RUN_DIR="${2:-}"; shift 2 ;;
    --seed) SEED="${2:-}"; shift 2 ;;
    --min-gap) MIN_GAP="${2:-}"; shift 2 ;;
    --max-gap) MAX_GAP="${2:-}"; shift 2 ;;
    --keep) KEEP=1; shift ;;
    --check) CHECK_ONLY=1; RUN_DIR="${2:-}"; shift 2 ;;
    --set) SETS+=(--set "${2:-}"); shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "chaos: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
for v in MINUTES WORKERS MIN_GAP MAX_GAP; do
  [[ "${!v}" =~ ^[0-9]+$ ]] || { echo "chaos: --$(tr _ - <<<"${v,,}") must be a whole number, got '${!v}'" >&2; exit 2; }
done
((MINUTES >= 1 && WORKERS >= 1 && MIN_GAP >= 1 && MAX_GAP >= MIN_GAP)) ||
  { echo "chaos: need --minutes >= 1, --workers >= 1, 1 <= --min-gap <= --max-gap" >&2; exit 2; }
((CHECK_ONLY == 0)) || [ -d "$RUN_DIR" ] || { echo "chaos: --check needs a run directory, got '$RUN_DIR'" >&2; exit 2; }
[ -f "$CONFIG" ] || { echo "chaos: config file '$CONFIG' not found" >&2; exit 2; }
for b in infer_server trainer worker evaluator gz_dashboard export_net; do
  [ -x "$BIN/$b" ] || { echo "chaos: $BIN/$b not built (launch/setup.sh)" >&2; exit 2; }
done
"$PY" -c 'import numpy' 2>/dev/null || { echo "chaos: $PY has no numpy" >&2; exit 2; }
[ -n "$SEED" ] || SEED=$(( ($(date +%s) ^ $$) % 32768 ))
[[ "$SEED" =~ ^[0-9]+$ ]] || { echo "chaos: --seed must be a whole number" >&2; exit 2; }
RANDOM=$SEED  # every choice below reads $RANDOM in this shell (never in a subshell)
OWN_DIR=0
if [ -z "$RUN_DIR" ]; then RUN_DIR="$(mktemp -d /tmp/gz-chaos.XXXXXX)"; OWN_DIR=1; else mkdir -p "$RUN_DIR"; fi
RUN_DIR="$(cd "$RUN_DIR" && pwd)"
CHAOS="$RUN_DIR/chaos"
mkdir -p "$CHAOS"
EVENTS="$CHAOS/events.log" LAUNCH_LOG="$CHAOS/launch.log" SAMPLES="$CHAOS/metadata_samples.txt"
touch "$SAMPLES"
T0=$SECONDS
say() { printf '[%4ds] %s\n' $((SECONDS - T0)) "$*" | tee -a "$EVENTS"; }

ROUNDS=0 KILLS=0 STOPS=0 REVIVES=0 FULL_RESTARTS=0 RESTART_RETRIES=0 RESTART_FAILS=0 SELF_DEATHS=0 RESTARTS=0
source "$ROOT/launch/common.sh"
HOST=""  # the run's names: common.sh's run_* on RUN_DIR, one machine
pid_of() { cat "$(run_pid_file "$1")" 2>/dev/null; }
if ((CHECK_ONLY == 0)); then  # ---- the chaos (skipped by --check) ----
# A dashboard port nobody listens on (e2e tests on this machine use tiny.json's).
while :; do
  PORT=$((20000 + RANDOM % 20000))
  (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null || break
done
START_ARGS=(--config "$CONFIG" --workers "$WORKERS" --run-dir "$RUN_DIR" --set "dashboard.port=$PORT" "${SETS[@]}")
start_run() { echo "== $(date -u +%T) start.sh $*" >>"$LAUNCH_LOG"; "$ROOT/launch/start.sh" "${START_ARGS[@]}" "$@" >>"$LAUNCH_LOG" 2>&1; }
stop_run() { echo "== $(date -u +%T) stop.sh $*" >>"$LAUNCH_LOG"; "$ROOT/launch/stop.sh" --run-dir "$RUN_DIR" "$@" >>"$LAUNCH_LOG" 2>&1; }

# The processes of the run, by pid file name (launch/common.sh's naming).
NAMES=()
alive_name() { pid_alive "$(run_pid_file "$1")" "$(needle_of "$1")"; }
STOPPED=()  # pids under SIGSTOP right now: the exit trap continues them
SAMPLER=""
on_exit() {
  local p
  for p in "${STOPPED[@]}"; do kill -CONT "$p" 2>/dev/null; done
  [ -n "$SAMPLER" ] && kill "$SAMPLER" 2>/dev/null
  if [ -z "${STOPPED_CLEANLY:-}" ]; then stop_run --timeout 30 || true; fi
}
trap on_exit EXIT
trap 'say "interrupted"; exit 1' INT TERM

say "seed $SEED, $MINUTES min, config $CONFIG, $WORKERS workers, run dir $RUN_DIR, dashboard port $PORT"
START_FAILED=0
if ! start_run; then
  say "the first start.sh failed (see $LAUNCH_LOG)"; START_FAILED=1
fi
for p in "$(run_pids_dir)"/*.pid; do [ -e "$p" ] && NAMES+=("$(run_pid_name "$p")"); done
say "processes: ${NAMES[*]}"

# metadata.json's iteration, every 0.5 s, one "unix_time iteration" line each.
"$PY" - "$(run_metadata)" "$SAMPLES" <<'PY' &
import json, sys, time
src, out = sys.argv[1], sys.argv[2]
with open(out, "a") as f:
    while True:
        try:
            with open(src) as m:
                it = json.load(m)["iteration"]
            f.write("%.3f %d\n" % (time.time(), it)); f.flush()
        except (OSError, ValueError, KeyError):
            pass  # not written yet; a torn read would be a finding, but rename makes it impossible
        time.sleep(0.5)
PY
SAMPLER=$!

# restart: bring back what is dead, through the launch scripts.  Every third
# one is a full stop.sh + start.sh (a resumed run); the others start.sh
# --revive.  A restart that does not come back healthy is retried once.
restart() {
  RESTARTS=$((RESTARTS + 1))
  local how=revive
  if ((RESTARTS % 3 == 0)); then how=full; fi
  if [ $how = full ]; then
    FULL_RESTARTS=$((FULL_RESTARTS + 1))
    stop_run --timeout 30 || say "stop.sh before the full restart needed SIGKILL"
    start_run && { say "  full restart (stop.sh + start.sh): healthy"; return 0; }
  else
    REVIVES=$((REVIVES + 1))
    start_run --revive && { say "  start.sh --revive: healthy"; return 0; }
  fi
  RESTART_RETRIES=$((RESTART_RETRIES + 1))
  say "  $how restart not healthy (see $LAUNCH_LOG); retrying start.sh --revive in 3 s"
  sleep 3
  if start_run --revive; then say "  retry: healthy"; return 0; fi
  RESTART_FAILS=$((RESTART_FAILS + 1))
  say "  retry not healthy either: a process did not come back"
  return 1
}

# Processes that died without being killed here (crashes, fatal errors).
check_self_deaths() {  # check_self_deaths [--no-revive]
  local n dead=()
  for n in "${NAMES[@]}"; do alive_name "$n" || dead+=("$n"); done
  ((${#dead[@]})) || return 0
  SELF_DEATHS=$((SELF_DEATHS + ${#dead[@]}))
  for n in "${dead[@]}"; do
    say "UNEXPECTED: $n is not running; last lines of its logs:"
    tail -n 3 "$(run_log_file "$n")" "$(run_out_file "$n")" 2>/dev/null | sed 's/^/    /' | tee -a "$EVENTS"
  done
  [ "${1:-}" = --no-revive ] || restart
}

END=$((SECONDS + MINUTES * 60))
while ((START_FAILED == 0 && SECONDS < END)); do
  sleep "$((MIN_GAP + RANDOM % (MAX_GAP - MIN_GAP + 1))).$((RANDOM % 10))"
  ((SECONDS < END)) || break
  check_self_deaths
  ROUNDS=$((ROUNDS + 1))
  count=1
  ((RANDOM % 5 == 0)) && count=$((2 + RANDOM % 2))
  victims=() pool=("${NAMES[@]}")
  while ((${#victims[@]} < count && ${#pool[@]} > 0)); do
    k=$((RANDOM % ${#pool[@]}))
    victims+=("${pool[k]}")
    pool=("${pool[@]:0:k}" "${pool[@]:k+1}")
  done
  if ((RANDOM % 5 < 3)); then
    delay="$((RANDOM % 4)).$((RANDOM % 10))"
    say "round $ROUNDS: kill -9 ${victims[*]}; restart in ${delay}s"
    for n in "${victims[@]}"; do
      p="$(pid_of "$n")"
      [ -n "$p" ] && kill -KILL "$p" 2>/dev/null && KILLS=$((KILLS + 1))
    done
    sleep "$delay"
    restart
  else
    pause="$((1 + RANDOM % 6)).$((RANDOM % 10))"
    say "round $ROUNDS: SIGSTOP ${victims[*]} for ${pause}s"
    for n in "${victims[@]}"; do
      p="$(pid_of "$n")"
      [ -n "$p" ] && kill -STOP "$p" 2>/dev/null && { STOPS=$((STOPS + 1)); STOPPED+=("$p"); }
    done
    sleep "$pause"
    for p in "${STOPPED[@]}"; do kill -CONT "$p" 2>/dev/null; done
    STOPPED=()
  fi
done

# Let the last restart settle, then every part must be up before the stop.
((START_FAILED)) || { sleep 5; check_self_deaths --no-revive; }
say "chaos over after $ROUNDS rounds: stopping the run (launch/stop.sh)"
PRE_STOP=()
for n in "${NAMES[@]}"; do p="$(pid_of "$n")" && [ -n "$p" ] && PRE_STOP+=("$n:$p"); done
STOP_RC=0
stop_run --timeout 30 || STOP_RC=$?
STOPPED_CLEANLY=1
kill "$SAMPLER" 2>/dev/null; wait "$SAMPLER" 2>/dev/null; SAMPLER=""
fi  # ---- end of the chaos ----

# ---- invariants ----
declare -a RESULTS=()
result() { RESULTS+=("$(printf '%-4s  %-48s %s' "$1" "$2" "$3")"); }
ok_if() { if eval "$1"; then result PASS "$2" "$3"; else result FAIL "$2" "$3"; fi; }

if ((CHECK_ONLY == 0)); then
ok_if '((START_FAILED == 0))' "first start.sh healthy" "$( ((START_FAILED)) && echo "failed: see $LAUNCH_LOG")"
ok_if '((RESTART_FAILS == 0))' "every restart came back healthy" "$RESTARTS restarts, $RESTART_RETRIES needed a retry, $RESTART_FAILS never healthy"
ok_if '((SELF_DEATHS == 0))' "no process died on its own" "$SELF_DEATHS unexpected exit(s) (events.log)"
ok_if '((STOP_RC == 0))' "stop.sh stopped every process without SIGKILL" "exit $STOP_RC"
leftover=""
for np in "${PRE_STOP[@]}"; do  # alive = exists and not a zombie (PID 1 may not reap)
  st="$(awk '{print $3}' "/proc/${np#*:}/stat" 2>/dev/null)"
  [ -n "$st" ] && [ "$st" != Z ] && leftover+=" ${np}"
done
ok_if '[ -z "$leftover" ]' "nothing of the run alive after stop.sh" "${leftover:-none}"
fi

# Every kept checkpoint loads: export_net reads the whole file (magic, CRC, tensors).
ck_total=0 ck_bad=""
for c in "$RUN_DIR"/checkpoints/weights_it*.pt; do
  [ -e "$c" ] || continue
  ck_total=$((ck_total + 1))
  "$BIN/export_net" --weights "$c" --out "$CHAOS/export_check.npz" >>"$CHAOS/export_net.log" 2>&1 || ck_bad+=" $(basename "$c")"
done
rm -f "$CHAOS/export_check.npz"
ok_if '((ck_total > 0)) && [ -z "$ck_bad" ]' "every kept checkpoint loads (export_net)" "$ck_total checked${ck_bad:+; bad:$ck_bad}"

# The file checks, in numpy.
while IFS= read -r line; do
  IFS=$'\t' read -r verdict what detail <<<"$line"
  case "$verdict" in PASS|FAIL) result "$verdict" "$what" "$detail" ;; *) echo "$line" ;; esac
done < <("$PY" - "$RUN_DIR" "$SAMPLES" <<'PY' 2>&1
import glob, json, os, re, sys, zipfile
import numpy as np

run, samples = sys.argv[1], sys.argv[2]
def out(ok, what, detail):
    print("%s\t%s\t%s" % ("PASS" if ok else "FAIL", what, detail))
def short(items, n=5):
    items = list(items)
    return ", ".join(map(str, items[:n])) + (" ..." if len(items) > n else "")

# metadata.json's iteration never went back
vals = []
for line in open(samples):
    parts = line.split()
    if len(parts) == 2:
        vals.append(int(parts[1]))
try:
    final_it = json.load(open(os.path.join(run, "metadata.json")))["iteration"]
    vals.append(final_it)
except (OSError, ValueError, KeyError) as e:
    final_it = None
backs = [(a, b) for a, b in zip(vals, vals[1:]) if b < a]
out(bool(vals) and not backs and final_it is not None, "metadata.json iteration never went back",
    "%d samples, %s -> %s%s" % (len(vals), vals[0] if vals else "-", final_it,
                                "; went back: " + short(backs) if backs else ""))

# .jsonl: every line whole JSON; a torn last line only where documented as tolerated
TOLERATE_TORN_LAST = {"generations.jsonl", os.path.join("eval", "results.jsonl")}
def read_jsonl(path):
    data = open(path, "rb").read()
    pieces = data.split(b"\n")
    rows, torn, torn_last = [], [], False
    for i, p in enumerate(pieces):
        if not p.strip():
            continue
        try:
            rows.append(json.loads(p))
        except ValueError:
            last = i == len(pieces) - 1  # no newline after it: the file's last, unfinished line
            if last:
                torn_last = True
            else:
                torn.append(i + 1)
    return rows, torn, torn_last
tables, bad_lines, notes = {}, [], []
for path in sorted(glob.glob(os.path.join(run, "**", "*.jsonl"), recursive=True)):
    rel = os.path.relpath(path, run)
    if rel.startswith("chaos" + os.sep):
        continue
    rows, torn, torn_last = read_jsonl(path)
    tables[rel] = rows
    bad_lines += ["%s:%d" % (rel, n) for n in torn]
    if torn_last:
        if rel in TOLERATE_TORN_LAST:
            notes.append(rel + " (torn last line, tolerated)")
        else:
            bad_lines.append(rel + ":last")
out(not bad_lines, "every .jsonl line is whole JSON",
    "%d files%s%s" % (len(tables), "; torn: " + short(bad_lines) if bad_lines else "",
                      "; " + short(notes) if notes else ""))

# generations.jsonl: each iteration once, none missing, none counted a corrupt game
gens = [r for r in tables.get("generations.jsonl", []) if "iteration" in r]
its = [r["iteration"] for r in gens]
dups = sorted({i for i in its if its.count(i) > 1})
missing = sorted(set(range(min(its), max(its) + 1)) - set(its)) if its else []
behind = final_it is not None and its and max(its) + 1 != final_it
out(bool(its) and not dups and not missing and not behind, "each iteration once in generations.jsonl",
    "%d lines, iterations %s..%s, metadata at %s%s%s%s" % (
        len(its), min(its) if its else "-", max(its) if its else "-", final_it,
        "; twice: " + short(dups) if dups else "", "; missing: " + short(missing) if missing else "",
        "; last logged iteration is not metadata's - 1" if behind else ""))
recovered = sum(1 for r in gens if r.get("recovered_after_restart"))
corrupt = sum(int(r.get("corrupt_games", 0)) for r in gens)
out(corrupt == 0, "no iteration counted a corrupt game file", "corrupt_games total %d" % corrupt)

# game files: numpy reads every array; CRCs; tags agree with the directory
need = ["boards", "to_move", "policy", "q", "moves", "model_generations", "winner", "iteration",
        "model_generation", "board_size", "format_version"]
files, bad = 0, []
for path in sorted(glob.glob(os.path.join(run, "games", "it*", "*"))):
    name = os.path.basename(path)
    if ".tmp" in name or not name.endswith(".npz"):
        continue
    files += 1
    it_dir = int(os.path.basename(os.path.dirname(path))[2:])
    try:
        with zipfile.ZipFile(path) as z:
            crc = z.testzip()
            if crc is not None:
                raise ValueError("CRC mismatch in " + crc)
        with np.load(path, allow_pickle=False) as z:
            a = {k: z[k] for k in z.files}
        miss = [k for k in need if k not in a]
        if miss:
            raise ValueError("missing arrays " + ",".join(miss))
        t, s = a["moves"].shape[0], int(a["board_size"])
        if a["boards"].shape != (t, s, s) or a["policy"].shape != (t, s * s) or a["q"].shape != (t,):
            raise ValueError("shapes disagree: boards %s policy %s q %s" % (a["boards"].shape, a["policy"].shape, a["q"].shape))
        if int(a["iteration"]) != it_dir:
            raise ValueError("iteration tag %d in it%d/" % (int(a["iteration"]), it_dir))
        if int(a["winner"]) not in (0, 1, 2) or not np.all(np.isfinite(a["policy"])):
            raise ValueError("winner or policy out of range")
    except Exception as e:  # any failure to read is the finding
        bad.append("%s/%s (%s)" % (os.path.basename(os.path.dirname(path)), name, e))
out(files > 0 and not bad, "every game file loads with numpy", "%d files%s" % (files, "; bad: " + short(bad, 3) if bad else ""))

# trainer manifests: a game file in at most one list of one manifest
seen, twice = {}, []
for path in glob.glob(os.path.join(run, "trainer", "games_it*.json")):
    n = int(re.search(r"games_it(\d+)\.json$", path).group(1))
    m = json.load(open(path))
    for lst in ("used", "ignored"):
        for f in m.get(lst, []):
            key = (n, f)
            if key in seen: twice.append(key)
            seen[key] = (n, lst)
    for lst in ("late", "late_aged_out", "late_ignored"):
        for e in m.get(lst, []):
            key = (e["iteration"], e["file"])
            if key in seen: twice.append(key)
            seen[key] = (n, lst)
out(not twice, "every game file in one manifest list at most", "%d files listed%s" % (len(seen), "; twice: " + short(twice) if twice else ""))

# evaluator: every game recorded once; ratings.jsonl counts each once
res = tables.get(os.path.join("eval", "results.jsonl"), [])
games = [r for r in res if r.get("type") == "game"]
keys = [(g["iteration"], g["entry"], g["game"]) for g in games]
dup_keys = sorted({k for k in keys if keys.count(k) > 1})
out(not dup_keys, "every evaluator game recorded once", "%d games%s" % (len(keys), "; twice: " + short(dup_keys) if dup_keys else ""))
count = {}
for k in set(keys):
    count[(k[0], k[1])] = count.get((k[0], k[1]), 0) + 1
ratings = tables.get("ratings.jsonl", [])
wrong = []
r_its = [r["iteration"] for r in ratings]
wrong += ["iteration %d rated twice" % i for i in sorted({i for i in r_its if r_its.count(i) > 1})]
for r in ratings:
    total = 0
    for o in r.get("opponents", []):
        g = o["games"]
        total += g
        if o["wins"] + o["draws"] + o["losses"] != g or g != count.get((r["iteration"], o["entry"]), 0):
            wrong.append("it%d %s: %d+%d+%d, games %d, results.jsonl %d" % (
                r["iteration"], o["entry"], o["wins"], o["draws"], o["losses"], g,
                count.get((r["iteration"], o["entry"]), 0)))
    if total != r.get("games"):
        wrong.append("it%d: games %s but opponents sum %d" % (r["iteration"], r.get("games"), total))
out(not wrong, "ratings.jsonl counts each game once", "%d rated checkpoints%s" % (len(ratings), "; " + short(wrong, 3) if wrong else ""))

# status files parse (they are rewritten atomically, often)
sbad = []
for path in glob.glob(os.path.join(run, "status", "**", "*.json"), recursive=True):
    if ".tmp" in os.path.basename(path):
        continue
    try:
        json.load(open(path))
    except ValueError as e:
        sbad.append(os.path.relpath(path, run))
out(not sbad, "every status/*.json parses", short(sbad) if sbad else "ok")

# no temp file left after the clean stop
tmps = []
for d, _, names in os.walk(run):
    for name in names:
        if re.search(r"\.tmp\.\d+\.\d+$", name) or ".tmp" in name:
            rel = os.path.relpath(os.path.join(d, name), run)
            if not rel.startswith("chaos" + os.sep):
                tmps.append(rel)
out(not tmps, "no temp file left after the stop", "%d%s" % (len(tmps), ": " + short(tmps) if tmps else ""))

# progress
first = vals[0] if vals else 0
out(final_it is not None and final_it - first >= 2, "the run made progress (>= 2 iterations)",
    "iteration %s -> %s, %d recovered_after_restart line(s)" % (first, final_it, recovered))
PY
)

FAILED=0
echo
echo "==== chaos summary (seed $SEED, $MINUTES min, run dir $RUN_DIR) ===="
((CHECK_ONLY)) || echo "rounds $ROUNDS, processes killed $KILLS, stopped $STOPS, restarts $RESTARTS" \
     "(start.sh --revive $REVIVES, stop.sh+start.sh $FULL_RESTARTS, retried $RESTART_RETRIES), unexpected exits $SELF_DEATHS"
for r in "${RESULTS[@]}"; do
  echo "$r"
  [[ "$r" == FAIL* ]] && FAILED=1
done
{ echo "==== summary"; printf '%s\n' "${RESULTS[@]}"; } >>"$EVENTS"
((${#RESULTS[@]} >= (CHECK_ONLY ? 12 : 17))) || { echo "chaos: the checks did not all run (see above)"; FAILED=1; }
if ((FAILED)); then
  echo "chaos: FAILED; the run dir is kept: $RUN_DIR (events: $EVENTS, launch output: $LAUNCH_LOG)"
  exit 1
fi
echo "chaos: all invariants hold"
if ((KEEP || !OWN_DIR)); then echo "run dir kept: $RUN_DIR"; else rm -rf "$RUN_DIR"; fi
exit 0
