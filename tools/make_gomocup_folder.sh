#!/usr/bin/env bash
# Builds a folder a Gomocup (Piskvork-protocol) manager can load as-is
# (docs/engine.md "A folder for a Gomocup manager"):
#
#   OUT/pbrain-gomoku-zero        the brain (managers find brains by the pbrain- prefix)
#   OUT/pbrain-gomoku-zero.json   its settings: {"weights": "<checkpoint file name>"}
#   OUT/<checkpoint>              the weights: CHECKPOINT, else the newest shipped
#                                 15x15 freestyle net of nets/ (--baseline: none, the
#                                 pure-MCTS baseline, settings {"weights": "none"}; --classical N: none,
#                                 the classical player with N nodes a move, settings
#                                 {"player": "classical:N"}, docs/engine.md "The
#                                 classical player")
#   OUT/<league nets>             without CHECKPOINT: the newest shipped net of every
#                                 other league of nets/ (one per SIZExSIZE-RULE name),
#                                 listed as "league_nets" in the settings; the engine
#                                 plays each game with the net of its rule and size
#                                 (docs/engine.md "Nets for every league")
#   OUT/README.txt                what the folder holds and the libraries the machine needs
#   OUT/LICENSE, OUT/THIRD_PARTY.md  the licences: the project's (MIT, nets included)
#                                 and the libraries' the brain carries
#
# With --bundle-libs the shared libraries the brain links (LibTorch and the
# rest, everything but the C library and the loader) are copied to OUT/lib and
# OUT/pbrain-gomoku-zero is a launcher that points the loader there and runs
# OUT/lib/pbrain-gomoku-zero.bin with the folder's settings file.  Without it
# the manager's machine needs the same libraries installed (Debian 12:
# apt-get install libtorch-dev libspdlog1.10 or a matching LibTorch).
#
# Builds without LibTorch (docs/engine.md "Builds without LibTorch"): the
# engine-only build (GOMOKU_WITH_TORCH=OFF) links statically and runs the net
# on its own forward, so the folder needs nothing installed:
#   --lite      the Linux build (build-lite/): OUT/pbrain-gomoku-zero, static
#   --windows   the Windows x86-64 build (build-win/, cross-compiled with
#               g++-mingw-w64-x86-64-posix): OUT is a ZIP as a Gomocup
#               organiser expects it, pbrain-gomoku-zero.exe at its root with
#               its settings, the net and README.txt, at most 8 MB
# Both configure and build their folder unless --binary names the binary;
# --build-dir DIR builds there instead, and --version V configures the build
# with -DGOMOKU_VERSION=V (what ABOUT answers; without it the build folder's
# setting, by default the VERSION file) and names it in README.txt
# (tools/release.sh passes both).
#
# The net plays with the search settings its checkpoint carries (docs/engine.md
# "Search settings"); the folder needs nothing else.
#
# usage: tools/make_gomocup_folder.sh [--bundle-libs | --lite | --windows] [--binary PATH | --build-dir DIR]
#                                     [--version V] [--baseline | --classical N] OUT [CHECKPOINT]
set -euo pipefail

usage() {
  echo "usage: $0 [--bundle-libs | --lite | --windows] [--binary PATH | --build-dir DIR] [--version V] [--baseline | --classical N] OUT [CHECKPOINT]" >&2
  exit 2
}

root="$(cd "$(dirname "$0")/.." && pwd)"
binary=""
build_dir=""
version=""
bundle=0
baseline=0
classical=""
flavour=torch  # torch | lite | windows
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --bundle-libs) bundle=1 ;;
    --lite) flavour=lite ;;
    --windows) flavour=windows ;;
    --baseline) baseline=1 ;;
    --classical) [ $# -ge 2 ] || usage; classical="$2"; shift
      case "$classical" in ''|*[!0-9]*|0*) echo "$0: --classical needs a node count (a positive integer), got '$classical'" >&2; exit 2 ;; esac ;;
    --binary) [ $# -ge 2 ] || usage; binary="$2"; shift ;;
    --build-dir) [ $# -ge 2 ] || usage; build_dir="$2"; shift ;;
    --version) [ $# -ge 2 ] || usage; version="$2"; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    -*) usage ;;
    *) args+=("$1") ;;
  esac
  shift
