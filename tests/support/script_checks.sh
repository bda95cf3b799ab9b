# Checks shared by the script tests (source it; it needs OUT, a scratch folder).
# Each check prints one "ok: ..." or "FAILED: ..." line and counts it;
# a test ends with `echo "$PASSES passed, $FAILS failed"; ((FAILS == 0))`.
FAILS=0 PASSES=0 LAST_RC=0
ok() { PASSES=$((PASSES + 1)); echo "ok: $1"; }
bad() { FAILS=$((FAILS + 1)); echo "FAILED: $1"; }
check() {  # check "description" command...: passes when the command succeeds
  local what="$1"; shift
  if "$@"; then ok "$what"; else bad "$what"; fi
}
# refused "description" EXPECTED_TEXT command...: passes when the command fails
# (non-zero) and says EXPECTED_TEXT on stderr; LAST_RC is its exit status.
refused() {
  local what="$1" text="$2"; shift 2
  local rc=0
  "$@" >"$OUT/last.out" 2>"$OUT/last.err" || rc=$?
  LAST_RC=$rc
  if ((rc != 0)) && grep -qF -- "$text" "$OUT/last.err"; then
    ok "$what (exit $rc: $(head -c 300 "$OUT/last.err"))"
  else
    bad "$what: exit $rc, expected a non-zero exit and '$text' on stderr; stderr: $(cat "$OUT/last.err")"
  fi
}
