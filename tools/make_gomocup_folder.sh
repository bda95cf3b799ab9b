#!/usr/bin/env bash
# Builds a folder a Gomocup (Piskvork-protocol) manager can load as-is
# (docs/engine.md "A folder for a Gomocup manager"):
#
#   OUT/pbrain-gomoku-zero        the brain (managers find brains by the pbrain- prefix)
#   OUT/pbrain-gomoku-zero.json   its settings: {"weights": "<checkpoint file name>"}
#   OUT/<checkpoint>              the weights: CHECKPOINT, else the newest shipped
#                                 15x15 freestyle net of nets/ (--baseline: none, the
#                                 pure-MCTS baseline, settings {})
#   OUT/README.txt                what the folder holds and the libraries the machine needs
#
# With --bundle-libs the shared libraries the brain links (LibTorch and the
# rest, everything but the C library and the loader) are copied to OUT/lib and
# OUT/pbrain-gomoku-zero is a launcher that points the loader there and runs
# OUT/lib/pbrain-gomoku-zero.bin with the folder's settings file.  Without it
# the manager's machine needs the same libraries installed (Debian 12:
# apt-get install libtorch-dev libspdlog1.10 or a matching LibTorch).
#
# The net plays with the search settings its checkpoint carries (docs/engine.md
# "Search settings"); the folder needs nothing else.
#
# usage: tools/make_gomocup_folder.sh [--bundle-libs] [--binary PATH] [--baseline] OUT [CHECKPOINT]
set -euo pipefail

usage() { echo "usage: $0 [--bundle-libs] [--binary PATH] [--baseline] OUT [CHECKPOINT]" >&2; exit 2; }

root="$(cd "$(dirname "$0")/.." && pwd)"
binary="$root/build/bin/pbrain-gomoku-zero"
bundle=0
baseline=0
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --bundle-libs) bundle=1 ;;
    --baseline) baseline=1 ;;
    --binary) [ $# -ge 2 ] || usage; binary="$2"; shift ;;
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
if [ -z "$checkpoint" ] && [ "$baseline" = 0 ]; then
  # The newest shipped 15x15 freestyle net (names end in their date).
  checkpoint="$(ls "$root"/nets/*15x15-freestyle*.pt 2>/dev/null | sort | tail -n 1 || true)"
  if [ -z "$checkpoint" ]; then echo "$0: no shipped net in $root/nets; making a pure-MCTS baseline folder" >&2; fi
fi

[ -x "$binary" ] || { echo "$0: no brain binary at $binary (build it: cmake --build build --target pbrain-gomoku-zero)" >&2; exit 1; }
if [ -n "$checkpoint" ] && [ ! -f "$checkpoint" ]; then
  echo "$0: checkpoint '$checkpoint' does not exist" >&2
  exit 1
fi
mkdir -p "$out"
out="$(cd "$out" && pwd)"

weights=""
if [ -n "$checkpoint" ]; then
  weights="$(basename "$checkpoint")"
  cp -f "$checkpoint" "$out/$weights"
  printf '{"weights": "%s"}\n' "$weights" > "$out/pbrain-gomoku-zero.json"
else
  printf '{}\n' > "$out/pbrain-gomoku-zero.json"
fi

# Libraries the brain needs, as the loader resolves them here.
libs="$(ldd "$binary" | awk '/=> \// {print $3}' | sort -u)"

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
else
  rm -f "$out/lib/pbrain-gomoku-zero.bin"
  cp -f "$binary" "$out/pbrain-gomoku-zero"
fi

{
  echo "gomoku-zero brain for a Gomocup (Piskvork-protocol) manager."
  echo
  echo "  pbrain-gomoku-zero        the brain (Linux x86-64; Gomocup new protocol on stdin/stdout)"
  echo "  pbrain-gomoku-zero.json   settings read at start (relative paths: this folder)"
  if [ -n "$weights" ]; then
    echo "  $weights   the network (plays only the board size and encoder it was trained for)"
  else
    echo "  (no checkpoint: the pure-MCTS baseline, every size 5..22)"
  fi
  echo
  echo "Rules: INFO rule 0 freestyle, 1 exactly five, 4 renju; bit 2 (continuous game) accepted."
  echo "Swap2: SWAP2BOARD answered (three stones / SWAP / one or two stones / SWAP or the sixth)."
  echo
  if [ "$bundle" = 1 ]; then
    echo "Shared libraries: bundled in lib/ (the C library and the loader are the machine's)."
  else
    echo "Shared libraries the machine must provide (as resolved on the build machine):"
    for lib in $libs; do echo "  $lib"; done
  fi
} > "$out/README.txt"

echo "$out: pbrain-gomoku-zero, pbrain-gomoku-zero.json${weights:+, $weights}$([ "$bundle" = 1 ] && echo ", lib/")"
