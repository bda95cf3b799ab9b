#!/usr/bin/python3
"""Prints the key table of docs/configuration.md from `worker --print-config`.

    tools/gen_config_doc.py build/bin/worker               print the table
    tools/gen_config_doc.py build/bin/worker --check DOC   exit 1 (naming the lines) when
                                                          DOC's table differs (ctest check_config_doc)
"""
import json, subprocess, sys
DESC = {
"board.size": "board side, 5..22", "board.rule": "freestyle (5+ wins), standard (exactly 5) or renju (black: exactly 5, no overline, double four or double three)",
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
"train.init_weights": "cold start from this checkpoint instead of random weights (same net shape and rule; e.g. a net of nets/)",
"eval.enabled": "launch/start.sh starts the evaluator", "eval.every": "evaluate every N-th published iteration",
"eval.games": "games per opponent and evaluation (colours alternate)", "eval.simulations": "simulations of the net under test (no noise)",
"eval.threads": "intra-op threads of the evaluator", "eval.nice": "the evaluator's scheduling priority increment",
"eval.ladder": "opponents: rollout:P, checkpoint:N, previous:K, net:PATH[:SIMS] (a fixed net, e.g. a reference net), engine:COMMAND (a list, or one comma-separated string)",
"eval.anchor": "the player whose Elo is 0", "eval.engine_turn_ms": "timeout_turn sent to engine: opponents",
"eval.engine_grace_ms": "an engine later than turn + grace loses the game",
"dashboard.enabled": "launch/start.sh starts gz_dashboard", "dashboard.bind": "listen address (non-loopback prints a warning)",
"dashboard.port": "HTTP port", "dashboard.max_games": "browser games against the newest net at once",
"dashboard.idle_timeout_s": "a browser game ends after this long unused", "dashboard.simulations": "the browser opponent's simulations per move",
"run.host": "this machine's name on a shared run directory (\"\" = one machine); in game files, status, logs, pids, socket (operations.md, Many hosts)",
"run.host_timeout_s": "a self-play host whose heartbeat stops this long is excluded from the reload wait, by name",
"server.heartbeat_s": "with run.host and --run-dir: how often the server follows reload.json and rewrites status/{host}/reload_ack.json",
"train.world_size": "data-parallel trainer ranks (c10d; rank 0 = the trainer, --rank R for the others)",
"train.dist_store": "rendezvous of the ranks: tcp://HOST:PORT (TCPStore on rank 0) or file://PATH (FileStore)",
"train.dist_timeout_s": "rendezvous and every collective fail after this (a dead or stuck rank)",
"train.allreduce_bucket_mb": "gradient allreduce bucket size", "train.dist_interface": "Gloo's network interface (\"\" = the host name's address)",
"mcts.solver": "threat solver at every expansion: proven wins/losses, forced replies (search.md)",
"mcts.solver_vcf_nodes": "node budget of each VCF query of the solver",
"selfplay.adjudicate_proven": "end a self-play game as soon as its root is proven (mcts.solver)",
"mcts.forced_playouts_k": "forced root visits k*sqrt(prior*total) under noise (0 = off)",
"mcts.policy_target_pruning": "remove forced visits that did not earn their place from the policy target",
"mcts.fpu_reduction_root": "root: unvisited child Q = parent Q - this (0 = mcts.fpu_value)",
"mcts.fpu_reduction": "below the root: unvisited child Q = parent Q - this (0 = mcts.fpu_value)",
"mcts.dirichlet_alpha_scaled": "root noise alpha = this / legal moves (0 = mcts.dirichlet_alpha)",
"mcts.engine_batch": "engine only (pbrain, play, dashboard): leaves gathered per evaluation with virtual loss (1 = the single-leaf search; engine.md)",
"mcts.engine_threads": "engine only: search threads sharing one tree (network evaluations serialised; 1 = the calling thread)",
"selfplay.initial_temperature": "tau of the first move", "selfplay.temperature_halflife_moves": "tau decays to final_temperature with this half-life in moves (0 = hard switch after temperature_moves)",
"selfplay.playout_cap_p_full": "share of moves with the full search (policy targets); the rest cheap, value-only (1 = off)",
"selfplay.playout_cap_cheap_simulations": "simulations of a cheap move", "selfplay.resign_threshold": "resign when the root value stays below this (-1 = never)",
"selfplay.resign_consecutive": "own searches in a row below the threshold", "selfplay.resign_disabled_share": "share of games that never resign (false-positive measurement)",
"selfplay.balanced_opening_moves": "random opening stones kept only when the net's value is near even (0 = off)",
"selfplay.balanced_opening_max_value": "|value| an opening may have", "selfplay.balanced_opening_simulations": "search of the opening's evaluation",
"selfplay.balanced_opening_tries": "openings drawn before taking the most even",
"selfplay.open_opening_share": "share of games from the empty board or 1..max stones near the centre (the openings players meet; 0 = off)",
"selfplay.open_opening_max_stones": "most stones of such an opening (the count is uniform in 0..max)",
"selfplay.open_opening_radius": "their stones lie within this distance of the centre",
"selfplay.board_sizes": "mixed sizes: SIZE:WEIGHT entries drawn per game (must include board.size; others need net.heads conv); empty = board.size only",
"train.value_target_q_weight": "value target = (1-w) z + w q (0 = the game result)",
"train.window_power_alpha": "power-law replay window exponent (0 = off: the iteration window)", "train.window_power_beta": "power-law window growth factor",
"train.window_min_samples": "power-law window's initial size", "train.max_samples_per_new_sample": "cap on trained samples per new sample (0 = off)",
"net.heads": "fc (fixed board size) or conv (convolutional policy, pooled value: any size 5..22)",
}
d = json.loads(subprocess.check_output([sys.argv[1], "--id", "0", "--print-config"]))
rows = []
for sec, v in d.items():
    for k, x in v.items():
        key = sec + "." + k
        if key not in DESC:
            sys.exit("gen_config_doc.py: no description for %s: add it to DESC" % key)
        rows.append("| `%s` | `%s` | %s |" % (key, json.dumps(x), DESC[key]))
if len(sys.argv) == 4 and sys.argv[2] == "--check":
    lines = open(sys.argv[3]).read().splitlines()
    start = lines.index("| key | default | meaning |") + 2
    end = start
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    have = lines[start:end]
    if have != rows:
        missing = [r for r in rows if r not in have]
        stale = [r for r in have if r not in rows]
        print("%s is stale: regenerate its key table with tools/gen_config_doc.py %s" % (sys.argv[3], sys.argv[1]))
        for r in missing:
            print("  missing or changed: " + r)
        for r in stale:
            print("  stale: " + r)
        if not missing and not stale:
            print("  the rows are out of order")
        sys.exit(1)
    print("%s: the key table matches the registry (%d keys)" % (sys.argv[3], len(rows)))
elif len(sys.argv) == 2:
    print("\n".join(rows))
else:
    sys.exit(__doc__)
