#!/usr/bin/env bash
# The release set: one folder a maintainer can publish as it is (default
# release/VERSION/, ignored by git):
#
#   pbrain-gomoku-zero-VERSION-windows-x64.zip     the Gomocup ZIP: the static .exe, its
#                                                  settings, every league's net, README.txt,
#                                                  LICENSE, THIRD_PARTY.md (at most 8 MB)
#   pbrain-gomoku-zero-VERSION-linux-x64.tar.gz    the same folder for Linux x86-64 (the static
#                                                  engine-only build), in a folder of that name
#   play.md                                        the player's page (docs/play.md)
#   NETS.md                                        the shipped nets' cards (from nets/README.md)
#   LICENSE, THIRD_PARTY.md                        the licences
#   SHA256SUMS                                     sha256sum -c SHA256SUMS checks the rest
#
# Both builds are the engine-only flavour (cmake/engine_only.cmake, generic
# x86-64 ISA), configured with -DGOMOKU_VERSION=VERSION, so ABOUT (and the
# analysis engine's query_version) answers VERSION; the folders are made by
# tools/make_gomocup_folder.sh --windows / --lite.  The Linux binary's ABOUT is
# checked here; the .exe's under wine by ctest's test_release
# (tests/windows/test_release.sh), which also plays every league of the ZIP.
#
# VERSION is a semantic version, MAJOR.MINOR.PATCH[-PRERELEASE] (1.0.0,
# 1.1.0-rc.1); the VERSION file at the root is the version of ordinary builds:
# bump it to VERSION in the release's commit.  docs/play.md must exist (the
# release fails without it).  --lite-build-dir / --win-build-dir: the build
# folders (default build-release/lite and build-release/win, kept between
# releases; JOBS=N limits the build's parallel jobs).
#
# usage: tools/release.sh VERSION [--out DIR] [--lite-build-dir DIR] [--win-build-dir DIR]
# Needs: the packages of launch/setup-engine.sh (g++, cmake, the header-only
# libraries, g++-mingw-w64-x86-64-posix, python3).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
usage() {
  echo "usage: $0 VERSION [--out DIR] [--lite-build-dir DIR] [--win-build-dir DIR]" >&2
  exit 2
}
version=""
out=""
lite_dir="$root/build-release/lite"
win_dir="$root/build-release/win"
while [ $# -gt 0 ]; do
  case "$1" in
    --out) [ $# -ge 2 ] || usage; out="$2"; shift ;;
    --lite-build-dir) [ $# -ge 2 ] || usage; lite_dir="$2"; shift ;;
    --win-build-dir) [ $# -ge 2 ] || usage; win_dir="$2"; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    -*) usage ;;
    *) [ -z "$version" ] || usage; version="$1" ;;
  esac
  shift
done
[ -n "$version" ] || usage
# The form the top-level CMakeLists.txt accepts too.
semver='^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$'
if ! [[ "$version" =~ $semver ]]; then
  echo "release: '$version' is not a semantic version MAJOR.MINOR.PATCH[-PRERELEASE] (e.g. 1.0.0 or 1.1.0-rc.1;" \
       "no leading v, no +build)" >&2
  exit 2
fi
play="$root/docs/play.md"
if [ ! -f "$play" ]; then
  echo "release: docs/play.md (the player's page the release ships as play.md) is missing; write it first" >&2
  exit 1
fi
file_version="$(head -n 1 "$root/VERSION")"
if [ "$file_version" != "$version" ]; then
  echo "release: note: the VERSION file says $file_version; this release is $version (bump VERSION in the release's commit)" >&2
fi
out="${out:-$root/release/$version}"
if [ -e "$out" ] && [ -n "$(ls -A "$out")" ]; then
  echo "release: $out exists and is not empty; remove it or pass --out" >&2
  exit 1
fi
mkdir -p "$out"
out="$(cd "$out" && pwd)"
for d in lite_dir win_dir; do
  case "${!d}" in /*) ;; *) printf -v "$d" '%s' "$PWD/${!d}" ;; esac
done

name="pbrain-gomoku-zero-$version"
zip="$name-windows-x64.zip"
tarball="$name-linux-x64.tar.gz"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
export GOMOKU_ENGINE_ISA=generic  # runs on every x86-64 CPU (cmake/engine_only.cmake)

t0=$(date +%s)
echo "release: the Windows ZIP (cross build in $win_dir)"
"$root/tools/make_gomocup_folder.sh" --windows --build-dir "$win_dir" --version "$version" "$out/$zip"
echo "release: the Linux folder (build in $lite_dir)"
"$root/tools/make_gomocup_folder.sh" --lite --build-dir "$lite_dir" --version "$version" "$stage/$name-linux-x64"

# The Linux binary answers ABOUT with VERSION (the .exe: tests/windows/test_release.sh, under wine).
about="$(printf 'ABOUT\nEND\n' | "$stage/$name-linux-x64/pbrain-gomoku-zero" 2>/dev/null | grep '^name=' || true)"
case "$about" in
  *"version=\"$version\""*) echo "release: ABOUT $about" ;;
  *) echo "release: the Linux binary's ABOUT answered '$about', not version \"$version\"" >&2; exit 1 ;;
esac

# A reproducible tarball: sorted, no owner, every file dated by the commit.
mtime="$(git -C "$root" log -1 --format=%ct 2>/dev/null || date +%s)"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$mtime" -C "$stage" -cf - "$name-linux-x64" |
  gzip -n -9 > "$out/$tarball"

cp -f "$play" "$out/play.md"
cp -f "$root/LICENSE" "$root/THIRD_PARTY.md" "$out/"
# The cards of the nets the release ships: nets/README.md's section of each,
# and any other section naming one (how the league nets were made).
/usr/bin/python3 - "$root/nets/README.md" "$version" $(cd "$stage/$name-linux-x64" && ls *.pt) > "$out/NETS.md" <<'EOF'
import re, sys
readme, version, nets = sys.argv[1], sys.argv[2], sys.argv[3:]
sections, title, lines = [], None, []
for line in open(readme, encoding="utf-8").read().splitlines():
    if line.startswith("## "):
        sections.append((title, lines))
        title, lines = line[3:].strip(), []
    lines.append(line)
sections.append((title, lines))
print(f"# The nets of pbrain-gomoku-zero {version}\n")
print("Each net's card from nets/README.md of the source at this version (links are relative to")
print("that folder). The engine plays each game with the net of its rule and board size.\n")
missing = [n for n in nets if n not in {t for t, _ in sections}]
if missing:
    sys.exit("release: no card in nets/README.md for " + ", ".join(missing))
for t, body in sections:
    if t is not None and (t in nets or (not t.endswith(".pt") and any(n in "\n".join(body) for n in nets))):
        print("\n".join(body).rstrip() + "\n")
EOF

(cd "$out" && sha256sum -- "$zip" "$tarball" play.md NETS.md LICENSE THIRD_PARTY.md > SHA256SUMS)
echo "release: $out ($(( $(date +%s) - t0 )) s)"
(cd "$out" && ls -l --time-style=+ | tail -n +2 | awk '{printf "  %10d  %s\n", $5, $NF}')
