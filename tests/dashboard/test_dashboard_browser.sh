#!/usr/bin/env bash
# The dashboard in a real browser: a short real run (configs/tiny.json: server,
# trainer, workers through launch/start.sh), stopped after a few iterations so
# its files hold still; a ratings.jsonl as docs/ratings.md defines it when no
# evaluator wrote one; gz_dashboard; then headless Chromium checks the rendered
# page (tests/dashboard/test_dashboard_browser.py).  No browser = a failure, never a skip.
source "$(dirname "$0")/../e2e/lib.sh"
OUT="${GZ_TEST_TMP:-$ROOT/build/test-tmp}/test_dashboard_browser"
rm -rf "$OUT" && mkdir -p "$OUT"
if ! command -v chromium >/dev/null; then
  echo "FAILED: the browser is missing: Debian's chromium is not installed (launch/setup.sh installs it)"
  exit 1
fi
# The playout cap on: the game viewer must mark full and cheap searches.
start_run "a tiny run starts" --set run.max_iterations=3 \
  --set selfplay.playout_cap_p_full=0.5 --set selfplay.playout_cap_cheap_simulations=4
check "3 iterations finish" wait_for 300 at_least_generations 3
check "the run stops" "$ROOT/launch/stop.sh" --run-dir "$RUN"
if [ ! -s "$RUN/ratings.jsonl" ]; then
  echo "no evaluator output: writing ratings.jsonl per docs/ratings.md, one line per finished iteration"
  /usr/bin/python3 - "$RUN" <<'PY'
import json, os, sys
run = sys.argv[1]
its = sorted({json.loads(l)["iteration"] for l in open(os.path.join(run, "generations.jsonl")) if l.strip()})
with open(os.path.join(run, "ratings.jsonl"), "w") as f:
    for k, it in enumerate(its):
        opp = {"entry": "rollout:1000", "name": "rollout:1000", "wins": 1 + k, "draws": 1, "losses": 3 - k,
               "games": 5, "elo": 0.0, "elo_low": 0.0, "elo_high": 0.0}
        f.write(json.dumps({"iteration": it, "generation": it, "player": "checkpoint:%d" % it, "complete": True,
                            "elo": -100.0 + 50 * k, "elo_low": -220.0 + 50 * k, "elo_high": 20.0 + 50 * k,
                            "games": 5, "opponents": [opp], "anchor": "rollout:1000", "time": 1796000000.0 + k}) + "\n")
PY
fi
"$BIN/gz_dashboard" --run-dir "$RUN" --port 0 --set dashboard.simulations=16 >"$OUT/dashboard.log" 2>&1 &
DASH=$!
wait_for 30 grep -q '^dashboard: http' "$OUT/dashboard.log" || { echo "FAILED: gz_dashboard did not come up"; cat "$OUT/dashboard.log"; FAILS=$((FAILS + 1)); }
URL="$(sed -n 's/^dashboard: //p' "$OUT/dashboard.log" | head -1)"
check "the page checks in headless Chromium pass" /usr/bin/python3 "$ROOT/tests/dashboard/test_dashboard_browser.py" "$URL" "$RUN" "$OUT"
kill -TERM "$DASH" 2>/dev/null || true
check "gz_dashboard stops cleanly on SIGTERM" wait "$DASH"
echo "screenshot: $OUT/dashboard.png"
finish
