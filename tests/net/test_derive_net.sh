#!/usr/bin/env bash
# build/bin/derive_net on real checkpoint files (docs/engine.md "Nets for every
# league"): an fc net becomes a conv net of another rule, distilled (tower and
# heads) or with the heads alone fitted; a conv net is relabelled to another
# size with every tensor copied; and bad input is refused with exit 2, a
# message naming the problem, and no output file.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BIN="${GZ_BIN_DIR:-$ROOT/build/bin}"
TBIN="${GZ_TEST_BIN_DIR:-$ROOT/build/tests}"
OUT="${GZ_TEST_TMP:-$ROOT/build/test-tmp}/test_derive_net"
rm -rf "$OUT" && mkdir -p "$OUT"
source "$ROOT/tests/support/script_checks.sh"
for b in "$BIN/derive_net" "$TBIN/make_export_test_net"; do
  [ -x "$b" ] || { echo "FAILED: $b is not built"; exit 1; }
done
# made "description" OUT TEXT args...: exit 0, OUT written, TEXT on stdout.
made() {
  local what="$1" out="$2" text="$3"; shift 3
  local rc=0
  "$BIN/derive_net" "$@" >"$OUT/last.out" 2>"$OUT/last.err" || rc=$?
  if ((rc == 0)) && [ -s "$out" ] && grep -qF -- "$text" "$OUT/last.out"; then
    ok "$what ($(tail -n 1 "$OUT/last.out" | head -c 200))"
  else
    bad "$what: exit $rc, expected exit 0, $out written and '$text' on stdout; stdout: $(cat "$OUT/last.out"); stderr: $(cat "$OUT/last.err")"
  fi
}
# refused_here "description" TEXT args...: derive_net exits 2, says TEXT on
# stderr, and writes no $OUT/refused.pt.
refused_here() {
  local what="$1" text="$2"; shift 2
  refused "$what" "$text" "$BIN/derive_net" "$@"
  ((LAST_RC == 2)) || bad "$what: exit $LAST_RC, expected 2"
  [ ! -e "$OUT/refused.pt" ] || { bad "$what: $OUT/refused.pt was written"; rm -f "$OUT/refused.pt"; }
}

"$TBIN/make_export_test_net" "$OUT/fc.pt" fc 9 freestyle 8 1 7 >/dev/null || { echo "FAILED: make_export_test_net"; exit 1; }
FIT=(--fit-positions 300 --fit-steps 20)
made "fc -> conv renju, distilled" "$OUT/conv.pt" "net fitted to" \
  --from "$OUT/fc.pt" --out "$OUT/conv.pt" --heads conv --rule renju "${FIT[@]}"
made "fc -> conv, heads only" "$OUT/heads.pt" "heads fitted to" \
  --from "$OUT/fc.pt" --out "$OUT/heads.pt" --heads conv "${FIT[@]}" --fit-heads-only
# The derived net carries its rule: derived again without --rule it stays renju,
# and a conv net moves to another size with every tensor copied.
made "conv renju -> 15x15, every tensor copied" "$OUT/conv15.pt" "renju, conv heads, 15x15, 8x1;" \
  --from "$OUT/conv.pt" --out "$OUT/conv15.pt" --board-size 15
grep -qF " 0 initialised" "$OUT/last.out" && ok "nothing initialised" || bad "a conv -> conv copy left tensors out: $(cat "$OUT/last.out")"

refused_here "no --out" "--from and --out are required" --from "$OUT/fc.pt"
refused_here "a missing checkpoint" "$OUT/none.pt" --from "$OUT/none.pt" --out "$OUT/refused.pt"
printf 'not a checkpoint' > "$OUT/junk.pt"
refused_here "a damaged checkpoint" "junk.pt" --from "$OUT/junk.pt" --out "$OUT/refused.pt"
refused_here "an unknown rule" "--rule" --from "$OUT/fc.pt" --out "$OUT/refused.pt" --rule gomoku9
refused_here "an unknown heads kind" "--heads" --from "$OUT/fc.pt" --out "$OUT/refused.pt" --heads wide
refused_here "a board size out of range" "--board-size expects an integer in" --from "$OUT/fc.pt" --out "$OUT/refused.pt" --board-size 99
refused_here "a fit step count that is no number" "--fit-steps" --from "$OUT/fc.pt" --out "$OUT/refused.pt" --heads conv --fit-steps many
refused_here "--fit-heads-only where nothing is fitted" "--fit-heads-only" --from "$OUT/conv.pt" --out "$OUT/refused.pt" --fit-heads-only
refused_here "an unknown flag" "--fit-tower" --from "$OUT/fc.pt" --out "$OUT/refused.pt" --fit-tower

echo "test_derive_net: $PASSES passed, $FAILS failed"
((FAILS == 0))
