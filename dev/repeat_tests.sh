#!/usr/bin/env bash
# Flake hunt (docs/testing.md, "Tests that never flake"): runs each named ctest
# test N times in a row, optionally beside a CPU hog (one busy loop per core),
# and prints a pass count per test.  The log of every failed run is kept.
#
#   dev/repeat_tests.sh [--build DIR] [--times N] [--hog] [--log DIR] TEST...
#
# TEST is a ctest name or regex (anchored: ^TEST$).  Defaults: build/, 20
# times, no hog, logs under a fresh /tmp/gz-repeat.XXXXXX.  Exit status 1 if
# any run failed.  Run the hog on a machine with nothing else on it: the point
# is that the outcome of a test does not depend on the machine's speed.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="$ROOT/build" TIMES=20 HOG=0 LOG="" TESTS=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build) BUILD="$2"; shift 2 ;;
    --times) TIMES="$2"; shift 2 ;;
    --hog) HOG=1; shift ;;
    --log) LOG="$2"; shift 2 ;;
    -*) sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 2 ;;
    *) TESTS+=("$1"); shift ;;
  esac
done
((${#TESTS[@]})) || { sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 2; }
[[ "$TIMES" =~ ^[1-9][0-9]*$ ]] || { echo "repeat_tests: --times must be a positive integer, got '$TIMES'"; exit 2; }
[[ -d "$BUILD" ]] || { echo "repeat_tests: no build folder $BUILD"; exit 2; }
[[ -n "$LOG" ]] || LOG="$(mktemp -d /tmp/gz-repeat.XXXXXX)"
mkdir -p "$LOG"

HOG_PIDS=()
stop_hog() { ((${#HOG_PIDS[@]})) && kill "${HOG_PIDS[@]}" 2>/dev/null; wait 2>/dev/null; }
trap stop_hog EXIT
if ((HOG)); then
  for _ in $(seq "$(nproc)"); do (while :; do :; done) & HOG_PIDS+=($!); done
  echo "repeat_tests: hog of ${#HOG_PIDS[@]} busy loops"
fi

failed=0
for t in "${TESTS[@]}"; do
  pass=0
  for i in $(seq "$TIMES"); do
    out="$LOG/${t//[^A-Za-z0-9_]/_}.$i.log"
    if ctest --test-dir "$BUILD" --output-on-failure -R "^${t}\$" >"$out" 2>&1 &&
       grep -q "100% tests passed" "$out"; then
      pass=$((pass + 1)); rm -f "$out"
    else
      failed=1; echo "repeat_tests: $t run $i FAILED (log $out)"
    fi
  done
  echo "repeat_tests: $t $pass/$TIMES passed$( ((HOG)) && echo ' under the hog'), load $(cut -d' ' -f1-3 /proc/loadavg)"
done
exit "$failed"
