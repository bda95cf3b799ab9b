#!/usr/bin/env bash
# ThreadSanitizer stress of the inference server (reliability checklist 16;
# docs/testing.md): a TSan build of infer_server serves 20 workers (1-3
# games each in flight, all8 symmetries, result cache on, max_wait auto)
# while 50 RELOADs alternate two good checkpoints and a truncated one.
#
#   dev/tsan_stress.sh A.pt B.pt [GAMES_PER_WORKER]   (default 15: about 10k requests a worker)
#
# A.pt and B.pt: two checkpoints of board BOARD (default 9), e.g. the ones
# the server tests leave in build/test-tmp/server/reload-*/{a,b}.pt.
# Builds the TSan server into build-tsan/ (RelWithDebInfo, -fsanitize=thread)
# if it is not there; the workers and infer_ctl come from build/bin.
# Exit status 1 if TSan reported anything, a worker failed, or a good reload
# was refused.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[[ $# -ge 2 ]] || { sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 2; }
A="$(realpath "$1")"; B="$(realpath "$2")"; GAMES="${3:-15}"; BOARD="${BOARD:-9}"
BIN="$ROOT/build/bin"; TBUILD="$ROOT/build-tsan"
WORK="$(mktemp -d /tmp/gz-tsan.XXXXXX)"
if [[ ! -x "$TBUILD/bin/infer_server" ]]; then
  cmake -S "$ROOT" -B "$TBUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGOMOKU_BUILD_TESTS=OFF -DGOMOKU_BUILD_BENCH=OFF \
    -DGOMOKU_SANITIZE_REPLAY=OFF -DCMAKE_CXX_FLAGS="-fsanitize=thread -fno-omit-frame-pointer" \
    -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread >"$WORK/configure.log" 2>&1 || { tail "$WORK/configure.log"; exit 1; }
  cmake --build "$TBUILD" -j "$(nproc)" --target infer_server >"$WORK/build.log" 2>&1 || { tail "$WORK/build.log"; exit 1; }
fi
head -c 100 /dev/urandom > "$WORK/truncated.pt"
export GOMOKU_INFER_SOCK="$WORK/sock/s.sock" OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
export TSAN_OPTIONS="halt_on_error=0 report_signal_unsafe=0"
"$TBUILD/bin/infer_server" --weights "$A" --set board.size="$BOARD" --set inference.device=cpu \
  --set inference.symmetry=all8 --set server.cache_entries=10000 --set server.max_wait=auto \
  --set server.max_batch=16 --set run.dir="$WORK/run" >"$WORK/server.log" 2>&1 &
SP=$!
for _ in $(seq 120); do "$BIN/infer_ctl" --socket "$GOMOKU_INFER_SOCK" ping >/dev/null 2>&1 && break; sleep 1; done
start=$(date +%s)
pids=()
for w in $(seq 0 19); do
  "$BIN/worker" --id "$w" --games "$GAMES" --weights "$A" --out "$WORK/games" --set board.size="$BOARD" \
    --set mcts.simulations=32 --set inference.symmetry=all8 --set worker.parallel_games=$((w % 3 + 1)) \
    --set inference.device=cpu >"$WORK/worker$w.log" 2>&1 &
  pids+=($!)
done
ok=0; refused=0; bad_refused=0
for r in $(seq 50); do
  case $((r % 3)) in 0) f="$WORK/truncated.pt" ;; 1) f="$B" ;; 2) f="$A" ;; esac
  if "$BIN/infer_ctl" --socket "$GOMOKU_INFER_SOCK" --timeout 120 reload "$f" >/dev/null 2>&1; then
    ok=$((ok + 1))
  else
    refused=$((refused + 1)); [[ "$f" != "$WORK/truncated.pt" ]] && bad_refused=$((bad_refused + 1))
  fi
  sleep 0.3
done
wfail=0
for p in "${pids[@]}"; do wait "$p" || wfail=$((wfail + 1)); done
"$BIN/infer_ctl" --socket "$GOMOKU_INFER_SOCK" stats >"$WORK/stats.json"
kill -TERM "$SP"; wait "$SP"; sexit=$?
reports=$(grep -c 'WARNING: ThreadSanitizer' "$WORK/server.log")
fallbacks=$(cat "$WORK"/worker*.log | grep -c "falling back")
echo "tsan_stress: $(($(date +%s) - start)) s, $(grep -o '"requests_total": *[0-9]*' "$WORK/stats.json"),"\
" $(grep -o '"forwards_total": *[0-9]*' "$WORK/stats.json"), reloads ok $ok refused $refused (good ones refused:"\
" $bad_refused), worker failures $wfail, fallbacks $fallbacks, server exit $sexit, TSan reports $reports"
echo "logs: $WORK"
[[ $reports -eq 0 && $wfail -eq 0 && $bad_refused -eq 0 && $sexit -eq 0 ]]
