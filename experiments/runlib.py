#!/usr/bin/env python3
"""The one reader of a run and the one match pool of the experiments (experiments/*.py).

Layout of an experiment directory OUT (learn.py, compare.py):
  OUT/NAME/            a run directory (launch/start.sh --run-dir): generations.jsonl,
                       checkpoints/weights_it{N}.pt, ratings.jsonl (its evaluator), pids/ ...
  OUT/NAME.t0          the run's minute zero, seconds since the epoch
  OUT/NAME.start.log   launch/start.sh's output
  OUT/matches.jsonl    every arena match played: arena's JSON object plus "key" and "labels";
                       a match whose key is there is not played again (a rating resumes)
  OUT/arena/K.err      arena's stderr of the K-th match of a batch
  OUT/summary.json     the summary, shape below; experiments/plot.py draws its curves
(learn_run.sh's layout, OUT/run with OUT/t0, is still read.)

Minute zero (the one definition): the moment launch/start.sh returned with the run
verified healthy, written to NAME.t0 beside the run directory by start_run.  A run not
started by a driver has no mark; its minute zero is then the "start" of its first
iteration in generations.jsonl (later than the driver's mark by the trainer's start-up).
"Minute M" of a run is minute zero + M * 60 s; a checkpoint's minute is the "end" of its
iteration.

Checkpoint lookup: checkpoint_at(run, M) is the newest kept checkpoint (weights_it{N}.pt,
N > 0) whose iteration ended within M minutes of minute zero; "final" = the newest kept.

Match pool: MatchPool plays arena matches (build/bin/arena, or GOMOKU_BIN), at most
`jobs` processes at a time (default: the number of cores), each single-threaded.  Elo is
arena's (ComputeElo, common/match/ratings for the evaluator): nothing here recomputes it.

Summary shape (summary.json):
  {"kind": "learn"|"compare", "minutes": M, "reference": LABEL or null,
   "search": {"config", "sets", "sims", "openings"},
   "runs": {NAME: {"dir", "config", "sets", "minute_zero", "minute_zero_from", "iterations",
                   "games", "late_games_used", "never_trained_share", "own_curve": [...]}},
   "curves": {LABEL: [{"minutes", "iteration", "at_minutes", "wins", "draws", "losses",
                       "score", "elo", "elo_low", "elo_high"[, "reference": true]}]},
   "finals": [arena record + labels], "target": {...} (learn.py --target only)}

As a command:
  experiments/runlib.py checkpoint-at RUN_DIR MINUTE|final   the iteration (0: none)
  experiments/runlib.py minute-zero RUN_DIR                  seconds since the epoch, and from where
  /usr/bin/python3 experiments/runlib.py openings RUN_DIR FIRST LAST [BALANCED_STONES]
      self-play results by kind of opening ("open N" stones < BALANCED_STONES (4), "balanced")
      over the game files of iterations FIRST..LAST (needs numpy)
  experiments/runlib.py record OUT [--name NAME (run)] [--out FILE] [KEY=TEXT]...
      the data file of a write-up (results/data/*.json) for the run OUT/NAME: each KEY=TEXT
      (date=, machine=, command=, commit=) as given, the config and sets of OUT/summary.json,
      iterations, games, the run's own evaluator curve and one self-play row per iteration;
      to FILE (written atomically) or stdout.  experiments/plot.py draws its own curve.
  experiments/runlib.py own-blocks RUN_DIR SIZE OPPONENT
      the run's own evaluator curve in blocks of SIZE iterations: iterations, minutes, W/D/L
      against the rung whose name contains OPPONENT, the range of the run's Elo (a markdown table)
  experiments/runlib.py --self-test                          checks this module on a synthetic run
  experiments/runlib.py --check-layout build/bin/gz_status   its run-directory names against RunLayout's
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_SIMS = 100     # the trained player's simulations in every experiment's matches
# arena's openings: "default" = arena's default set (the even set on 15x15 freestyle, common/match/openings.h;
# else 2 random stones), or K = the random set of K stones (two nets are deterministic: K openings x 2 colours).
DEFAULT_OPENINGS = "default"


def openings_arg(s):
    """--openings of the drivers: "default" or a count K >= 0 of random stones."""
    if s == "default":
        return s
    k = int(s)
    if k < 0:
        raise ValueError("--openings: a count >= 0 or 'default', got %s" % s)
    return k
PY = "/usr/bin/python3"


# ---- command lines: --help is the script's header (its docstring), nothing else ----

class _Help(argparse.Action):
    def __init__(self, option_strings, dest, doc="", **kw):
        super().__init__(option_strings, dest, nargs=0, **kw)
        self.doc = doc

    def __call__(self, parser, namespace, values, option_string=None):
        sys.stdout.write(self.doc.strip() + "\n")
        sys.exit(0)


def parser(doc, prog):
    """An ArgumentParser whose -h/--help prints `doc` (the script's docstring) and whose
    errors name the script and point at --help."""
    p = argparse.ArgumentParser(prog=prog, add_help=False, usage="see %s --help" % prog)
    p.add_argument("-h", "--help", action=_Help, doc=doc)
    return p


def positive(text):
    if not re.fullmatch(r"[1-9][0-9]*", text):
        raise argparse.ArgumentTypeError("'%s' is not a positive integer" % text)
    return int(text)


def int_list(text):
    if not re.fullmatch(r"[0-9]+(,[0-9]+)*", text):
        raise argparse.ArgumentTypeError("'%s' is not a comma-separated list of integers" % text)
    return [int(x) for x in text.split(",")]


def log(prog, msg):
    print("%s %s: %s" % (time.strftime("%H:%M:%S"), prog, msg), flush=True)


def run_main(prog, main):
    """Exits with main(argv)'s status; a RuntimeError (a bad argument or a
    failed step, already explained in its message) exits 2 with the message."""
    try:
        sys.exit(main(sys.argv[1:]))
    except RuntimeError as e:
        print("%s: %s" % (prog, e), file=sys.stderr)
        sys.exit(2)


def write_atomic(path, text):
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)


# ---- the run directory's names: a copy of common/data/run_layout.h; --check-layout compares ----

CHECKPOINT_RE = r"weights_it(\d+)\.pt"


def metadata_path(run_dir):
    return os.path.join(run_dir, "metadata.json")


def generations_path(run_dir):
    return os.path.join(run_dir, "generations.jsonl")


def ratings_path(run_dir):
    return os.path.join(run_dir, "ratings.jsonl")


def eval_results_path(run_dir):
    return os.path.join(run_dir, "eval", "results.jsonl")


def checkpoints_dir(run_dir):
    return os.path.join(run_dir, "checkpoints")


def checkpoint_path(run_dir, iteration):
    return os.path.join(checkpoints_dir(run_dir), "weights_it%d.pt" % iteration)


def games_dir(run_dir, iteration=None):
    return os.path.join(run_dir, "games") if iteration is None else os.path.join(run_dir, "games", "it%d" % iteration)


def pids_dir(run_dir):
    return os.path.join(run_dir, "pids")


def pid_path(run_dir, process):
    return os.path.join(pids_dir(run_dir), process + ".pid")


def check_layout(gz_status):
    """0 when the names above agree with `gz_status --layout` (RunLayout's), else 1 after
    printing each difference."""
    names = json.loads(subprocess.check_output([gz_status, "--layout"]))
    mine = {"metadata": metadata_path(""), "generations": generations_path(""), "ratings": ratings_path(""),
            "eval_results": eval_results_path(""), "checkpoints": checkpoints_dir(""),
            "checkpoint": checkpoint_path("", 7), "games": games_dir(""), "games_for": games_dir("", 7),
            "pids": pids_dir(""), "pid_file": pid_path("", "trainer"), "worker_pid_file": pid_path("", "worker_2")}
    bad = [(k, v, names.get(k)) for k, v in mine.items() if names.get(k) != v]
    bad += [("checkpoint name pattern", CHECKPOINT_RE, names.get("checkpoint"))] \
        if not re.fullmatch(CHECKPOINT_RE, os.path.basename(names.get("checkpoint", ""))) else []
    for k, v, want in bad:
        print("runlib.py: %s is %r here but %r in RunLayout" % (k, v, want))
    print("runlib layout check: %d names, %d differ" % (len(mine), len(bad)))
    return 1 if bad else 0


# ---- reading a run ----

# The newest format_version of the records read here (common/data/record_format.h; a record
# without the field is version 1).  A newer record is refused, never guessed at.
RECORD_VERSIONS = {"generations.jsonl record": 1, "ratings.jsonl record": 1}


def check_version(record, name, path):
    v = record.get("format_version", 1) if isinstance(record, dict) else None
    if not isinstance(v, int) or not 1 <= v <= RECORD_VERSIONS[name]:
        raise RuntimeError("%s: %s has format_version %r; runlib reads version %d (written by a newer build?)"
                           % (path, name, v, RECORD_VERSIONS[name]))


def records(path, name):
    """The records of the JSON-lines file at `path`, in order: a torn line (a kill mid-append)
    or a non-object is skipped, as the C++ readers skip it; [] when there is no file;
    RuntimeError (check_version) for a record of a newer format_version than `name` reads."""
    try:
        f = open(path)
    except OSError:
        return []
    out = []
    with f:
        for line in f:
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if isinstance(r, dict):
                check_version(r, name, path)
                out.append(r)
    return out


def generations(run_dir):
    """{iteration: record} from RUN/generations.jsonl (records())."""
    return {r["iteration"]: r for r in records(generations_path(run_dir), "generations.jsonl record")
            if isinstance(r.get("iteration"), int)}


def mark_path(run_dir):
    return os.path.abspath(run_dir).rstrip("/") + ".t0"


def mark_minute_zero(run_dir, when=None):
    write_atomic(mark_path(run_dir), "%.3f\n" % (time.time() if when is None else when))


def minute_zero(run_dir):
    """(seconds since the epoch, where it came from) or (None, None); see the module doc."""
    legacy = os.path.join(os.path.dirname(os.path.abspath(run_dir)), "t0")
    for path in (mark_path(run_dir), legacy if os.path.basename(os.path.abspath(run_dir)) == "run" else None):
        if path and os.path.exists(path):
            return float(open(path).read()), os.path.basename(path)
    gens = generations(run_dir)
    if gens and "start" in gens[min(gens)]:
        return float(gens[min(gens)]["start"]), "generations.jsonl"
    return None, None


def kept_checkpoints(run_dir):
    """Iterations (> 0) with a kept checkpoint, in numeric order."""
    try:
        names = os.listdir(checkpoints_dir(run_dir))
    except OSError:
        return []
    return sorted(int(m.group(1)) for n in names
                  if (m := re.fullmatch(CHECKPOINT_RE, n)) and int(m.group(1)) > 0)


def checkpoint_at(run_dir, minute):
    """The newest kept checkpoint published within `minute` minutes of minute zero;
    minute "final": the newest kept one; 0 when there is none."""
    kept = kept_checkpoints(run_dir)
    if minute == "final":
        return kept[-1] if kept else 0
    t0, _ = minute_zero(run_dir)
    gens = generations(run_dir)
    ok = [it for it in kept if it in gens and t0 is not None and gens[it]["end"] - t0 <= float(minute) * 60]
    return ok[-1] if ok else 0


def minutes_of(run_dir, iteration):
    """Minutes from minute zero to the end of `iteration`; None when unknown."""
    t0, _ = minute_zero(run_dir)
    g = generations(run_dir).get(iteration)
    return round((g["end"] - t0) / 60, 2) if g and "end" in g and t0 is not None else None


def spread(items, n):
    """n items spread evenly over `items`, first and last included."""
    if not items:
        return []
    n = min(n, len(items))
    return [items[i] for i in sorted({round(i * (len(items) - 1) / max(1, n - 1)) for i in range(n)})]


def own_curve(run_dir):
    """The run's own evaluator curve (RUN/ratings.jsonl): each complete checkpoint rating of
    an iteration in generations.jsonl, at the minute its iteration ended; [] without one."""
    gens = generations(run_dir)
    out = []
    for e in records(ratings_path(run_dir), "ratings.jsonl record"):
        if not e.get("complete") or not str(e.get("player", "")).startswith("checkpoint:") or e.get("iteration") not in gens:
            continue
        out.append({"iteration": e["iteration"], "minutes": minutes_of(run_dir, e["iteration"]),
                    "elo": e["elo"], "elo_low": e["elo_low"], "elo_high": e["elo_high"],
                    "opponents": [{k: o.get(k) for k in ("name", "wins", "draws", "losses")}
                                  for o in e.get("opponents", [])]})
    return out


def run_stats(run_dir):
    """What summary.json says about a run besides its curves."""
    gens = generations(run_dir)
    last = gens[max(gens)] if gens else {}
    t0, source = minute_zero(run_dir)
    return {"dir": os.path.abspath(run_dir), "minute_zero": t0, "minute_zero_from": source,
            "iterations": len(gens), "games": sum(g.get("games_used", 0) for g in gens.values()),
            "late_games_used": sum(g.get("late_games_used", 0) for g in gens.values()),
            "never_trained_share": last.get("never_trained_share"), "own_curve": own_curve(run_dir)}


def selfplay_rows(run_dir):
    """One row per iteration of generations.jsonl, in order: what its self-play and its
    training did (a field the record lacks is None)."""
    t0, _ = minute_zero(run_dir)
    rows = []
    for it, g in sorted(generations(run_dir).items()):
        losses = g.get("losses") or {}
        r3 = lambda v, n: round(v, n) if isinstance(v, (int, float)) else None
        rows.append({"iteration": it,
                     "minutes": round((g["end"] - t0) / 60, 2) if "end" in g and t0 is not None else None,
                     "games": g.get("games_used"), "late_games_used": g.get("late_games_used"),
                     "avg_game_length": g.get("avg_game_length"), "learning_rate": g.get("learning_rate"),
                     "train_steps": g.get("train_steps"), "policy_loss": r3(losses.get("policy"), 4),
                     "value_loss": r3(losses.get("value"), 4), "entropy": r3(g.get("entropy"), 3),
                     "window_samples": g.get("window_samples", g.get("samples")),
                     "selfplay_s": r3(g.get("selfplay_s"), 1), "training_s": r3(g.get("training_s"), 1)})
    return rows


def data_record(out_dir, name="run", **about):
    """The data file beside a write-up (results/data/*.json): `about` (date, machine, command,
    commit: free text), the config and sets of OUT/summary.json, the run's stats and own
    evaluator curve (run_stats) and its self-play rows (selfplay_rows)."""
    run_dir = os.path.join(out_dir, name)
    if not os.path.exists(generations_path(run_dir)):
        raise RuntimeError("%s has no generations.jsonl: not a run directory" % run_dir)
    try:
        summary = json.load(open(os.path.join(out_dir, "summary.json")))
    except (OSError, ValueError):
        summary = {}
    search = summary.get("search") or {}
    run = (summary.get("runs") or {}).get(name) or {}
    st = run_stats(run_dir)
    config = run.get("config", search.get("config"))
    if config and os.path.isabs(config) and config.startswith(ROOT + os.sep):
        config = os.path.relpath(config, ROOT)  # a data file names the repository's config, not this checkout's path
    record = dict(about)
    record.update({"config": config, "sets": run.get("sets", search.get("sets", [])),
                   "iterations": st["iterations"], "games": st["games"], "late_games_used": st["late_games_used"],
                   "never_trained_share": st["never_trained_share"], "own_curve": st["own_curve"],
                   "selfplay": selfplay_rows(run_dir)})
    return record


def own_blocks(run_dir, size, opponent):
    """The evaluator's curve in blocks of `size` iterations (1..size, size+1..2*size, ...):
    per block with a rating, the iterations it spans, the minutes of its first and last
    rating, the games against the first rung whose name contains `opponent` (W/D/L and
    score) and the range of the run's Elo."""
    out = []
    blocks = {}
    for e in own_curve(run_dir):
        blocks.setdefault((e["iteration"] - 1) // size, []).append(e)
    for k, block in sorted(blocks.items()):
        w = d = l = 0
        for e in block:
            for o in e["opponents"]:
                if opponent in str(o.get("name")):
                    w, d, l = w + (o.get("wins") or 0), d + (o.get("draws") or 0), l + (o.get("losses") or 0)
                    break
        n = w + d + l
        out.append({"iterations": [k * size + 1, (k + 1) * size],
                    "minutes": [block[0]["minutes"], block[-1]["minutes"]], "wins": w, "draws": d, "losses": l,
                    "score": round((w + 0.5 * d) / n, 2) if n else None,
                    "elo": [round(min(e["elo"] for e in block)), round(max(e["elo"] for e in block))]})
    return out

def openings(run_dir, first, last, balanced_stones=4):
    import glob
    import numpy as np
    kinds = {}
    for it in range(first, last + 1):
        for path in glob.glob(os.path.join(games_dir(run_dir, it), "*.npz")):
            try:
                g = np.load(path)
                stones = len(g["opening"])
                winner = int(g["winner"])
                moves = len(g["moves"]) if "moves" in g.files else len(g["policy"])
                resigned = "resigned" in g.files and int(g["resigned"]) == 1
            except Exception:  # a torn or foreign file: the trainer skips it too
                continue
            kind = "open %d" % stones if stones < balanced_stones else "balanced"
            k = kinds.setdefault(kind, {"games": 0, "black": 0, "white": 0, "draws": 0, "resigned": 0, "moves": 0})
            k["games"] += 1
            k["black" if winner == 1 else "white" if winner == 2 else "draws"] += 1
            k["resigned"] += resigned
            k["moves"] += moves
    for k in kinds.values():
        k["mean_moves"] = round(k.pop("moves") / k["games"], 1)
    return dict(sorted(kinds.items()))


# ---- starting and stopping a run (launch/start.sh, launch/stop.sh own the processes) ----

def start_run(config, run_dir, sets=(), workers=None, evaluator=True):
    """Starts a training run that keeps every checkpoint and never stops by itself, marks
    its minute zero; raises RuntimeError (naming the log) when start.sh fails."""
    if os.path.exists(metadata_path(run_dir)):
        raise RuntimeError("%s holds a run: remove it, use another --out, or --rate-only" % run_dir)
    cmd = [os.path.join(ROOT, "launch", "start.sh"), "--config", config, "--run-dir", run_dir, "--no-dashboard",
           "--set", "run.max_iterations=0", "--set", "train.keep_every=1"]
    if workers:
        cmd += ["--workers", str(workers)]
    if not evaluator:
        cmd.append("--no-eval")
    for s in sets:
        cmd += ["--set", s]
    log_path = os.path.abspath(run_dir).rstrip("/") + ".start.log"
    with open(log_path, "w") as f:
        if subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT) != 0:
            raise RuntimeError("launch/start.sh failed for %s (see %s)" % (run_dir, log_path))
    mark_minute_zero(run_dir)


def stop_run(run_dir):
    subprocess.call([os.path.join(ROOT, "launch", "stop.sh"), "--run-dir", run_dir],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def trainer_exited(run_dir):
    """True once every trainer pid file of the run (pids/trainer*.pid, written by start.sh)
    names a process that is gone; False while one lives or when there is no pid file."""
    pids = pids_dir(run_dir)
    files = [n for n in (os.listdir(pids) if os.path.isdir(pids) else []) if re.fullmatch(r"trainer(_\d+)?\.pid", n)]
    for name in files:
        try:
            os.kill(int(open(os.path.join(pids, name)).read()), 0)
            return False
        except (OSError, ValueError):
            pass
    return bool(files)


# ---- the match pool ----

def match(a, b, games, config, sets=(), openings=DEFAULT_OPENINGS, seed=1, **labels):
    """One arena match (A's view); `labels` travel with its record (run, point, ...)."""
    return {"a": a, "b": b, "games": int(games), "config": os.path.abspath(config), "sets": list(sets),
            "openings": openings_arg(str(openings)), "seed": int(seed), "labels": labels}


def match_key(m):
    return json.dumps([m["a"], m["b"], m["games"], m["config"], m["sets"], m["openings"], m["seed"]])


def arena_bin():
    return os.path.join(os.environ.get("GOMOKU_BIN") or os.path.join(ROOT, "build", "bin"), "arena")


class MatchPool:
    """Plays matches with at most `jobs` arena processes at a time.  With `record`, every
    result is appended to that JSON-lines file (by this process only) and a match whose key
    is already there is not played again."""

    def __init__(self, jobs=None, record=None, err_dir=None, prog="runlib"):
        self.jobs = jobs or os.cpu_count() or 1
        self.record = record
        self.err_dir = err_dir  # None: a temporary folder for the time of play()
        self.prog = prog

    def recorded(self):
        out = {}
        if self.record and os.path.exists(self.record):
            for line in open(self.record):
                try:
                    r = json.loads(line)
                    out[r["key"]] = r
                except (ValueError, KeyError, TypeError):
                    pass
        return out

    def play(self, matches):
        """{key: record} for every match (those that failed are missing, with a message)."""
        if self.err_dir:
            os.makedirs(self.err_dir, exist_ok=True)
            return self._play(matches, self.err_dir)
        with tempfile.TemporaryDirectory(prefix="gz-arena-") as tmp:
            return self._play(matches, tmp)

    def _play(self, matches, err_dir):
        if not os.access(arena_bin(), os.X_OK):
            raise RuntimeError("%s missing (build it, or set GOMOKU_BIN)" % arena_bin())
        done = self.recorded()
        todo, keys = [], {match_key(m) for m in matches}
        for m in matches:
            k = match_key(m)
            if k not in done and all(k != match_key(t) for t in todo):
                todo.append(m)
        log(self.prog, "%d arena matches to play, %d at a time (%d already in %s)" %
            (len(todo), self.jobs, len(keys) - len(todo), self.record or "no record"))
        env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
        running = []
        queue = list(enumerate(todo))
        while queue or running:
            while queue and len(running) < self.jobs:
                k, m = queue.pop(0)
                cmd = [arena_bin(), "--config", m["config"], "--games", str(m["games"]),
                       "--seed", str(m["seed"]), "--json", "--player-a", m["a"], "--player-b", m["b"]]
                if m["openings"] != "default":
                    cmd += ["--openings", str(m["openings"])]
                for s in m["sets"]:
                    cmd += ["--set", s]
                err = os.path.join(err_dir, "%d.err" % k)
                p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=open(err, "w"), env=env, text=True)
                running.append((p, m, err, time.time()))
            time.sleep(0.2)
            for item in [r for r in running if r[0].poll() is not None]:
                running.remove(item)
                p, m, err, t = item
                out = p.stdout.read()
                try:
                    r = json.loads(out.strip().splitlines()[-1])
                except (ValueError, IndexError):
                    tail = open(err).read().strip().splitlines()[-1:] or ["exit %d" % p.returncode]
                    print("%s: match %s vs %s failed: %s" % (self.prog, m["a"], m["b"], tail[0]), file=sys.stderr)
                    continue
                r.update(key=match_key(m), labels=m["labels"], config=m["config"], sets=m["sets"],
                         openings=m["openings"], seed=m["seed"], seconds=round(time.time() - t, 1))
                done[r["key"]] = r
                if self.record:
                    with open(self.record, "a") as f:
                        f.write(json.dumps(r, sort_keys=True) + "\n")
                log(self.prog, "%s vs %s: %s" % (describe(m), m["b"], wdl(r)))
        return done


def describe(m):
    lab = m["labels"]
    if "iteration" not in lab:
        return m["a"]
    when = None
    if "point" in lab:
        when = "final" if lab["point"] == "final" else "minute %s" % lab["point"]
    return " ".join(x for x in (lab.get("run"), when, "it%d" % lab["iteration"]) if x)


def wdl(r):
    return "%d/%d/%d, score %.2f, Elo %+.0f [%+.0f, %+.0f]" % (
        r["wins"], r["draws"], r["losses"], r["score"], r["elo"], r["elo_low"], r["elo_high"])


def point(record, minutes, iteration, at_minutes):
    """One curve point from an arena record (its Elo is arena's)."""
    p = {"minutes": minutes, "iteration": iteration, "at_minutes": at_minutes}
    p.update({k: record[k] for k in ("wins", "draws", "losses", "score", "elo", "elo_low", "elo_high")})
    return p


def reference_point(minutes, iteration, at_minutes):
    return {"minutes": minutes, "iteration": iteration, "at_minutes": at_minutes, "reference": True,
            "wins": 0, "draws": 0, "losses": 0, "score": 0.5, "elo": 0.0, "elo_low": 0.0, "elo_high": 0.0}


def write_summary(out_dir, summary):
    for c in summary.get("curves", {}).values():
        c.sort(key=lambda p: p["minutes"] if p["minutes"] is not None else -1)
    write_atomic(os.path.join(out_dir, "summary.json"), json.dumps(summary, indent=1) + "\n")


def print_summary(summary):
    for name, r in summary.get("runs", {}).items():
        print("== %s: %d iterations, %d games (late games used %d, never-trained share %s); minute zero from %s" %
              (name, r["iterations"], r["games"], r["late_games_used"], r["never_trained_share"], r["minute_zero_from"]))
        if r["own_curve"]:
            print("   its evaluator's own curve (its ladder, its anchor): minutes, checkpoint, Elo [95%], opponents W/D/L")
        for c in r["own_curve"]:
            print("   %6.1f  it%-4d %+6.0f [%+.0f, %+.0f]  %s" % (c["minutes"] or 0, c["iteration"], c["elo"], c["elo_low"],
                  c["elo_high"], ", ".join("%s %d/%d/%d" % (o["name"], o["wins"], o["draws"], o["losses"])
                                           for o in c["opponents"])))
    s = summary.get("search", {})
    for name, curve in summary.get("curves", {}).items():
        print("== %s (%s simulations; minute: checkpoint, W/D/L, Elo [95%%]):" % (name, s.get("sims")))
        for p in curve:
            at = "" if p["at_minutes"] is None else "(published at %5.1f min)" % p["at_minutes"]
            if p.get("reference"):
                print("   %6.1f  it%-4d the reference: 0 by definition" % (p["minutes"] or 0, p["iteration"]))
            else:
                print("   %6.1f  it%-4d %s  %2d/%d/%-2d  Elo %+5.0f [%+.0f, %+.0f]" % (
                    p["minutes"] if p["minutes"] is not None else float("nan"), p["iteration"], at, p["wins"],
                    p["draws"], p["losses"], p["elo"], p["elo_low"], p["elo_high"]))
    for f in summary.get("finals", []):
        lab = f["labels"]
        print("== final: %sit%d vs %s over %d games: %s" % (lab["run"] + " " if lab.get("run") else "", lab["iteration"],
                                                          f["player_b"], f["games"], wdl(f)))


# ---- self-test: a synthetic run directory, no binaries ----

def self_test():
    import shutil
    tmp = tempfile.mkdtemp(prefix="gz-runlib-")
    try:
        out = os.path.join(tmp, "exp")
        run = os.path.join(out, "a")
        os.makedirs(checkpoints_dir(run))
        t0 = 1000000.0
        with open(generations_path(run), "w") as f:
            for it in range(1, 7):  # iteration `it` runs over minutes [it, it + 1)
                f.write(json.dumps({"iteration": it, "start": t0 + 60 * it, "end": t0 + 60 * it + 59,
                                    "games_used": 10, "late_games_used": 1, "never_trained_share": 0.125 * it}) + "\n")
            f.write('{"iteration": 7, "sta')  # torn last line: skipped
        for it in (0, 2, 4, 6, 10):  # it0 (untrained) never counts; it10 has no iteration record
            open(checkpoint_path(run, it), "w").close()
        with open(ratings_path(run), "w") as f:
            f.write(json.dumps({"complete": True, "player": "checkpoint:4", "iteration": 4, "elo": 12.0,
                                "elo_low": 2.0, "elo_high": 22.0, "opponents": [
                                    {"name": "rollout:1000", "wins": 3, "draws": 0, "losses": 1}]}) + "\n")
            f.write(json.dumps({"complete": False, "player": "checkpoint:6", "iteration": 6, "elo": 0,
                                "elo_low": 0, "elo_high": 0}) + "\n")
        checks = []
        check = lambda name, got, want: checks.append((name, got, want))
        # Without a mark: minute zero is iteration 1's start (minute 1 after t0).
        check("minute zero without a mark", minute_zero(run), (t0 + 60, "generations.jsonl"))
        check("torn line skipped", sorted(generations(run)), [1, 2, 3, 4, 5, 6])
        mark_minute_zero(run, t0)
        check("minute zero from the mark", minute_zero(run), (t0, "a.t0"))
        check("kept checkpoints", kept_checkpoints(run), [2, 4, 6, 10])
        check("checkpoint at minute 2 (it2 ends at 2:59)", checkpoint_at(run, 2), 0)
        check("checkpoint at minute 3", checkpoint_at(run, 3), 2)
        check("checkpoint at minute 6.5", checkpoint_at(run, 6.5), 4)
        check("checkpoint at minute 60", checkpoint_at(run, 60), 6)
        check("final checkpoint", checkpoint_at(run, "final"), 10)
        check("minutes of it4", minutes_of(run, 4), 4.98)
        check("spread 3 of 5", spread([1, 2, 3, 4, 5], 3), [1, 3, 5])
        check("spread 6 of 2", spread([7, 9], 6), [7, 9])
        own = own_curve(run)
        check("own curve: complete ratings only", [(c["iteration"], c["minutes"], c["elo"]) for c in own], [(4, 4.98, 12.0)])
        st = run_stats(run)
        check("stats", (st["iterations"], st["games"], st["late_games_used"], st["never_trained_share"]), (6, 60, 6, 0.75))
        check("no trainer pid file: not exited", trainer_exited(run), False)
        os.makedirs(pids_dir(run))
        dead = subprocess.Popen(["true"])
        dead.wait()
        write_atomic(pid_path(run, "trainer"), "%d\n" % dead.pid)
        check("trainer pid gone: exited", trainer_exited(run), True)
        write_atomic(pid_path(run, "trainer_1"), "%d\n" % os.getpid())
        check("one trainer rank alive: not exited", trainer_exited(run), False)
        # learn_run.sh's layout: OUT/run with OUT/t0.
        legacy = os.path.join(tmp, "old", "run")
        os.makedirs(legacy)
        write_atomic(os.path.join(tmp, "old", "t0"), "123.5\n")
        check("legacy t0", minute_zero(legacy), (123.5, "t0"))
        # Match keys, the record file and the summary shape.
        m1 = match("net:x.pt:100", "rollout:1000", 10, os.path.join(ROOT, "configs", "tiny.json"), run="a", iteration=4)
        m2 = match("net:x.pt:100", "rollout:1000", 10, os.path.join(ROOT, "configs", "tiny.json"), run="b", iteration=4)
        check("labels are not part of a key", match_key(m1) == match_key(m2), True)
        check("games are", match_key(m1) == match_key(dict(m1, games=12)), False)
        rec = dict(games=10, wins=6, draws=2, losses=2, score=0.7, elo=147.0, elo_low=20.0, elo_high=300.0,
                   key=match_key(m1), labels=m1["labels"])
        path = os.path.join(out, "matches.jsonl")
        with open(path, "w") as f:
            f.write(json.dumps(rec) + "\n{torn\n")
        check("recorded matches", list(MatchPool(jobs=1, record=path).recorded()), [match_key(m1)])
        summary = {"kind": "learn", "minutes": 6, "runs": {"a": st},
                   "curves": {"vs rollout:1000": [point(rec, 5.0, 4, minutes_of(run, 4)), reference_point(1.0, 2, 2.98)]}}
        write_summary(out, summary)
        back = json.load(open(os.path.join(out, "summary.json")))
        check("summary curve sorted by minute", [p["minutes"] for p in back["curves"]["vs rollout:1000"]], [1.0, 5.0])
        check("summary point carries arena's Elo", back["curves"]["vs rollout:1000"][1]["elo"], 147.0)
        rows = selfplay_rows(run)
        check("self-play rows: one per iteration, at its minute", [(r["iteration"], r["minutes"], r["games"]) for r in rows][:2],
              [(1, 1.98, 10), (2, 2.98, 10)])
        check("self-play rows: missing fields are None", (rows[0]["policy_loss"], rows[0]["train_steps"]), (None, None))
        rec2 = data_record(out, "a", date="2026-01-01", commit="abc")
        check("data record: about, stats, rows", (rec2["date"], rec2["commit"], rec2["iterations"], rec2["games"],
                                                 len(rec2["selfplay"]), rec2["own_curve"][0]["iteration"]),
              ("2026-01-01", "abc", 6, 60, 6, 4))
        try:
            data_record(out, "missing")
            check("data record of a missing run raises", False, True)
        except RuntimeError as e:
            check("data record of a missing run names it", "missing" in str(e), True)
        try:
            record_command(["--out", os.path.join(tmp, "x.json")])
            check("record refuses an option where OUT goes", False, True)
        except SystemExit as e:
            check("record refuses an option where OUT goes, naming it", "'--out'" in str(e.code), True)
        check("own blocks", own_blocks(run, 2, "rollout"), [{"iterations": [3, 4], "minutes": [4.98, 4.98], "wins": 3,
                                                             "draws": 0, "losses": 1, "score": 0.75, "elo": [12, 12]}])
        newer = os.path.join(tmp, "newer")
        os.makedirs(newer)
        with open(generations_path(newer), "w") as f:
            f.write(json.dumps({"format_version": 2, "iteration": 1}) + "\n")
        try:
            generations(newer)
            check("a newer generations record is refused", False, True)
        except RuntimeError as e:
            check("a newer generations record is refused, naming file and version",
                  (generations_path(newer) in str(e), "format_version 2" in str(e)), (True, True))
        bad = [(n, g, w) for n, g, w in checks if g != w]
        for n, g, w in bad:
            print("FAIL %s: got %r, want %r" % (n, g, w))
        print("runlib self-test: %d checks, %d failed" % (len(checks), len(bad)))
        return 1 if bad else 0
    finally:
        shutil.rmtree(tmp)


def record_command(args):
    if args[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    if args[0].startswith("-"):
        sys.exit("runlib.py: record: the first argument is the experiment's OUT folder, not the option '%s'" % args[0])
    about, out, name = {}, None, "run"
    it = iter(args[1:])
    for a in it:
        if a in ("--out", "--name"):
            v = next(it, None)
            if v is None:
                sys.exit("runlib.py: record %s needs a value" % a)
            out, name = (v, name) if a == "--out" else (out, v)
        elif re.fullmatch(r"[a-z_]+=.*", a, re.S):
            k, v = a.split("=", 1)
            about[k] = v
        else:
            sys.exit("runlib.py: record: '%s' is neither --out FILE, --name NAME nor KEY=TEXT" % a)
    try:
        text = json.dumps(data_record(args[0], name, **about), indent=1) + "\n"
    except RuntimeError as e:
        sys.exit("runlib.py: record: %s" % e)
    if out:
        write_atomic(out, text)
    else:
        sys.stdout.write(text)
    return 0

def main(argv):
    if argv[1:2] == ["--self-test"]:
        return self_test()
    if len(argv) == 3 and argv[1] == "--check-layout":
        return check_layout(argv[2])
    if argv[1:2] in (["-h"], ["--help"]):
        print(__doc__.strip())
        return 0
    if len(argv) == 4 and argv[1] == "checkpoint-at":
        print(checkpoint_at(argv[2], argv[3]))
    elif len(argv) == 3 and argv[1] == "minute-zero":
        t0, source = minute_zero(argv[2])
        if t0 is None:
            sys.exit("runlib.py: %s has neither a minute-zero mark nor generations.jsonl" % argv[2])
        print("%.3f %s" % (t0, source))
    elif len(argv) in (5, 6) and argv[1] == "openings":
        stones = int(argv[5]) if len(argv) == 6 else 4
        print(json.dumps(openings(argv[2], int(argv[3]), int(argv[4]), stones), indent=1))
    elif len(argv) >= 3 and argv[1] == "record":
        return record_command(argv[2:])
    elif len(argv) == 5 and argv[1] == "own-blocks":
        if not re.fullmatch(r"[1-9][0-9]*", argv[3]):
            sys.exit("runlib.py: own-blocks SIZE '%s' is not a positive integer" % argv[3])
        print("| iterations (minutes) | vs %s (W / D / L) | score | the run's Elo |" % argv[4])
        print("|---|---|---|---|")
        for b in own_blocks(argv[2], int(argv[3]), argv[4]):
            print("| %d-%d (%s-%s) | %d / %d / %d | %s | %+d .. %+d |" % (
                b["iterations"][0], b["iterations"][1], b["minutes"][0], b["minutes"][1], b["wins"], b["draws"],
                b["losses"], "%.2f" % b["score"] if b["score"] is not None else "-", b["elo"][0], b["elo"][1]))
    else:
        sys.exit("runlib.py: unknown command line (see --help)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
