#!/usr/bin/env python3
"""Drives headless Chromium over the DevTools protocol (--remote-debugging-pipe)
against a running gz_dashboard and checks the RENDERED page against the run's
files: one chart point per finished iteration, one worker row per worker, the
viewer's stones equal to a real game file's, a screenshot, three moves of a
browser game (and a refused move that leaves the game as it was).

Usage: test_dashboard_browser.py URL RUN_DIR OUT_DIR.  Exit 0 when every check passed.
"""
import base64
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp_browser import Chromium  # noqa: E402  (one Chromium driver for the dashboard's browser tests)

URL, RUN, OUT = sys.argv[1:4]
fails = 0


def check(what, ok, detail=""):
    global fails
    print(("ok: " if ok else "FAILED: ") + what + ("" if ok else "  (" + str(detail) + ")"), flush=True)
    if not ok:
        fails += 1


def finished_iterations():
    its = set()
    for line in open(os.path.join(RUN, "generations.jsonl")):
        try:
            its.add(json.loads(line)["iteration"])
        except (ValueError, KeyError):
            pass
    return len(its)


def rated_points():
    n = 0
    for line in open(os.path.join(RUN, "ratings.jsonl")):
        try:
            n += json.loads(line).get("elo") is not None
        except ValueError:
            pass
    return n


def final_cells(path):
    z = np.load(path)
    size = int(z["board_size"])
    cells = z["boards"][-1].reshape(-1).copy()
    cells[int(z["moves"][-1])] = z["to_move"][-1]
    return cells, len(z["opening"]) + len(z["moves"]), size


