#!/usr/bin/env python3
"""The WebAssembly engine against the native one (issue 66 point 6;
docs/benchmarks.md "The engine in the browser").  One run, one machine:

  1. simulations a second: the same 20 positions (15x15 freestyle, the same
     shipped net, the same search settings, one thread both), each searched
     for --visits simulations by the native pbrain-gomoku-zero and by the
     wasm engine of the site in headless Chromium, position by position,
     alternating which goes first.  Both engines report their own search
     ("MESSAGE ... sims S (+R reused) time T ms", the session's line), so
     the figure is the search's, not the process start's.  CPU time is read
     besides (/proc: the native process; Chromium's processes together) and
     its ratio printed too, since the machine may be busy with other work;
  2. page load to first move: a fresh Chromium profile (nothing cached) opens
     a page of the site on a warm static server (python3 -m http.server's
     handler, in this process), starts engine/engine-worker.js, sends the
     page's settings at its default level (Club, 256 visits: browser/page/
     state.js) and BEGIN on an empty board; the time from navigation start to
     the move (the worker's script, the wasm and every net fetched and
     compiled included);
  3. the same through the page itself (index.html, another fresh profile):
     navigation start to the engine's first stone when the engine is set to
     play black at the page's default level (its 'Engine' select; the page
     then sends its own settings and BOARD), the engine's ready status too;
  4. the site's size on disk.

usage: bench/wasm_speed.py [--site build/browser/site] [--native build/bin/pbrain-gomoku-zero]
                           [--visits 1000] [--positions 20] [--out DIR]
Needs Debian's chromium and a built site (browser/build.sh).  Not a test.
"""
import argparse
import functools
import http.server
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "dashboard"))
from cdp_browser import Chromium  # noqa: E402  (the project's one headless-Chromium driver)

# bench/wasm_speed_positions.txt: 15x15 freestyle, black first, "X,Y": the even openings
# (common/game/even_openings_15x15_freestyle.inc), each extended by 0..14 plies
# of the native engine at 64 simulations a move (3 to 17 stones), kept where a
# 1000-simulation search neither shortcuts (a win or forced block) nor proves
# the root: every position is searched in full by both engines.


def _read_positions(path):
    with open(path) as f:
        return [line.split() for line in f if line.strip() and not line.startswith("#")]


POSITIONS = _read_positions(os.path.join(os.path.dirname(os.path.abspath(__file__)), "wasm_speed_positions.txt"))
SEARCH = re.compile(r"^MESSAGE .*\bsims (\d+) \(\+(\d+) reused\) time (\d+)ms")
MOVE = re.compile(r"^\d+,\d+$")
CLK = os.sysconf("SC_CLK_TCK")


def position_lines(moves, visits):
    """The session's lines for one search of `visits` simulations on `moves`
    (BOARD: 1 the side to move's stones, 2 the other's)."""
    n = len(moves)
    stones = [f"{m},{1 if i % 2 == n % 2 else 2}" for i, m in enumerate(moves)]
    return ["START 15", "INFO rule 0", "INFO timeout_match 100000000", "INFO time_left 100000000",
            "INFO timeout_turn 600000", f"INFO max_node {visits}", "BOARD", *stones, "DONE"]


def cpu_seconds(pids):
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
        except OSError:
            pass
    return total / CLK


def descendants(pid):
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            with open(f"/proc/{p}/task/{p}/children") as f:
                todo += [int(c) for c in f.read().split()]
        except OSError:
            pass
    return out


def search_figures(replies, who):
    for line in replies:
        m = SEARCH.match(line)
        if m:
            return int(m.group(1)), int(m.group(3)) / 1000.0
    raise SystemExit(f"{who}: no search line in {replies} (a tactical shortcut? the positions must need a search)")


