#!/usr/bin/env bash
# ctest test_release: the release set as a maintainer publishes it, and its
# ZIP played as Gomocup plays it.
#   1. tools/release.sh VERSION into an empty folder (the cross build in the
#      folder the other windows entries share, the Linux engine-only build in
#      its own), and a bad VERSION refused by name;
#   2. the folder holds exactly the release's files, SHA256SUMS checks them
#      (sha256sum -c), the ZIP and the tarball hold the same folder (brain,
#      settings, README.txt, LICENSE, THIRD_PARTY.md, every league's net), the
#      ZIP is within Gomocup's 8 MB;
#   3. the tarball's Linux binary, unpacked alone, answers ABOUT with VERSION
#      and plays a move;
#   4. tools/test_windows_engine.sh --zip on the release ZIP: ABOUT under wine
#      answers VERSION, then the protocol script, one game of every league the
#      ZIP has a net for and the conformance table (tools/test_windows_engine.sh).
#
# usage: tests/windows/test_release.sh --version V --bin-dir DIR --lite-build-dir DIR
#                                      --win-build-dir DIR [test_windows_engine.sh args]
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
version=""
bin_dir=""
lite_dir=""
win_dir=""
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --version) version="$2"; shift ;;
    --bin-dir) bin_dir="$2"; shift ;;
    --lite-build-dir) lite_dir="$2"; shift ;;
    --win-build-dir) win_dir="$2"; shift ;;
    *) extra+=("$1") ;;
  esac
  shift
done
[ -n "$version" ] && [ -n "$bin_dir" ] && [ -n "$lite_dir" ] && [ -n "$win_dir" ] ||
  { echo "usage: $0 --version V --bin-dir DIR --lite-build-dir DIR --win-build-dir DIR [args]" >&2; exit 2; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL $*"; exit 1; }
t0=$(date +%s)

# 1. A bad version is refused by name, before any build.
if "$root/tools/release.sh" "v$version" --out "$work/bad" > "$work/bad.log" 2>&1; then fail "release.sh accepted 'v$version'"; fi
grep -q "'v$version' is not a semantic version" "$work/bad.log" || fail "release.sh's refusal: $(cat "$work/bad.log")"

out="$work/release"
"$root/tools/release.sh" "$version" --out "$out" --lite-build-dir "$lite_dir" --win-build-dir "$win_dir" ||
  fail "tools/release.sh $version"
t1=$(date +%s)

# 2. The folder's files, their sums, the two archives' contents.
name="pbrain-gomoku-zero-$version"
zip="$name-windows-x64.zip"
tarball="$name-linux-x64.tar.gz"
expected="$(printf '%s\n' "$zip" "$tarball" play.md NETS.md LICENSE THIRD_PARTY.md SHA256SUMS | sort)"
[ "$(cd "$out" && ls | sort)" = "$expected" ] || fail "the release folder holds: $(cd "$out" && ls | tr '\n' ' ')"
(cd "$out" && sha256sum -c --quiet SHA256SUMS) || fail "sha256sum -c SHA256SUMS"
[ "$(cd "$out" && wc -l < SHA256SUMS)" -eq 6 ] || fail "SHA256SUMS does not cover the six files"
cmp -s "$out/play.md" "$root/docs/play.md" || fail "play.md is not docs/play.md"
cmp -s "$out/LICENSE" "$root/LICENSE" || fail "LICENSE differs from the repository's"
bytes="$(stat -c %s "$out/$zip")"
[ "$bytes" -le $((8 * 1024 * 1024)) ] || fail "the ZIP is $bytes bytes, over Gomocup's 8 MB"

zip_list="$(/usr/bin/python3 -c 'import sys, zipfile; print("\n".join(sorted(zipfile.ZipFile(sys.argv[1]).namelist())))' "$out/$zip")"
mkdir -p "$work/linux"
tar -xzf "$out/$tarball" -C "$work/linux"
[ "$(ls "$work/linux")" = "$name-linux-x64" ] || fail "the tarball's top folder: $(ls "$work/linux")"
tar_list="$(cd "$work/linux/$name-linux-x64" && ls | sort)"
nets="$(echo "$zip_list" | grep '\.pt$' || true)"
[ "$(echo "$nets" | grep -c .)" -ge 2 ] || fail "the ZIP holds no league nets: $zip_list"
for f in pbrain-gomoku-zero.exe pbrain-gomoku-zero.json README.txt LICENSE THIRD_PARTY.md; do
  echo "$zip_list" | grep -qx "$f" || fail "the ZIP lacks $f"
done
[ "$(echo "$zip_list" | sed 's/\.exe$//')" = "$tar_list" ] || fail "the ZIP ($zip_list) and the tarball ($tar_list) differ"
for net in $nets; do
  grep -q "^## $net\$" "$out/NETS.md" || fail "NETS.md has no card for $net"
done
grep -q "Version $version\." "$work/linux/$name-linux-x64/README.txt" || fail "README.txt does not name version $version"

# 3. The Linux binary from the tarball alone: ABOUT and a move.
# END stops a search at once: it is sent once the move came (or after 60 s).
coproc BRAIN { "$work/linux/$name-linux-x64/pbrain-gomoku-zero" 2>"$work/linux.stderr"; }
brain_pid=$BRAIN_PID brain_in=${BRAIN[1]} brain_out=${BRAIN[0]}
printf 'ABOUT\nSTART 15\nINFO timeout_turn 1000\nBEGIN\n' >&"$brain_in"
replies=""
while IFS= read -r -t 60 line <&"$brain_out"; do
  replies+="${line%$'\r'}"$'\n'
  [[ "$line" =~ ^[0-9]+,[0-9]+ ]] && break
done
printf 'END\n' >&"$brain_in" 2>/dev/null || true
wait "$brain_pid" || fail "the Linux brain exited with an error: $(tail -n 5 "$work/linux.stderr")"
echo "$replies" | grep -q "^name=\"gomoku-zero\", version=\"$version\"" || fail "the Linux brain's ABOUT: $replies"
echo "$replies" | grep -qE '^[0-9]+,[0-9]+$' || fail "the Linux brain played no move: $replies"
echo "test_release: release set $out checked ($((t1 - t0)) s to make it): $(cd "$out" && ls | tr '\n' ' ')"

# 4. The release ZIP under wine: ABOUT, the protocol, every league, the conformance table.
"$root/tools/test_windows_engine.sh" --zip "$out/$zip" --bin-dir "$bin_dir" --about-version "$version" "${extra[@]}" \
  | tee "$work/windows.log" || true
grep -q "^test_windows_engine: passed" "$work/windows.log" || fail "tools/test_windows_engine.sh on the release ZIP"
echo "test_release: passed ($(( $(date +%s) - t0 )) s)"