b = Chromium(OUT, height=1000)
try:
    b.send("Page.navigate", {"url": URL})
    check("the page rendered a poll", b.until("Number(document.body.dataset.ready || 0) >= 1"),
          b.eval("document.getElementById('load-error').textContent"))
    check("no load error shown", b.eval("document.getElementById('load-error').textContent") == "",
          b.eval("document.getElementById('load-error').textContent"))
    n = finished_iterations()
    check("the run finished iterations (%d)" % n, n >= 2)
    for chart in ["loss", "entropy", "rate", "batch", "busy", "time", "length", "wins"]:
        got = b.eval("document.getElementById('chart-%s').dataset.points" % chart)
        check("chart %s has one point per finished iteration (%s == %d)" % (chart, got, n), got == str(n), got)
    got = b.eval("document.getElementById('chart-elo').dataset.points")
    check("Elo chart has one point per rated checkpoint (%s == %d)" % (got, rated_points()), got == str(rated_points()))
    workers = json.load(open(os.path.join(RUN, "config.json")))["run"]["worker_count"]
    rows = b.eval("document.querySelectorAll('#workers tbody tr').length")
    check("worker table has one row per worker (%s == %d)" % (rows, workers), rows == workers, rows)

    # The game viewer: the stones it draws are the file's final position, point by point.
    check("the viewer loaded a game", b.until("document.getElementById('viewer-board').dataset.file"))
    it = b.eval("document.getElementById('viewer-board').dataset.iteration")
    name = b.eval("document.getElementById('viewer-board').dataset.file")
    cells, stones, size = final_cells(os.path.join(RUN, "games", "it" + it, name))
    drawn = b.eval("Array.from(document.querySelectorAll('#viewer-board .cell')).map("
                 "c => { const s = c.querySelector('.stone'); return s ? (s.classList.contains('black') ? 1 : 2) : 0; })")
    check("viewer shows it%s/%s: %d stones" % (it, name, stones), drawn is not None and sum(1 for c in drawn if c) == stones)
    check("viewer stones match the file point by point", drawn == [int(c) for c in cells])
    z = np.load(os.path.join(RUN, "games", "it" + it, name))
    end = ("resigned" if "resigned" in z.files and int(z["resigned"]) else
           "proven" if "adjudicated" in z.files and int(z["adjudicated"]) else
           "draw" if int(z["winner"]) == 0 else "five")
    shown = b.eval("document.getElementById('viewer-info').dataset.end")
    check("viewer says how the game ended as the file does (%s == %s)" % (shown, end), shown == end)
    b.click("#viewer-first")
    opening = len(z["opening"])
    check("step to move 0: only the opening stones, and a policy heat map",
          b.until("document.querySelectorAll('#viewer-board .stone').length === %d && "
                 "document.querySelectorAll('#viewer-board .heat').length > 0" % opening, 10))
    # The run plays with the playout cap on (test_dashboard_browser.sh): the file marks each move.
    check("the game file has the playout cap's marks", "full_search" in z.files)
    if "full_search" in z.files:
        for t in sorted({0, len(z["moves"]) - 1, int(np.argmin(z["full_search"])), int(np.argmax(z["full_search"]))}):
            b.eval("document.getElementById('viewer-step').value = %d; "
                 "document.getElementById('viewer-step').dispatchEvent(new Event('input'))" % t)
            want = "true" if int(z["full_search"][t]) else "false"
            got = b.eval("document.getElementById('viewer-move').dataset.fullSearch")
            check("move %d: the viewer marks a %s search as the file does" % (t, "full" if want == "true" else "cheap"),
                  got == want, got)
    b.click("#viewer-last")

    height = b.eval("window.scrollTo(0, 0); document.documentElement.scrollHeight")
    b.send("Emulation.setDeviceMetricsOverride", {"width": 1400, "height": height, "deviceScaleFactor": 1, "mobile": False})
    time.sleep(0.5)  # let the charts take the new size before the picture
    shot = b.send("Page.captureScreenshot", {"format": "png"})
    with open(os.path.join(OUT, "dashboard.png"), "wb") as f:
        f.write(base64.b64decode(shot["data"]))
    check("screenshot saved", os.path.getsize(os.path.join(OUT, "dashboard.png")) > 10000)
    b.send("Emulation.setDeviceMetricsOverride", {"width": 1400, "height": 1000, "deviceScaleFactor": 1, "mobile": False})

    # A browser game: the human is black; three moves, each answered by the net.
    b.click("#play-new")
    check("a browser game started", b.until("document.getElementById('play-board').dataset.moves === '0'", 60),
          b.eval("document.getElementById('play-error').textContent"))
    for k in range(3):
        if b.eval("document.getElementById('play-board').dataset.over") == "true":
            break
        empty = b.eval("(() => { const cs = Array.from(document.querySelectorAll('#play-board .cell'));"
                     " const n = Math.round(Math.sqrt(cs.length)), mid = (n * n - 1) / 2;"
                     " const free = cs.filter(c => !c.querySelector('.stone')).map(c => Number(c.dataset.point));"
                     " free.sort((a, b) => Math.abs(a - mid) - Math.abs(b - mid)); return free[0]; })()")
        b.click("#play-board .cell[data-point='%d']" % empty)
        ok = b.until("document.getElementById('play-board').dataset.busy === 'false' && "
                    "(document.getElementById('play-board').dataset.moves === '%d' || "
                    "document.getElementById('play-board').dataset.over === 'true')" % (2 * k + 2), 120)
        check("browser move %d at point %d answered by the net" % (k + 1, empty), ok,
              b.eval("document.getElementById('play-error').textContent"))
    moves = b.eval("document.getElementById('play-board').dataset.moves")
    occupied = b.eval("Number(document.querySelector('#play-board .stone').parentElement.dataset.point)")
    b.click("#play-board .cell[data-point='%d']" % occupied)
    err = b.until("document.getElementById('play-error').textContent", 30)
    check("a move on an occupied point is refused with a clear error", err and "occupied" in err, err)
    check("... and the game goes on unchanged",
          b.eval("document.getElementById('play-board').dataset.moves") == moves)
finally:
    b.close()

print("%d failed" % fails)
sys.exit(1 if fails else 0)
