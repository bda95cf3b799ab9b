#!/usr/bin/env python3
"""The dashboard's analysis board in headless Chromium (docs/dashboard.md
"Analysis"): a run directory (solver on, as configs/cpu.json) before its first checkpoint (so the newest shipped
net analyses with the run's search settings), gz_dashboard on it, and the
rendered page: a pasted position gets moves with win rates that appear and
update while the search runs, a line on hover, the policy heat map; a
self-play game (one the real worker played into the run, with random opening
stones) opened in the game viewer, stepped to a move and analysed: its
position (opening included) gets moves with win rates that update, and stop
ends that search; a click adds
a stone and restarts; a browser game's position is analysed; a solver-proven
win shows as W5; stop ends a search; leaving the page stops its search.
Screenshot: $GZ_TEST_TMP/test_dashboard_analysis/analysis.png.  Exit 0 when every check passed.
"""
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp_browser import Chromium, make_check  # noqa: E402

BIN = os.environ.get("GZ_BIN_DIR", os.path.join(os.path.dirname(__file__), "../../build/bin"))
OUT = os.path.join(os.environ.get("GZ_TEST_TMP", "/tmp"), "test_dashboard_analysis")
failures = []
check = make_check(failures)


def api(url):
    with urllib.request.urlopen(url, timeout=30) as r:
        return json.load(r)


shutil.rmtree(OUT, ignore_errors=True)
run = os.path.join(OUT, "run")
os.makedirs(run)
with open(os.path.join(run, "metadata.json"), "w") as f:
    json.dump({"config": {"mcts": {"solver": True}}, "format_version": 1, "iteration": 0, "model_generation": 0, "updated_at": 0.0,
               "weights": ""}, f)
# One self-play game by the real worker (standalone, no network: uniform
# priors) into the run's games/it0, the run's board and rule, three random
# opening stones so that the viewer's position has stones that are not moves.
worker_config = os.path.join(OUT, "worker.json")
with open(worker_config, "w") as f:
    json.dump({"mcts": {"solver": True, "simulations": 16}, "selfplay": {"random_opening_moves": 3}}, f)
