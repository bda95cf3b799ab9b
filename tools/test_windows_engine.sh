#!/usr/bin/env bash
# The Windows engine as a Gomocup organiser gets it, tested under Debian's
# wine64 through our own Gomocup manager (docs/engine.md "Builds without
# LibTorch"):
#   1. tools/make_gomocup_folder.sh --windows makes the ZIP (cross build in
#      BUILD_DIR, default build-win/; skipped with --zip ZIP);
#   2. the ZIP is unpacked into an empty folder and run with a fresh wine
#      prefix, nothing else installed;
#   3. tools/gomocup_check (from the LibTorch build, build/bin by default)
#      runs its protocol script (START, INFO time controls and max_memory,
#      ABOUT, BEGIN, TURN, TAKEBACK, RESTART, BOARD, SWAP2BOARD, renju, END)
#      and plays one full game of every league the ZIP has a net for
#      (freestyle 15x15 and 20x20, standard, renju, caro: the folder's
#      league nets, docs/engine.md "Nets for every league") against the Linux
#      engine reading the same folder, under a match clock; any forfeit
#      (timeout, crash, illegal move), a process tree over 350 MB, or a game
#      not played by its league's net fails.
# --about-version V: the .exe's ABOUT must answer version="V" (ctest's
# test_release runs this on the release ZIP, tests/windows/test_release.sh).
# Extra arguments go to gomocup_check (e.g. --turn-ms 5000 --match-ms 120000
# --games 20 for the tournament measurements of docs/benchmarks.md).
# --formats LIST (e.g. all, or renju,caro) runs instead, for each of the Gomocup
# manager's pre-submission formats (tools/gomocup_manager.h), gomocup_check
# --format F on the .exe: its position checks, sent as the manager sends them,
# then the extra arguments' --games (default 0) games the manager's way against
# the .exe itself, every move judged by the manager's referee.
#
# usage: tools/test_windows_engine.sh [--zip ZIP] [--build-dir DIR] [--bin-dir DIR] [--keep DIR]
#                                     [--formats all|F,F...] [--about-version V] [gomocup_check args]
# Needs: g++-mingw-w64-x86-64-posix (for the build), wine64.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
zip=""
build_dir="$root/build-win"
bin_dir="$root/build/bin"
keep=""
formats=""
about_version=""
check_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --zip) zip="$2"; shift ;;
    --build-dir) build_dir="$2"; shift ;;
    --bin-dir) bin_dir="$2"; shift ;;
    --keep) keep="$2"; shift ;;
    --formats) formats="$2"; shift ;;
    --about-version) about_version="$2"; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    *) check_args+=("$1") ;;
  esac
  shift
done

wine="$(command -v wine64 || true)"
[ -n "$wine" ] || wine=/usr/lib/wine/wine64
[ -x "$wine" ] || { echo "$0: wine64 not found (apt-get install wine64)" >&2; exit 1; }
wineserver="$(dirname "$wine")/wineserver"
[ -x "$wineserver" ] || wineserver="$(command -v wineserver || echo /usr/lib/wine/wineserver)"
[ -x "$bin_dir/gomocup_check" ] || { echo "$0: no $bin_dir/gomocup_check (build the LibTorch build first)" >&2; exit 1; }
[ -x "$bin_dir/pbrain-gomoku-zero" ] || { echo "$0: no $bin_dir/pbrain-gomoku-zero" >&2; exit 1; }

