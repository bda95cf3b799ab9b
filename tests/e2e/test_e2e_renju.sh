#!/usr/bin/env bash
# The whole loop under renju: launch/start.sh with board.rule renju
# on the tiny config: 2 iterations of self-play through the server, training,
# reload; the game files and the server say renju; the arena plays the newest
# net against a rollout player under renju (its referee refuses forbidden points).
source "$(dirname "$0")/lib.sh"
SETS=(--set board.rule=renju --set board.size=9)
start_run "start.sh on renju reports a healthy system" --no-eval --no-dashboard "${SETS[@]}"
check "2 iterations complete under renju" wait_for 150 at_least_generations 2
check "the server says renju" server_stats_has '"rule": "renju"'
# (Legality of every move under renju is checked where the games are made: tests/worker/test_worker.cc.)
check "every game file is a renju game" /usr/bin/python3 - "$RUN" <<'PY'
import glob, os, sys
import numpy as np
files = glob.glob(os.path.join(sys.argv[1], "games", "it*", "*.npz"))
assert files
for f in files:
    z = np.load(f)
    assert int(z["rule"]) == 2, (f, int(z["rule"]))
print(len(files), "renju game files")
PY
check "the arena plays the trained renju net under renju" \
  "$BIN/arena" --config "$CONFIG" "${SETS[@]}" --player-a "net:$(run_checkpoint 2):8" --player-b rollout:20 --games 2
check "stop.sh stops everything" "$ROOT/launch/stop.sh" --run-dir "$RUN"
finish