done
[ ${#args[@]} -ge 1 ] && [ ${#args[@]} -le 2 ] || usage
out="${args[0]}"
checkpoint="${args[1]:-}"
if [ -n "$checkpoint" ] && [ "$baseline" = 1 ]; then usage; fi
if [ -n "$classical" ] && { [ -n "$checkpoint" ] || [ "$baseline" = 1 ]; }; then usage; fi
[ -z "$classical" ] || baseline=1  # no net either
league_nets=()
if [ -z "$checkpoint" ] && [ "$baseline" = 0 ]; then
  # The newest shipped 15x15 freestyle net (names end in their date), and the
  # newest of every other league (NAME-SIZExSIZE-RULE-YYYY-MM-DD.pt).
  checkpoint="$(ls "$root"/nets/*15x15-freestyle*.pt 2>/dev/null | sort | tail -n 1 || true)"
  if [ -z "$checkpoint" ]; then echo "$0: no shipped net in $root/nets; making a pure-MCTS baseline folder" >&2; fi
  while IFS= read -r league; do
    [ -n "$league" ] || continue
    newest="$(ls "$root"/nets/*-"$league"-????-??-??.pt | sort | tail -n 1)"
    [ "$newest" = "$checkpoint" ] || league_nets+=("$newest")
  done < <(ls "$root"/nets/*.pt 2>/dev/null | sed -n 's/.*-\([0-9]*x[0-9]*-[a-z][a-z-]*[a-z]\)-[0-9]\{4\}-[0-9][0-9]-[0-9][0-9]\.pt$/\1/p' | sort -u)
fi

if [ -n "$checkpoint" ] && [ ! -f "$checkpoint" ]; then
  echo "$0: checkpoint '$checkpoint' does not exist" >&2
  exit 1
fi
if [ "$flavour" != torch ] && [ "$bundle" = 1 ]; then usage; fi
if [ -n "$build_dir" ] && { [ "$flavour" = torch ] || [ -n "$binary" ]; }; then
  echo "$0: --build-dir is for --lite and --windows, without --binary" >&2; exit 2
fi
if [ -n "$version" ] && [ "$flavour" = torch ]; then
  echo "$0: --version is for --lite and --windows (the LibTorch build's version is build/'s)" >&2; exit 2
fi

# The engine-only builds: configure and build their folder (cmake/engine_only.cmake).
build_engine_only() {  # build-folder [cmake args...]
  local dir="$1"
  shift
  case "$dir" in /*) ;; *) dir="$root/$dir" ;; esac
  [ -z "$version" ] || set -- "$@" -DGOMOKU_VERSION="$version"
  # The ISA is passed every time, so a build folder configured before generic became the
  # default (cached avx2) builds the generic brain too; GOMOKU_ENGINE_ISA=avx2 in the
  # environment asks for the AVX2-only one (cmake/engine_only.cmake).
  cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DGOMOKU_WITH_TORCH=OFF \
    -DGOMOKU_ENGINE_ISA="${GOMOKU_ENGINE_ISA:-generic}" "$@" >/dev/null
  cmake --build "$dir" -j "${JOBS:-$(nproc)}" --target pbrain-gomoku-zero >/dev/null
}
exe_name=pbrain-gomoku-zero
case "$flavour" in
  torch) binary="${binary:-$root/build/bin/pbrain-gomoku-zero}" ;;
  lite)
    if [ -z "$binary" ]; then
      build_dir="${build_dir:-build-lite}"
      build_engine_only "$build_dir"
      binary="$(cd "$root" && cd "$build_dir" && pwd)/bin/pbrain-gomoku-zero"
    fi ;;
  windows)
    exe_name=pbrain-gomoku-zero.exe
    case "$out" in *.zip) ;; *) echo "$0: --windows makes a ZIP: OUT must end in .zip" >&2; exit 2 ;; esac
    if [ -z "$binary" ]; then
      build_dir="${build_dir:-build-win}"
      build_engine_only "$build_dir" -DCMAKE_TOOLCHAIN_FILE="$root/cmake/mingw-w64-x86_64.cmake"
      binary="$(cd "$root" && cd "$build_dir" && pwd)/bin/pbrain-gomoku-zero.exe"
    fi ;;
esac
[ -f "$binary" ] || { echo "$0: no brain binary at $binary (build it: cmake --build build --target pbrain-gomoku-zero)" >&2; exit 1; }

zip_out=""
if [ "$flavour" = windows ]; then  # the folder is staged, then zipped to OUT
  zip_out="$(cd "$(dirname "$out")" && pwd)/$(basename "$out")"
  out="$(mktemp -d)"
  trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out"
out="$(cd "$out" && pwd)"

weights=""
league_names=()
if [ -n "$checkpoint" ]; then
  weights="$(basename "$checkpoint")"
  cp -f "$checkpoint" "$out/$weights"
  for net in "${league_nets[@]}"; do
    league_names+=("$(basename "$net")")
    cp -f "$net" "$out/$(basename "$net")"
  done
  if [ ${#league_names[@]} -eq 0 ]; then
    printf '{"weights": "%s"}\n' "$weights" > "$out/pbrain-gomoku-zero.json"
  else
    list="$(printf '"%s", ' "${league_names[@]}")"
    printf '{"weights": "%s",\n "league_nets": [%s]}\n' "$weights" "${list%, }" > "$out/pbrain-gomoku-zero.json"
  fi
elif [ -n "$classical" ]; then
  printf '{"player": "classical:%s"}\n' "$classical" > "$out/pbrain-gomoku-zero.json"
else
  printf '{"weights": "none"}\n' > "$out/pbrain-gomoku-zero.json"
fi

# The licences: the project's (MIT, its nets included) and the third-party
# libraries' (the static builds carry the GCC runtime, mingw-w64's, glibc,
# nlohmann_json, spdlog and fmt).
cp -f "$root/LICENSE" "$root/THIRD_PARTY.md" "$out/"

# Libraries the brain needs, as the loader resolves them here (none: static).
libs=""
if [ "$flavour" = torch ]; then libs="$(ldd "$binary" | awk '/=> \// {print $3}' | sort -u)"; fi

if [ "$bundle" = 1 ]; then
  mkdir -p "$out/lib"
  cp -f "$binary" "$out/lib/pbrain-gomoku-zero.bin"
  for lib in $libs; do
    case "$(basename "$lib")" in
      libc.so.*|libm.so.*|libdl.so.*|libpthread.so.*|librt.so.*|ld-linux*) ;;  # the machine's own
      *) cp -fL "$lib" "$out/lib/" ;;
    esac
  done
  cat > "$out/pbrain-gomoku-zero" <<'EOF'
#!/bin/sh
# Launcher: the bundled libraries, the folder's settings file.
dir="$(cd "$(dirname "$0")" && pwd)"
LD_LIBRARY_PATH="$dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$dir/lib/pbrain-gomoku-zero.bin" --settings "$dir/pbrain-gomoku-zero.json" "$@"
EOF
  chmod +x "$out/pbrain-gomoku-zero"
elif [ "$flavour" = torch ]; then
  rm -f "$out/lib/pbrain-gomoku-zero.bin"
  cp -f "$binary" "$out/pbrain-gomoku-zero"
else
  # Static and stripped (the symbols stay in the build folder's copy).
  strip_tool=strip
  [ "$flavour" = windows ] && strip_tool=x86_64-w64-mingw32-strip
  "$strip_tool" -o "$out/$exe_name" "$binary"
fi

{
  echo "gomoku-zero brain for a Gomocup (Piskvork-protocol) manager.${version:+ Version $version.}"
  echo
  case "$flavour" in
    torch) echo "  pbrain-gomoku-zero        the brain (Linux x86-64; Gomocup new protocol on stdin/stdout)" ;;
    lite) echo "  pbrain-gomoku-zero        the brain (Linux x86-64, static; Gomocup new protocol on stdin/stdout)" ;;
    windows) echo "  pbrain-gomoku-zero.exe    the brain (Windows x86-64, static; Gomocup new protocol)" ;;
  esac
  echo "  pbrain-gomoku-zero.json   settings read at start (relative paths: this folder)"
  echo "  LICENSE                   MIT, the program and its nets"
  echo "  THIRD_PARTY.md            the third-party libraries (those inside a static brain) and their licences"
  if [ -n "$weights" ]; then
    echo "  $weights   the network (plays only the board size and encoder it was trained for)"
    for name in "${league_names[@]}"; do
      echo "  $name   a league net (any size 5..22; the engine picks it for its rule and size)"
    done
  elif [ -n "$classical" ]; then
    echo "  (no checkpoint: the classical player, alpha-beta with the threat solver, $classical nodes a move"
    echo "   or the turn's time, every size 5..22)"
  else
    echo "  (no checkpoint: the pure-MCTS baseline, every size 5..22)"
  fi
  echo
  echo "Rules: INFO rule 0 freestyle, 1 exactly five, 4 renju, 8 caro (an overline wins), 9 caro with exactly five; bit 2 (continuous game) accepted."
  echo "Swap2: SWAP2BOARD answered (three stones / SWAP / one or two stones / SWAP or the sixth)."
  echo
  if [ "$flavour" != torch ]; then
    echo "Nothing to install: the brain is linked statically and runs the net on its own CPU"
    echo "forward (no LibTorch) on any x86-64 processor, with AVX2 and FMA where it has them."
    echo "Memory: it keeps its search tree within a third of INFO max_memory (512 MiB without one)."
  elif [ "$bundle" = 1 ]; then
    echo "Shared libraries: bundled in lib/ (the C library and the loader are the machine's)."
  else
    echo "Shared libraries the machine must provide (as resolved on the build machine):"
    for lib in $libs; do echo "  $lib"; done
  fi
} > "$out/README.txt"

if [ -n "$zip_out" ]; then
  # Gomocup's limit for a brain's ZIP without the organisers' approval.
  rm -f "$zip_out"
  (cd "$out" && /usr/bin/python3 -c 'import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
    for name in sys.argv[2:]: z.write(name)' "$zip_out" *)
  bytes="$(stat -c %s "$zip_out")"
  echo "$zip_out: $(cd "$out" && echo *) ($bytes bytes)"
  if [ "$bytes" -gt $((8 * 1024 * 1024)) ]; then
    echo "$0: $zip_out is over Gomocup's 8 MB" >&2
    exit 1
  fi
  exit 0
fi
echo "$out: $exe_name, pbrain-gomoku-zero.json, LICENSE, THIRD_PARTY.md${weights:+, $weights}$(for n in "${league_names[@]}"; do printf ', %s' "$n"; done)$([ "$bundle" = 1 ] && echo ", lib/")"
