#!/usr/bin/env bash
# The engine with the native CPU forward against the engine
# with LibTorch's, the same binary and net, at 0.5 s a move, 40 games from the
# balanced 3-stone openings of 15x15 freestyle (arena's default set), colours
# alternating.  The arena writes the data file OUT (players, settings,
# openings, every game's moves and result) and prints W/D/L and Elo from the
# native side's view.
#
#   experiments/native_vs_torch.sh OUT.json [BIN_DIR] [NET]
#
# BIN_DIR holds arena and pbrain-gomoku-zero (default build/bin; copy them
# elsewhere first when others rebuild build/ during the match).
set -euo pipefail
out=${1:?usage: native_vs_torch.sh OUT.json [BIN_DIR] [NET]}
bin=${2:-build/bin}
net=${3:-nets/gz-15x15-freestyle-2026-12-05.pt}
engine="$bin/pbrain-gomoku-zero --weights $net --set inference.backend"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
exec "$bin/arena" --player-a "engine:$engine=native" --player-b "engine:$engine=torch" --games 40 \
  --set board.size=15 --set eval.engine_turn_ms=500 --json --record "$out"