work="$(mktemp -d)"
export WINEPREFIX="$work/wineprefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree=;mshtml="
cleanup() {
  "$wineserver" -k 2>/dev/null || true
  if [ -n "$keep" ]; then mkdir -p "$keep" && cp -r "$work/engine" "$work"/*.log "$keep"/ 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

t0=$(date +%s)
if [ -z "$zip" ]; then
  zip="$work/pbrain-gomoku-zero.zip"
  # The cross build in its own folder (a relative one is under the checkout).
  case "$build_dir" in /*) ;; *) build_dir="$root/$build_dir" ;; esac
  mkdir -p "$build_dir"
  cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DGOMOKU_WITH_TORCH=OFF \
        -DCMAKE_TOOLCHAIN_FILE="$root/cmake/mingw-w64-x86_64.cmake" >/dev/null
  cmake --build "$build_dir" -j "${JOBS:-$(nproc)}" --target pbrain-gomoku-zero >/dev/null 2>"$work/build.log" ||
    { cat "$work/build.log" >&2; exit 1; }
  "$root/tools/make_gomocup_folder.sh" --windows --binary "$build_dir/bin/pbrain-gomoku-zero.exe" "$zip"
fi
t1=$(date +%s)

# An empty folder with the ZIP's contents and nothing else; a fresh prefix.
mkdir -p "$work/engine"
(cd "$work/engine" && /usr/bin/python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(".")' "$zip")
# A wineserver that stays up between games, started before anything else
# uses the prefix: by default it exits a few seconds after its last client,
# and a brain starting just then lost its connection ("wine client error:
# recvmsg: Connection reset by peer", exit status 1 before START: once in 20
# games, 2026-12-06), a failure of wine, not of the brain.
mkdir -p "$WINEPREFIX"
"$wineserver" -p
"$wine" wineboot --init >/dev/null 2>&1 || true
t2=$(date +%s)

# The version the .exe says it is, from the ZIP's own folder.
about_status=0
if [ -n "$about_version" ]; then
  about="$(printf 'ABOUT\r\nEND\r\n' | "$wine" "$work/engine/pbrain-gomoku-zero.exe" 2>/dev/null | tr -d '\r' | grep '^name=' || true)"
  case "$about" in
    *"version=\"$about_version\""*) echo "test_windows_engine: ABOUT under wine: $about" ;;
    *) echo "FAIL ABOUT under wine answered '$about', expected version=\"$about_version\""; about_status=1 ;;
  esac
fi

if [ -n "$formats" ]; then
  [ "$formats" = all ] && formats="freestyle20,fastgame,freestyle15,standard,renju,caro"
  status=$about_status
  games=(--games 0)
  for a in "${check_args[@]}"; do [ "$a" = --games ] && games=(); done
  for f in ${formats//,/ }; do
    "$bin_dir/gomocup_check" --engine "$wine $work/engine/pbrain-gomoku-zero.exe" --format "$f" "${games[@]}" \
      --no-protocol --stderr "$work/engines.log" "${check_args[@]}" || status=1
  done
  [ $status -eq 0 ] && echo "test_windows_engine: passed"
  echo "test_windows_engine: build+zip $((t1 - t0)) s, unpack+wine prefix $((t2 - t1)) s, checks $(( $(date +%s) - t2 )) s"
  exit $status
fi

# A net's league from its name (NAME-SIZExSIZE-RULE-DATE.pt): "RULE SIZE", nothing for other files.
league_of() { echo "$1" | sed -n 's/.*-\([0-9]*\)x[0-9]*-\([a-z][a-z-]*[a-z]\)-[0-9-]*\.pt$/\2 \1/p'; }
# The leagues of the folder's nets, one game each (gomocup_check --rules RULE:SIZE,...).
leagues="$(for f in $(ls "$work/engine"); do league_of "$f"; done | sort -u | tr ' ' ':' | paste -sd, -)"
[ -n "$leagues" ] || { echo "$0: the ZIP holds no net" >&2; exit 1; }
games="$(echo "$leagues" | tr ',' '\n' | wc -l)"
echo "test_windows_engine: leagues $leagues"

set +e
# The brains log to stderr only when asked (a GUI never reads it): the checks
# below read which net played each game there.
export GOMOKU_LOG_LEVEL=info
"$bin_dir/gomocup_check" --engine "$wine $work/engine/pbrain-gomoku-zero.exe" \
  --opponent "$bin_dir/pbrain-gomoku-zero --settings $work/engine/pbrain-gomoku-zero.json" \
  --stderr "$work/engines.log" --games "$games" --rules "$leagues" \
  --turn-ms 1000 --match-ms 30000 --opponent-turn-ms 500 "${check_args[@]}"
status=$?
[ $about_status -eq 0 ] || status=1
set -e
# Each league's game was played by its own net, in both brains (the engine
# logs the net it picks for a game: common/match/evaluator_source.h).
for net in $(cd "$work/engine" && ls *.pt); do
  read -r rule size <<< "$(league_of "$net")"
  league="${size}x${size} $rule"
  picked="$(grep -c "$net plays this $league game" "$work/engines.log" || true)"
  if [ "$picked" -lt 2 ]; then
    echo "FAIL the $league game was not played by $net in both brains ($picked log lines)"
    status=1
  fi
done
unset GOMOKU_LOG_LEVEL
set +e
# The conformance table of docs/engine.md ("What the GUIs send") on the .exe:
# the same rows as the Linux entry test_gui_conformance, the engine started
# through wine, this machine's paths under wine's Z: drive.
tests_engine="$(dirname "$bin_dir")/tests/tests_engine"
if [ -x "$tests_engine" ]; then
  GZ_ENGINE_COMMAND="$wine $work/engine/pbrain-gomoku-zero.exe" GZ_ENGINE_PATH_PREFIX="Z:" \
    "$tests_engine" --filenames-as-tags "[#test_gui_conformance]" > "$work/conformance.log" 2>&1
  if [ $? -ne 0 ]; then
    echo "FAIL the conformance table under wine:"
    tail -n 60 "$work/conformance.log"
    status=1
  else
    echo "test_windows_engine: conformance table passed ($(grep -o 'All tests passed.*' "$work/conformance.log"))"
  fi
else
  echo "FAIL no $tests_engine (build the tests first)"
  status=1
fi
set -e
[ $status -eq 0 ] && echo "test_windows_engine: passed"
t3=$(date +%s)
echo "test_windows_engine: build+zip $((t1 - t0)) s, unpack+wine prefix $((t2 - t1)) s, checks $((t3 - t2)) s"
if [ $status -ne 0 ]; then
  echo "--- the engines' stderr (last 40 lines)" >&2
  tail -n 40 "$work/engines.log" >&2 || true
fi
exit $status
