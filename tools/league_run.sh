#!/usr/bin/env bash
# The Gomocup manager's six pre-submission formats (tools/gomocup_manager.h)
# played the manager's way by tools/gomocup_check --format, for the Linux
# engine folder and the Windows ZIP under wine: per format and build, N games
# at 0.5 s a move and M games at the format's real controls (30 s a move and
# 180 s a game; fastgame 5 s and 100 s), the brain against itself from the
# manager's self-play opening, every move judged by the manager's referee.
# Everything goes to one log; the last lines are a table per run: games,
# forfeits, ERROR lines where a move was owed, peak memory of the process
# tree.  Exit status 0 only when every run passed (0 forfeits, 0 such ERROR
# lines, the tree under 350 MB).
#
# usage: tools/league_run.sh [--fast N] [--real M] [--formats all|F,F...] [--builds linux,windows]
#                            [--bin-dir DIR] [--zip ZIP] [--build-dir DIR] [--log FILE]
#   --fast N     games at 0.5 s a move per format and build (default 4)
#   --real M     games at the real controls (default 2; hours: 6 formats x 2 builds x M games)
#   --zip ZIP    the Windows ZIP (default: tools/test_windows_engine.sh cross-builds one)
#   --log FILE   the log (default league-run-DATE.log); written to FILE.part, renamed when done
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
fast=4
real=2
formats=all
builds=linux,windows
bin_dir="$root/build/bin"
zip=""
build_dir="$root/build-win"
log="league-run-$(date +%Y-%m-%d-%H%M).log"
while [ $# -gt 0 ]; do
  case "$1" in
    --fast) fast="$2"; shift ;;
    --real) real="$2"; shift ;;
    --formats) formats="$2"; shift ;;
    --builds) builds="$2"; shift ;;
    --bin-dir) bin_dir="$2"; shift ;;
    --zip) zip="$2"; shift ;;
    --build-dir) build_dir="$2"; shift ;;
    --log) log="$2"; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    *) echo "$0: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
[ "$formats" = all ] && formats="freestyle20,fastgame,freestyle15,standard,renju,caro"
[ -x "$bin_dir/gomocup_check" ] || { echo "$0: no $bin_dir/gomocup_check" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
part="$log.part"
: > "$part"
status=0
table=()

# run BUILD FORMAT KIND GAMES [gomocup_check args]: one run, appended to the log.
run() {
  local build="$1" format="$2" kind="$3" games="$4"
  shift 4
  [ "$games" -gt 0 ] || return 0
  echo "=== $build $format $kind: $games games ($(date -u +%FT%TZ))" >> "$part"
  local out="$work/run.out" rc=0
  if [ "$build" = linux ]; then
    "$bin_dir/gomocup_check" --engine "$work/linux/pbrain-gomoku-zero" --format "$format" --games "$games" \
      --no-protocol --no-position-checks --stderr "$work/linux.stderr" "$@" > "$out" 2>&1 || rc=$?
  else
    local zip_args=(--build-dir "$build_dir")
    [ -n "$zip" ] && zip_args=(--zip "$zip")
    "$root/tools/test_windows_engine.sh" "${zip_args[@]}" --bin-dir "$bin_dir" --formats "$format" \
      --games "$games" --no-position-checks "$@" > "$out" 2>&1 || rc=$?
  fi
  cat "$out" >> "$part"
  local summary
  summary="$(grep "^summary $format:" "$out" | tail -1 || true)"
  [ -n "$summary" ] || summary="no summary (exit status $rc)"
  table+=("$build $format $kind: $summary")
  [ $rc -eq 0 ] || status=1
}

if [[ ",$builds," == *",linux,"* ]]; then
  "$root/tools/make_gomocup_folder.sh" --binary "$bin_dir/pbrain-gomoku-zero" "$work/linux" >> "$part"
fi
for build in ${builds//,/ }; do
  for format in ${formats//,/ }; do
    run "$build" "$format" "0.5s" "$fast" --turn-ms 500
    run "$build" "$format" "real" "$real"
  done
done

{
  echo "=== table (forfeits, ERROR lines where a move was owed, peak memory of the process tree)"
  for line in "${table[@]}"; do echo "$line"; done
  [ $status -eq 0 ] && echo "league_run: passed" || echo "league_run: FAILED"
} >> "$part"
mv "$part" "$log"
tail -n $((${#table[@]} + 2)) "$log"
exit $status
