#!/usr/bin/env bash
# Builds the engine as WebAssembly (Debian's emscripten) and assembles the
# static site into build/browser/site/ (docs/browser.md):
#   index.html ...             browser/page/*, copied as they are (when there)
#   engine/engine-worker.js    the Web Worker (browser/wasm/engine-worker.js)
#   engine/gz-engine.js|.wasm  the engine (build-wasm/bin/)
#   nets/index.json, nets/*.pt the newest shipped net of each rule and size
# Idempotent; a second run with nothing changed takes a few seconds (make
# finds nothing to do, the copies are skipped where equal).
#   browser/build.sh [--site DIR] [--build-dir DIR] [--jobs N]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SITE="$ROOT/build/browser/site"
BUILD="$ROOT/build-wasm"
JOBS="${JOBS:-2}"
while (($#)); do
  case "$1" in
    --site) SITE="$2"; shift 2 ;;
    --build-dir) BUILD="$2"; shift 2 ;;
    --jobs) JOBS="$2"; shift 2 ;;
    *) echo "browser/build.sh: unknown argument '$1' (--site DIR, --build-dir DIR, --jobs N)" >&2; exit 2 ;;
  esac
done
for tool in emcmake emcc node; do
  command -v "$tool" >/dev/null || { echo "browser/build.sh: $tool not found (Debian: apt-get install emscripten nodejs)" >&2; exit 1; }
done

# Debian's emscripten runs its JS optimiser on node with Debian's node-acorn,
# which a nodejs not from Debian (NodeSource's) does not look for in
# /usr/share/nodejs.
export NODE_PATH="${NODE_PATH:+$NODE_PATH:}/usr/share/nodejs"

# -msimd128: the native forward's 8-float vectors become pairs of WASM SIMD128
# registers.  -fexceptions: the engine throws and catches (emscripten's
# default would abort at the first throw).  Both for every translation unit.
FLAGS="-msimd128 -fexceptions"
if [ ! -f "$BUILD/CMakeCache.txt" ] || ! grep -q "^CMAKE_CXX_FLAGS:STRING=$FLAGS\$" "$BUILD/CMakeCache.txt"; then
  emcmake cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DGOMOKU_WITH_TORCH=OFF \
    -DGOMOKU_BUILD_TESTS=OFF -DGOMOKU_BUILD_BENCH=OFF \
    "-DCMAKE_CXX_FLAGS=$FLAGS" >/dev/null
fi
cmake --build "$BUILD" -j "$JOBS" --target gz-engine

# The site: a fresh copy beside the old one, then swapped in, so a server
# never sees half a site.  cp -p keeps times; rsync is not assumed.
mkdir -p "$(dirname "$SITE")"
NEW="$SITE.new"
rm -rf "$NEW"
mkdir -p "$NEW/engine" "$NEW/nets"
if [ -d "$ROOT/browser/page" ] && [ -n "$(ls -A "$ROOT/browser/page")" ]; then
  cp -rp "$ROOT/browser/page/." "$NEW/"
fi
cp -p "$ROOT/browser/wasm/engine-worker.js" "$NEW/engine/"
cp -p "$BUILD/bin/gz-engine.js" "$BUILD/bin/gz-engine.wasm" "$NEW/engine/"
/usr/bin/python3 "$ROOT/browser/wasm/net_index.py" "$ROOT/nets" "$NEW/nets"
rm -rf "$SITE.old"
if [ -d "$SITE" ]; then mv "$SITE" "$SITE.old"; fi
mv "$NEW" "$SITE"
rm -rf "$SITE.old"
echo "browser/build.sh: site in $SITE ($(du -sk "$SITE" | cut -f1) KB)"
