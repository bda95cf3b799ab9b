#!/usr/bin/env bash
# Engine-only set-up: from a fresh clone, installs only what the Gomocup
# engine pbrain-gomoku-zero needs (no LibTorch, no trainer, no browser), then
# builds
#   build-lite/bin/pbrain-gomoku-zero         the Linux engine, static (engine-only
#                                             build, cmake/engine_only.cmake)
#   build-lite/pbrain-gomoku-zero/            its Gomocup folder: the brain, settings,
#                                             every league's net, README.txt, licences
#   build-win/pbrain-gomoku-zero-windows-x64.zip  the Windows ZIP for Gomocup, Piskvork
#                                             and Yixin-Board (cross-compiled, static)
# and prints where they are.  Idempotent and non-interactive, as launch/setup.sh.
#
#   --no-windows  the Linux engine only (no mingw-w64 package, no ZIP)
#   --with-wine   also installs wine64 and plays one move with the ZIP's .exe
#                 under a fresh wine prefix (the full check of the ZIP,
#                 tools/test_windows_engine.sh, needs the LibTorch build of
#                 launch/setup.sh for its Gomocup manager)
# JOBS=N limits the build's parallel jobs (default: every core).
# The whole trainer (LibTorch, tests, dashboard): launch/setup.sh instead.
#
# usage: launch/setup-engine.sh [--no-windows] [--with-wine]
set -euo pipefail
cd "$(dirname "$0")/.."

windows=1
wine=0
while [ $# -gt 0 ]; do
  case "$1" in
    --no-windows) windows=0 ;;
    --with-wine) wine=1 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    *) echo "usage: $0 [--no-windows] [--with-wine]" >&2; exit 2 ;;
  esac
  shift
done
if [ "$wine" = 1 ] && [ "$windows" = 0 ]; then
  echo "setup-engine: --with-wine tests the Windows ZIP: it needs the Windows build (drop --no-windows)" >&2
  exit 2
fi

# What the engine-only build uses (cmake/engine_only.cmake,
# cmake/header_only_deps.cmake): a C++20 compiler with static libraries
# (build-essential: g++, libc6-dev, libstdc++'s .a), CMake, and the headers of
# nlohmann_json, spdlog and fmt (copied into the build, header-only).
PACKAGES=(
  build-essential cmake
  nlohmann-json3-dev libspdlog-dev libfmt-dev
  python3                     # tools/make_gomocup_folder.sh writes the ZIP with Python's zipfile
)
if [ "$windows" = 1 ]; then PACKAGES+=(g++-mingw-w64-x86-64-posix); fi  # the Windows cross build
if [ "$wine" = 1 ]; then PACKAGES+=(wine64); fi                          # runs the .exe here

# shellcheck source=launch/apt_packages.sh
. launch/apt_packages.sh
InstallMissing setup-engine "${PACKAGES[@]}"

version="$(head -n 1 VERSION)"
t0=$(date +%s)
echo "setup-engine: building the Linux engine (build-lite/)"
tools/make_gomocup_folder.sh --lite build-lite/pbrain-gomoku-zero
zip=""
if [ "$windows" = 1 ]; then
  echo "setup-engine: building the Windows engine (build-win/)"
  zip=build-win/pbrain-gomoku-zero-windows-x64.zip
  tools/make_gomocup_folder.sh --windows "$zip"
fi

if [ "$wine" = 1 ]; then
  echo "setup-engine: the ZIP's .exe under wine (fresh prefix)"
  work="$(mktemp -d)"
  wine_bin="$(command -v wine64 || echo /usr/lib/wine/wine64)"
  wineserver="$(dirname "$wine_bin")/wineserver"
  [ -x "$wineserver" ] || wineserver="$(command -v wineserver || echo /usr/lib/wine/wineserver)"
  trap 'WINEPREFIX="$work/prefix" "$wineserver" -k 2>/dev/null || true; rm -rf "$work"' EXIT
  mkdir -p "$work/engine"
  /usr/bin/python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$zip" "$work/engine"
  export WINEPREFIX="$work/prefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree=;mshtml="
  "$wine_bin" wineboot --init >/dev/null 2>&1 || true
  # END stops a search at once: it is sent once the move came (or after 60 s).
  coproc BRAIN { "$wine_bin" "$work/engine/pbrain-gomoku-zero.exe" 2>/dev/null; }
  brain_pid=$BRAIN_PID brain_in=${BRAIN[1]} brain_out=${BRAIN[0]}
  printf 'ABOUT\r\nSTART 15\r\nINFO timeout_turn 2000\r\nBEGIN\r\n' >&"$brain_in"
  replies=""
  while IFS= read -r -t 60 line <&"$brain_out"; do
    line="${line%$'\r'}"
    replies+="$line"$'\n'
    [[ "$line" =~ ^[0-9]+,[0-9]+$ ]] && break
  done
  printf 'END\r\n' >&"$brain_in" || true
  wait "$brain_pid" || true
  if echo "$replies" | grep -q "version=\"$version\"" && echo "$replies" | grep -qE '^[0-9]+,[0-9]+$'; then
    echo "setup-engine: under wine: $(echo "$replies" | grep '^name='); first move $(echo "$replies" | grep -E '^[0-9]+,[0-9]+$')"
  else
    echo "setup-engine: the .exe under wine did not answer ABOUT and a move:" >&2
    echo "$replies" >&2
    exit 1
  fi
fi

echo "setup-engine: done in $(( $(date +%s) - t0 )) s (version $version)"
echo "  Linux engine:  build-lite/bin/pbrain-gomoku-zero (static; plays the nets of nets/ with no settings)"
echo "  Linux folder:  build-lite/pbrain-gomoku-zero/ (a Gomocup manager loads it as it is)"
if [ -n "$zip" ]; then
  echo "  Windows ZIP:   $zip ($(stat -c %s "$zip") bytes; Gomocup, Piskvork, Yixin-Board)"
fi
echo "  release set:   tools/release.sh VERSION"
