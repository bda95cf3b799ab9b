#!/usr/bin/env bash
# Mixed board sizes: launch/start.sh on the tiny config
# with conv heads and selfplay.board_sizes 9 and 7: the games of both sizes go
# through the one server (one lane per size, no fallback), the trainer trains
# on both, reloads, and the trained checkpoint plays the arena at both sizes.
source "$(dirname "$0")/lib.sh"
SETS=(--set board.size=9 --set net.heads=conv --set "selfplay.board_sizes=9:1,7:1")
start_run "start.sh with two board sizes reports a healthy system" --no-eval --no-dashboard "${SETS[@]}"
check "3 iterations complete" wait_for 200 at_least_generations 3
check "the server serves both sizes" server_stats_has '"board_sizes":[7,9]'
check "games of both sizes, each consistent with its size" /usr/bin/python3 - "$RUN" <<'PY'
import collections, glob, os, sys
import numpy as np
files = glob.glob(os.path.join(sys.argv[1], "games", "it*", "*.npz"))
by_size = collections.Counter()
for f in files:
    z = np.load(f)
    n = int(z["board_size"])
    by_size[n] += 1
    moves = np.asarray(z["moves"])
    assert moves.size > 0 and moves.max() < n * n, (f, n, moves.max())
    assert z["policy"].shape[-1] == n * n, (f, z["policy"].shape)
assert set(by_size) == {7, 9}, by_size
print(dict(by_size))
PY
check "no worker fell back to local inference" bash -c "! grep -l 'falling back to local' '$(run_logs_dir)'/worker_*.log"
check "generations.jsonl counts the games of each size" /usr/bin/python3 - "$(run_generations)" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
seen, trained = set(), set()
for r in recs:
    by = r["games_by_size"]
    assert sum(by.values()) == r["games_used"], r
    seen |= {int(k) for k, v in by.items() if v > 0}
    trained |= {int(k) for k, v in r["train_steps_by_size"].items() if v > 0}
assert seen == {7, 9}, seen
assert trained == {7, 9}, trained  # the trainer stepped on both sizes
print([r["games_by_size"] for r in recs])
PY
NEWEST=$(ls "$(run_checkpoints)" | sed -n 's/^weights_it\([0-9]*\)\.pt$/\1/p' | sort -n | tail -1)
for size in 7 9; do
  check "the trained net plays the arena at ${size}x${size}" \
    "$BIN/arena" --config "$CONFIG" --set "board.size=$size" --player-a "net:$(run_checkpoint "$NEWEST"):8" \
    --player-b rollout:20 --games 2
done
check "stop.sh stops everything" "$ROOT/launch/stop.sh" --run-dir "$RUN"
finish
