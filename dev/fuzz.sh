#!/usr/bin/env bash
# Runs the libFuzzer targets (fuzz/CMakeLists.txt) with ASan + UBSan, each for
# SECONDS (default 600: the nightly run), starting from the committed seed
# corpus.  New interesting inputs go to build-fuzz/corpus/<target>; a crash
# leaves its input in build-fuzz/artifacts/<target>/ and fails the script.
#
#   dev/fuzz.sh [SECONDS] [TARGET...]
#
# TARGET: a name of a gz_fuzz_target line of fuzz/CMakeLists.txt (wire,
# game_record, ...); without one, every target (the configure step writes
# their names to $BUILD/fuzz_targets.txt).
#
# Nightly (checklist item 13: at least 10 minutes per target), e.g. from cron
# on a build machine with clang, from the repository root:
#   0 2 * * *  cd /path/to/gomoku-zero && dev/fuzz.sh 600 >>build-fuzz/nightly.log 2>&1
# (10 minutes a target plus the build; exit status 1 on a crash.)
#
# Needs clang and its libFuzzer runtime (Debian: clang; this machine has
# clang 14).  To keep a found input as a regression seed, copy it into
# fuzz/corpus/<target>/: ctest's fuzz_replay_<target> then replays it in
# every CI run.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SECONDS_EACH="${1:-600}"
shift || true
TARGETS=("$@")
BUILD="${FUZZ_BUILD:-$ROOT/build-fuzz}"
mkdir -p "$BUILD"
command -v clang++ >/dev/null || { echo "fuzz.sh: clang++ not found (apt-get install clang)" >&2; exit 2; }

CC=clang CXX=clang++ cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGOMOKU_BUILD_FUZZ=ON \
  -DGOMOKU_BUILD_TESTS=OFF -DGOMOKU_BUILD_BENCH=OFF >"$BUILD/configure.log" 2>&1 ||
  { tail -30 "$BUILD/configure.log"; exit 1; }
[[ ${#TARGETS[@]} -eq 0 ]] && mapfile -t TARGETS <"$BUILD/fuzz_targets.txt"
[[ ${#TARGETS[@]} -gt 0 ]] || { echo "fuzz.sh: no fuzz targets in $BUILD/fuzz_targets.txt" >&2; exit 1; }
cmake --build "$BUILD" -j "$(nproc)" --target "${TARGETS[@]/#/fuzz_}" >"$BUILD/build.log" 2>&1 ||
  { grep -E "error" "$BUILD/build.log" | head -30; exit 1; }

status=0
for t in "${TARGETS[@]}"; do
  mkdir -p "$BUILD/corpus/$t" "$BUILD/artifacts/$t"
  echo "fuzz_$t: ${SECONDS_EACH}s"
  if ! ASAN_OPTIONS=detect_leaks=1 "$BUILD/bin/fuzz_$t" -max_total_time="$SECONDS_EACH" -rss_limit_mb=2048 \
      -max_len=65536 -print_final_stats=1 -artifact_prefix="$BUILD/artifacts/$t/" \
      "$BUILD/corpus/$t" "$ROOT/fuzz/corpus/$t" >"$BUILD/fuzz_$t.log" 2>&1; then
    echo "fuzz_$t FAILED: see $BUILD/fuzz_$t.log and $BUILD/artifacts/$t/" >&2
    grep -E "ERROR|runtime error|fuzz target failure|unexpected exception" "$BUILD/fuzz_$t.log" | head -5 >&2
    status=1
  else
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$BUILD/fuzz_$t.log" | tr '\n' ' '
    echo "corpus $(ls "$BUILD/corpus/$t" | wc -l) files"
  fi
done
exit "$status"