class Native:
    def __init__(self, binary):
        env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
        env.pop("GOMOKU_LOG_LEVEL", None)
        self.proc = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1,
                                     env=env, cwd=ROOT)

    def search(self, lines):
        self.proc.stdin.write("\n".join(lines) + "\n")
        self.proc.stdin.flush()
        replies = []
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise SystemExit("native engine: it exited")
            line = line.strip()
            replies.append(line)
            if MOVE.match(line) or line.startswith("ERROR"):
                return replies

    def close(self):
        self.proc.stdin.write("END\n")
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


WORKER_JS = """
window.gz = {inbox: [], waiters: []};
gz.worker = new Worker('/engine/engine-worker.js');
gz.worker.onmessage = (e) => { if (e.data.type === 'log') return; gz.inbox.push(e.data); gz.waiters.splice(0).forEach((w) => w()); };
gz.next = () => gz.inbox.length ? Promise.resolve(gz.inbox.shift())
    : new Promise((r) => gz.waiters.push(() => r(gz.inbox.shift())));
gz.init = async () => { gz.worker.postMessage({type: 'init'}); const m = await gz.next();
  if (m.type !== 'ready') throw new Error('init: ' + JSON.stringify(m)); return m; };
// Every line's replies, up to the idle after the last one.
gz.run = async (lines) => { const out = [];
  for (const line of lines) { gz.worker.postMessage({type: 'protocol', line});
    for (;;) { const m = await gz.next(); if (m.type === 'error') throw new Error(m.message);
      if (m.type === 'idle') break; if (m.type === 'protocol-out') out.push(m.line); } }
  return out; };
"""


def serve(site):
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *a):
            pass

    handler = functools.partial(Quiet, directory=site)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def page_first_move(base, out_dir):
    """Measure 3: index.html in a fresh profile; seconds from navigation start
    to the engine ready and to its first stone as black (the default level)."""
    d = os.path.join(out_dir, "page")
    os.makedirs(d, exist_ok=True)
    browser = Chromium(d)
    try:
        browser.goto(f"{base}/index.html")
        if not browser.until("document.readyState === 'complete' && !!window.gz", 120):
            raise SystemExit("index.html did not load")
        poll = "new Promise((r) => { const t = setInterval(() => { if (%s) { clearInterval(t); r(performance.now()); } }, 5); })"
        ready = browser.eval(poll % "gz.state().ready")
        browser.eval("(() => { const s = document.getElementById('side'); s.value = 'engine-black';"
                     " s.dispatchEvent(new Event('change')); })()")
        moved = browser.eval(poll % "gz.state().moves.length === 1")
        return ready / 1000, moved / 1000
    finally:
        browser.close()


