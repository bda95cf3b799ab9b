#!/usr/bin/python3
"""Prints the key table of docs/configuration.md from `worker --print-config`."""
import json, subprocess, sys
DESC = {
"board.size": "board side, 5..22", "board.rule": "freestyle (5+ wins) or standard (exactly 5)",
"net.channels": "residual tower width", "net.blocks": "residual blocks",
"mcts.simulations": "new simulations per move", "mcts.c_puct": "PUCT exploration constant",
"mcts.dirichlet_alpha": "root noise alpha (0 = off)", "mcts.dirichlet_epsilon": "root noise weight",
"mcts.fpu_value": "Q of unvisited children", "mcts.tree_reuse": "keep the chosen subtree between moves",
"selfplay.temperature_moves": "moves sampled with tau=1", "selfplay.final_temperature": "tau afterwards (0 = argmax)",
"selfplay.random_opening_moves": "uniformly random first moves (not samples)", "selfplay.max_moves": "draw after this many moves (0 = full board)",
"inference.symmetry": "none, random or all8", "inference.device": "auto, cpu, cuda or cuda:N", "inference.threads": "intra-op threads of local inference and of the server",
"server.socket": "socket path (empty = <run>/sock/infer.sock); env GOMOKU_INFER_SOCK", "server.max_batch": "positions per forward; env GOMOKU_MAX_BATCH",
"server.max_wait": "ms a batch waits after its first request, or \"auto\"; env GOMOKU_MAX_WAIT_MS", "server.auto_wait_ceiling_ms": "longest an auto batch stays open while the device is free",
"server.auto_pipeline": "EXPERIMENTAL, off by default (its benchmark did not show a gain in self-play): with auto wait, alternate two halves of the clients when measured faster than lockstep",
"server.stats_interval_s": "period of the stats log line and status/server.json", "server.idle_timeout_s": "a silent or dripping connection is closed after this",
"server.max_clients": "connection limit", "server.max_pending_replies": "per-connection reply queue cap (a client that never reads is cut off)",
"server.cache_entries": "NN result cache size (0 = off)", "server.precision": "fp32, bf16 or fp16 (CUDA only)", "server.cuda_graphs": "CUDA Graph capture (CUDA only)", "server.device_encode": "CUDA only: batches cross to the GPU as compact boards and are encoded there (false = encoded on the host)", "server.threads": "intra-op threads of the server's forward (0 = inference.threads); the server owns the CPU, so on a CPU machine give it the cores",
"worker.parallel_games": "games one worker advances together (their leaves batched)", "worker.reconnect_initial_s": "first reconnect backoff",
"worker.reconnect_max_s": "backoff ceiling", "worker.poll_interval_s": "metadata.json polling period",
"run.dir": "run directory", "run.worker_count": "number of workers", "run.worker_games_per_worker": "games each worker produces per iteration",
"run.target_games": "games the trainer waits for", "run.min_games": "fewest games the stall timeout may train on",
"run.stall_timeout_s": "no new game this long: train on what is there (if at least min_games)",
"run.progress_log_s": "period of the trainer's progress lines", "run.seed": "run seed (game seeds, initial weights)",
"run.max_iterations": "stop after this many iterations (0 = run until stopped)",
"train.train_batches": "optimizer steps per iteration", "train.batch_size": "samples per step", "train.replay_iterations": "replay window W (iterations)",
"train.optimizer": "adam or sgd (with momentum)", "train.learning_rate": "learning rate", "train.momentum": "SGD momentum", "train.weight_decay": "L2 coefficient",
"train.lr_schedule": "constant or step", "train.lr_step_iterations": "step schedule period", "train.lr_step_gamma": "step schedule factor",
"train.keep_last": "checkpoints kept", "train.keep_every": "also keep every M-th checkpoint (0 = none)", "train.threads": "trainer intra-op threads",
"train.reload_timeout_s": "how long the trainer retries the server reload",
"eval.enabled": "launch/start.sh starts the evaluator", "eval.every": "evaluate every N-th published iteration",
"eval.games": "games per opponent and evaluation (colours alternate)", "eval.simulations": "simulations of the net under test (no noise)",
"eval.threads": "intra-op threads of the evaluator", "eval.nice": "the evaluator's scheduling priority increment",
"eval.ladder": "opponents: rollout:P, checkpoint:N, previous:K, engine:COMMAND (a list, or one comma-separated string)",
"eval.anchor": "the player whose Elo is 0", "eval.engine_turn_ms": "timeout_turn sent to engine: opponents",
"eval.engine_grace_ms": "an engine later than turn + grace loses the game",
"dashboard.enabled": "launch/start.sh starts gz_dashboard", "dashboard.bind": "listen address (non-loopback prints a warning)",
"dashboard.port": "HTTP port", "dashboard.max_games": "browser games against the newest net at once",
"dashboard.idle_timeout_s": "a browser game ends after this long unused", "dashboard.simulations": "the browser opponent's simulations per move",
}
d = json.loads(subprocess.check_output([sys.argv[1], "--id", "0", "--print-config"]))
for sec, v in d.items():
    for k, x in v.items():
        key = sec + "." + k
        print("| `%s` | `%s` | %s |" % (key, json.dumps(x), DESC.get(key, "")))