games = os.path.join(run, "games", "it0")
played = subprocess.run([os.path.join(BIN, "worker"), "--config", worker_config, "--id", "0", "--games", "1", "--out", games,
                         "--weights", "uniform", "--iteration", "0"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                        timeout=120)
game_files = sorted(os.listdir(games)) if os.path.isdir(games) else []
if played.returncode != 0 or len(game_files) != 1:
    raise SystemExit("FAILED: the worker did not play one game (rc %d, files %s): %s"
                     % (played.returncode, game_files, played.stdout.decode(errors="replace")[-2000:]))
game = np.load(os.path.join(games, game_files[0]))
log = open(os.path.join(OUT, "dashboard.log"), "w")
dash = subprocess.Popen([os.path.join(BIN, "gz_dashboard"), "--run-dir", run, "--port", "0"], stdout=log,
                        stderr=subprocess.STDOUT)
browser = None
try:
    url = None
    for _ in range(300):  # the address line (a hang guard)
        for line in open(os.path.join(OUT, "dashboard.log")):
            if line.startswith("dashboard: http"):
                url = line.split(" ", 1)[1].strip().rstrip("/")
        if url or dash.poll() is not None:
            break
        time.sleep(0.1)
    if not url:
        raise SystemExit("FAILED: gz_dashboard did not come up: " + open(os.path.join(OUT, "dashboard.log")).read())
    browser = Chromium(OUT)
    browser.goto(url + "/")
    check("the page has the analysis board", browser.until("document.getElementById('analysis-board') !== null"))

    # The game viewer's game, stepped to a move with the buttons, analysed:
    # the position is the viewer's (opening stones and moves), its moves get
    # win rates that update while the search runs, and stop ends it.
    check("the viewer opened the worker's game",
          browser.until("document.getElementById('viewer-board').dataset.file === %s" % json.dumps(game_files[0])))
    step = min(2, len(game["moves"]) - 1)
    browser.click("#viewer-first")
    for _ in range(step):
        browser.click("#viewer-next")
    position = [int(p) for p in game["opening"]] + [int(p) for p in game["moves"][:step]]
    check("the viewer shows move %d: %d stones" % (step, len(position)),
          browser.until("document.querySelectorAll('#viewer-board .stone').length === %d" % len(position), 30))
    browser.click("#analysis-from-viewer")
    stones = ("(b => [...document.querySelectorAll(b + ' .cell')].map(c => { const s = c.querySelector('.stone');"
              " return s ? (s.classList.contains('black') ? 1 : 2) : 0; }))")
    check("the viewer's position is analysed, opening stones first",
          browser.until("analysis.id !== null && analysis.state && JSON.stringify(analysis.state.moves) === %s"
                        % json.dumps(json.dumps(position, separators=(",", ":")))),
          browser.eval("analysis.state && analysis.state.moves"))
    check("the analysis board shows the viewer's stones point by point",
          browser.eval("JSON.stringify(%s('#viewer-board')) === JSON.stringify(%s('#analysis-board'))" % (stones, stones)))
    # The table's visits, summed over its rows, while the search runs (0: not yet).
    table_visits = ("(() => { const rows = [...document.querySelectorAll('#analysis-table tbody tr')];"
                    " const sum = rows.reduce((a, r) => a + Number(r.children[1].textContent), 0);"
                    " const marks = document.querySelectorAll('#analysis-board .amark').length;"
                    " return rows.length > 0 && marks > 0 && rows.every(r => r.children[2].textContent.endsWith('%'))"
                    " ? sum : 0; })()")
    first = browser.until("document.getElementById('analysis-status').dataset.done === 'false' && " + table_visits)
    check("the viewer position's moves with win rates appear in the table and on the board", first)
    later = browser.until("(v => v > %d ? v : 0)(%s)" % (first or 0, table_visits))
    check("... and update while the search runs (the table's visits %s -> %s)" % (first, later), later)
    n = int(game["board_size"])
    rows = browser.eval("[...document.querySelectorAll('#analysis-table tbody tr')].map(r =>"
                        " [...r.children].map(c => c.textContent))") or []
    free = [r for r in rows if "," in r[0] and int(r[0].split(",")[0]) * n + int(r[0].split(",")[1]) not in position]
    check("the table lists empty points with visits and win rates",
          rows and len(free) == len(rows) and all(r[2].endswith("%") and int(r[1]) >= 0 for r in rows), rows)
    browser.click("#analysis-stop")
    stopped = browser.until("document.getElementById('analysis-status').dataset.done === 'true'"
                            " && document.getElementById('analysis-status').dataset.visits", 60)
    check("stop ends the viewer position's search (at %s visits)" % stopped, stopped)
    deadline = time.time() + 30  # a hang guard
    while time.time() < deadline and api(url + "/api/status")["analysis"]["running"] > 0:
        time.sleep(0.2)
    check("... and the server runs no analysis", api(url + "/api/status")["analysis"]["running"] == 0)

    # A pasted position: moves with win rates appear, then update while the search runs.
    browser.eval("document.getElementById('analysis-input').value = '7,7 8,8'")
    browser.click("#analysis-paste")
    first = browser.until("(() => { const s = document.getElementById('analysis-status');"
                          " const n = document.querySelectorAll('#analysis-board .amark').length;"
                          " return n > 0 && Number(s.dataset.visits) > 0 ? Number(s.dataset.visits) : 0; })()")
    check("moves with win rates appear on the board", first)
    later = browser.until("Number(document.getElementById('analysis-status').dataset.visits) > %d" % (first or 0))
    check("the analysis updates while the search runs", later)
    rows = browser.eval("[...document.querySelectorAll('#analysis-table tbody tr')].map(r =>"
                        " [...r.children].map(c => c.textContent))")
    check("the table lists moves, visits, win rate, prior, line",
          rows and all(len(r) == 5 and "," in r[0] and int(r[1]) >= 0 and r[2].endswith("%") for r in rows), rows)
    check("the board marks a number on the best moves",
          browser.eval("[...document.querySelectorAll('#analysis-board .amark')].every(m => /^\\d+$/.test(m.textContent))"))
    check("the policy heat map is drawn", browser.eval("document.querySelectorAll('#analysis-board .heat').length > 10"))
    browser.hover("#analysis-table tbody tr")
    check("hovering a move shows its line", browser.until("document.querySelectorAll('#analysis-board .apv').length >= 2", 10))
    browser.eval("document.getElementById('analysis').scrollIntoView()")
    browser.screenshot(os.path.join(OUT, "analysis.png"))
    check("screenshot saved", os.path.getsize(os.path.join(OUT, "analysis.png")) > 10000)
    browser.hover("h2")

    # A click on an empty point adds a stone and analyses again.
    browser.click("#analysis-board .cell[data-point='0']")
    check("a clicked stone starts a new analysis",
          browser.until("analysis.moves.length === 3 && document.querySelectorAll('#analysis-board .amark').length > 0"))

    # Stop: the search ends.
    browser.click("#analysis-stop")
    check("stop ends the search", browser.until("document.getElementById('analysis-status').dataset.done === 'true'", 60))

    # A solver-proven win (black's four-three) is a distance, not a win rate.
    browser.eval("document.getElementById('analysis-input').value = "
                 "'5,3 5,2 5,4 0,0 5,5 0,14 6,6 14,0 7,6 14,14'")
    browser.click("#analysis-paste")
    proof = browser.until("(() => { const m = document.querySelector('#analysis-board .amark.proven-win');"
                          " return m ? m.textContent : null; })()")
    check("a proven win shows as W5", proof == "W5", proof)
    check("the proven move is 6,5 (row 5, col 6)",
          browser.eval("document.querySelector('#analysis-board .amark.proven-win').parentNode.dataset.point") == str(5 * 15 + 6))

    # The browser game's position.
    browser.click("#play-new")
    browser.until("play.state && play.state.moves.length >= 0 && !play.busy")
    browser.click("#analysis-from-play")
    check("the browser game's position is analysed",
          browser.until("play.state && analysis.moves.length === play.state.moves.length && analysis.id !== null"
                        " && document.querySelectorAll('#analysis-board .amark').length > 0"))

    # Leaving the page stops its search (bounded analyses: nothing keeps running).
    browser.eval("document.getElementById('analysis-input').value = '7,7'")
    browser.click("#analysis-paste")
    browser.until("analysis.state && !analysis.state.done")
    running = api(url + "/api/status")["analysis"]["running"]
    check("an analysis runs", running >= 1, running)
    browser.goto("about:blank")
    deadline = time.time() + 30
    while time.time() < deadline and api(url + "/api/status")["analysis"]["running"] > 0:
        time.sleep(0.2)
    check("leaving the page stops its search", api(url + "/api/status")["analysis"]["running"] == 0)
finally:
    if browser:
        browser.close()
    dash.terminate()
    dash.wait(30)

print("%d check(s) failed" % len(failures) if failures else "all checks passed")
sys.exit(1 if failures else 0)