def site_bytes(site):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(site) for f in fs)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--site", default=os.path.join(ROOT, "build", "browser", "site"))
    ap.add_argument("--native", default=os.path.join(ROOT, "build", "bin", "pbrain-gomoku-zero"))
    ap.add_argument("--visits", type=int, default=1000)
    ap.add_argument("--positions", type=int, default=len(POSITIONS), help="the first N positions only (a quick look)")
    ap.add_argument("--out", default="")
    args = ap.parse_args()
    for f in ("engine/engine-worker.js", "engine/gz-engine.wasm", "nets/index.json"):
        if not os.path.exists(os.path.join(args.site, f)):
            raise SystemExit(f"no {f} in {args.site}: build the site with browser/build.sh")
    out_dir = args.out or tempfile.mkdtemp(prefix="gz-wasm-bench-")
    os.makedirs(out_dir, exist_ok=True)
    server = serve(args.site)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    print(f"site {args.site}: {site_bytes(args.site) / 1e6:.2f} MB; server {base}; visits {args.visits}", flush=True)

    # 2 first, on a fresh profile (nothing in Chromium's cache); the server
    # has served nothing yet but the files are in the OS's cache ("warm").
    # The page: the server's listing of engine/, a small HTML page of the
    # site's origin.
    browser = Chromium(out_dir)
    try:
        # One request of each file through the server first: a warm server.
        import urllib.request
        for f in ("engine/engine-worker.js", "engine/gz-engine.js", "engine/gz-engine.wasm", "nets/index.json"):
            urllib.request.urlopen(f"{base}/{f}").read()
        browser.goto(f"{base}/engine/")
        if not browser.until("document.readyState === 'complete'", 60):
            raise SystemExit("the page did not load")
        browser.eval(WORKER_JS)
        first = browser.eval("""(async () => { await gz.init(); const ready = performance.now();
            const out = await gz.run(['START 15', 'INFO rule 0', 'INFO timeout_match 100000000',
                'INFO time_left 100000000', 'INFO timeout_turn 600000', 'INFO max_node 256', 'BEGIN']);
            return {ready, move: performance.now(), reply: out}; })()""")
        print(f"page load to first move: {first['move'] / 1000:.2f} s from navigation start "
              f"(engine ready at {first['ready'] / 1000:.2f} s; Club, 256 visits, empty board: {first['reply'][-1]})",
              flush=True)

        chromium_pids = descendants(browser.proc.pid)
        native = Native(args.native)
        rows = []
        for i, moves in enumerate(POSITIONS[:args.positions]):
            lines = position_lines(moves, args.visits)
            result = {}
            for who in (("native", "wasm") if i % 2 == 0 else ("wasm", "native")):
                if who == "native":
                    c0 = cpu_seconds([native.proc.pid])
                    replies = native.search(lines)
                    cpu = cpu_seconds([native.proc.pid]) - c0
                else:
                    c0 = cpu_seconds(chromium_pids)
                    replies = browser.eval("gz.run(%s)" % json.dumps(lines))
                    cpu = cpu_seconds(chromium_pids) - c0
                sims, seconds = search_figures(replies, who)
                result[who] = (sims, seconds, cpu)
            n, w = result["native"], result["wasm"]
            rows.append(result)
            print(f"position {i + 1:2d} ({len(moves):2d} stones): native {n[0]} sims {n[0] / n[1]:7.0f}/s "
                  f"({n[0] / max(n[2], 1e-9):7.0f}/CPU-s); wasm {w[0]} sims {w[0] / w[1]:7.0f}/s "
                  f"({w[0] / max(w[2], 1e-9):7.0f}/CPU-s); ratio {(w[0] / w[1]) / (n[0] / n[1]):.2f}", flush=True)
        native.close()
    finally:
        browser.close()

    page_ready, page_move = page_first_move(base, out_dir) if os.path.exists(os.path.join(args.site, "index.html")) else (0, 0)
    server.shutdown()
    if page_move:
        print(f"the page itself (index.html, fresh profile): engine ready at {page_ready:.2f} s, its first move as black "
              f"at the default level at {page_move:.2f} s from navigation start", flush=True)

    def total(who, k):
        return sum(r[who][0] for r in rows) / sum(r[who][k] for r in rows)

    nat, was = total("native", 1), total("wasm", 1)
    nat_cpu, was_cpu = total("native", 2), total("wasm", 2)
    ratios = [(r["wasm"][0] / r["wasm"][1]) / (r["native"][0] / r["native"][1]) for r in rows]
    print(f"simulations a second over the {len(rows)} positions: native {nat:.0f}, wasm {was:.0f}: wasm / native = {was / nat:.2f} "
          f"(median of the positions' ratios {statistics.median(ratios):.2f})")
    print(f"simulations a CPU-second: native {nat_cpu:.0f}, wasm {was_cpu:.0f}: wasm / native = {was_cpu / nat_cpu:.2f}")
    print(f"page load to first move {first['move'] / 1000:.2f} s (target <= 2 s); site {site_bytes(args.site) / 1e6:.2f} MB "
          f"(target <= 6 MB); wasm / native {was / nat:.2f} (target >= 0.6)")


if __name__ == "__main__":
    main()
