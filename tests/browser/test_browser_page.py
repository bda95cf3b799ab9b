#!/usr/bin/env python3
"""The browser page (browser/page/, docs/play.md "In the browser") in headless
Chromium against the real WebAssembly engine, from the assembled site
(build/browser/site/, browser/build.sh) on a local static server:

  - a short whole game in every rule (freestyle, standard, renju, caro,
    caro-overline; 15x15 and 20x20; the human side clicked on the board, the
    engine on the other, both colours) and one from each swap2 opening, each
    refereed here by its rule: the engine makes the five and the page says so;
  - renju: black's forbidden point drawn and a click on it refused;
  - caro: a six by click wins under caro-overline (rule 8) and freestyle, not
    under caro (rule 9) or standard, and the engine takes its own six under
    caro-overline;
  - analysis of a won position: n-best with win rate and visits, the line
    drawn on the board, the solver's proof shown apart from the net's
    estimate; balance one and two; Stop ends a long analysis and a long move;
  - records: .psq and the move list out and back in, undo / redo, a PNG;
  - offline: the static server stopped, a reload still plays (service worker);
  - the dashboard serves the same page under /board/ (content types, no path
    traversal, /board redirects) and the engine plays there.

    test_browser_page.py [SITE_DIR]      (default: build/browser/site)

Fails, never skips, when Chromium or the site is missing.  Exit 0 when every
check passed.  Output and screenshots: $GZ_TEST_TMP/test_browser_page/.
"""
import base64
import http.client
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "../.."))
sys.path.insert(0, os.path.join(ROOT, "tests/dashboard"))
sys.path.insert(0, HERE)
from cdp_browser import Chromium, make_check  # noqa: E402
from test_browser_page_driver import Page, referee  # noqa: E402

SITE = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build/browser/site"))
BIN = os.environ.get("GZ_BIN_DIR", os.path.join(ROOT, "build/bin"))
OUT = os.path.join(os.environ.get("GZ_TEST_TMP", "/tmp"), "test_browser_page")
failures = []
check = make_check(failures)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def answers(url):
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.status == 200
    except (urllib.error.URLError, OSError):
        return False


def wait_until(f, limit_s):
    """A hang guard, not a timing check."""
    deadline = time.time() + limit_s
    while time.time() < deadline:
        if f():
            return True
        time.sleep(0.2)
    return False


def require_site():
    missing = [f for f in ("index.html", "app.js", "sw.js", "engine/engine-worker.js", "engine/gz-engine.js",
                           "engine/gz-engine.wasm", "nets/index.json") if not os.path.isfile(os.path.join(SITE, f))]
    if missing:
        print("FAILED: the site %s lacks %s: run browser/build.sh" % (SITE, ", ".join(missing)))
        sys.exit(1)


def check_no_internet_urls():
    """The page's own files name no other origin (no CDN, no web font)."""
    pattern = re.compile(r"""(src|href|import|url|fetch|register|Worker)\s*[=(]?\s*['"(]\s*(https?:)?//""", re.I)
    bad = []
    for name in sorted(os.listdir(os.path.join(ROOT, "browser/page"))):
        text = open(os.path.join(ROOT, "browser/page", name), encoding="utf-8").read()
        bad += ["%s: %s" % (name, m.group(0)) for m in pattern.finditer(text)]
    check("the page's files load nothing from another origin", not bad, bad)


# ---- the games ------------------------------------------------------------

def whole_game(page, rule, size, side, opening="plain"):
    """A game to its end: the human (this script) plays scattered stones two
    points apart along the edges, which never make five, so the engine wins."""
    what = "%s %dx%d, engine %s, %s opening" % (rule, size, size, side.replace("engine-", "plays "), opening)
    page.setup(size=size, rule=rule, side=side, opening=opening, level="casual")
    page.new_game()
    if opening == "swap2-you":
        for p in ((size // 2, size // 2), (size // 2 + 1, size // 2 + 1), (size // 2 - 1, size // 2 + 1)):
            page.click_point(*p)
        s = page.settle()
        if s["phase"] == "swap2-you-choose":
            page.click("#swap2-white")
    elif opening == "swap2-engine":
        s = page.settle()
        check(what + ": the engine placed three stones", len(s["moves"]) == 3 and s["phase"] == "swap2-you-decide",
              s["phase"])
        page.click("#swap2-two")
        page.click_point(0, 0)
        page.click_point(size - 1, size - 1)
    s = page.play_out(size)
    engine_colour = 1 if s["side"] == "engine-black" else 2
    moves = [(m["x"], m["y"]) for m in s["moves"]]
    ref = referee(rule, size, moves)
    ok = check(what + ": the engine won by five, as this script referees the rule",
               s["result"] and s["result"]["winner"] == engine_colour and ref == (engine_colour, len(moves) - 1),
               "page %s, referee %s, %d moves, message %r" % (s["result"], ref, len(moves), s["message"]))
    if not ok:
        page.browser.screenshot(os.path.join(OUT, "failed-%s-%d.png" % (rule, size)))
    check(what + ": no error shown", not re.search(r"ERROR|fail|the engine answered|unexpected|gave no",
                                                   s["message"] or ""), s["message"])
    return s


def renju_forbidden(page):
    # Black to move: 7,7 would make two open threes (column 7 and row 7).
    page.setup(size=15, rule="renju", side="none")
    page.load_record(json.dumps({"boardSize": 15, "rule": "renju", "moves": [
        ["B", "7,5"], ["W", "0,0"], ["B", "7,6"], ["W", "14,0"], ["B", "5,7"], ["W", "0,14"], ["B", "6,7"], ["W", "14,14"]]}))
    s = page.settle()
    forbid = [(p["x"], p["y"]) for p in (s["forbid"] or [])]
    check("renju: the engine names 7,7 forbidden for black", (7, 7) in forbid, forbid)
    check("renju: the forbidden point is drawn on the board",
          (7, 7) in [(p["x"], p["y"]) for p in s["drawn"]["forbid"]], s["drawn"]["forbid"])
    refused = s["refused"]
    page.click_point(7, 7)
    s = page.settle()
    check("renju: a click on the forbidden point is refused", len(s["moves"]) == 8 and s["refused"] == refused + 1
          and "forbidden" in s["message"], (len(s["moves"]), s["message"]))
    page.click_point(9, 9)
    s = page.settle()
    check("renju: a legal black move is taken", len(s["moves"]) == 9, s["message"])


SIX = {"boardSize": 15, "moves": [["B", "3,7"], ["W", "2,7"], ["B", "4,7"], ["W", "0,0"], ["B", "5,7"], ["W", "14,0"],
                                  ["B", "6,7"], ["W", "0,14"], ["B", "8,7"], ["W", "14,14"]]}


def caro_overline(page):
    # Black to move; 7,7 makes six (3..8 on row 7) and is black's only five.
    for rule, wins in (("caro-overline", True), ("caro", False), ("freestyle", True), ("standard", False)):
        page.setup(size=15, rule=rule, side="none")
        page.load_record(json.dumps(dict(SIX, rule=rule)))
        page.settle()
        page.click_point(7, 7)
        s = page.settle()
        got = s["result"] and s["result"]["winner"] == 1
        check("%s: a six by black %s" % (rule, "wins" if wins else "does not win, the game goes on"),
              len(s["moves"]) == 11 and bool(got) == wins, (s["result"], len(s["moves"]), s["message"]))
    page.setup(size=15, rule="caro-overline", side="none")
    page.load_record(json.dumps(dict(SIX, rule="caro-overline")))
    page.settle()
    page.set_select("side", "engine-black")
    s = page.settle()
    last = s["moves"][-1] if s["moves"] else None
    check("caro-overline: the engine (black) takes its own six and wins",
          last == {"x": 7, "y": 7} and s["result"] and s["result"]["winner"] == 1, (last, s["result"], s["message"]))


def analysed(page, record, visits):
    page.setup(size=15, rule="freestyle", side="none")
    page.load_record(json.dumps(record))
    page.settle()
    page.set_value("analysis-visits", str(visits))
    page.click("#analyse")
    page.browser.until("gz.state().analysing || gz.state().analysis", 30)
    s = page.settle()
    shown = page.browser.eval("[document.getElementById('proof').textContent, document.getElementById('proof').dataset.proven,"
                              " document.getElementById('net-eval').textContent,"
                              " document.querySelectorAll('#nbest tbody tr').length]")
    return s, (s["analysis"] or {}).get("moveInfos") or [], shown


def points(moves):
    return [tuple(map(int, m.split(","))) for m in moves]


def analysis(page):
    # An open game: the n-best with win rates and visits, the best line drawn.
    s, infos, shown = analysed(page, {"boardSize": 15, "moves": [["B", "7,7"], ["W", "8,8"], ["B", "8,6"]]}, 300)
    check("analysis: n-best with win rate and visits", len(infos) >= 2 and all(
        0 <= m["winrate"] <= 1 and m["visits"] >= 0 for m in infos) and infos[0]["visits"] > 0, s["analysis"])
    check("analysis: the n-best table lists them", shown[3] >= 2, shown[3])
    pv = [(p["x"], p["y"]) for p in s["drawn"]["pv"]]
    check("analysis: the principal variation is drawn on the board",
          len(pv) >= 2 and infos and pv == points(infos[0]["pv"]), (pv, infos[:1]))
    check("analysis: the net's estimate is a win rate; no proof here", "%" in shown[2] and shown[1] == "" and
          shown[0] == "no proof", shown)
    # Black to move with an open three on row 7 (6..8): the solver proves the win.
    s, infos, shown = analysed(page, {"boardSize": 15, "moves": [
        ["B", "7,7"], ["W", "3,3"], ["B", "6,7"], ["W", "3,11"], ["B", "8,7"], ["W", "11,3"]]}, 300)
    proof = infos[0].get("proof") if infos else None
    check("analysis of a won position: the winning move with its proof and line",
          proof and proof["result"] == "win" and proof["plies"] > 0 and infos[0]["pv"], infos)
    marks = [(p["x"], p["y"], p["label"]) for p in s["drawn"]["nbest"]]
    check("analysis of a won position: the board marks the move W<plies>, not a win rate",
          proof and marks and marks[0][2] == "W%d" % proof["plies"], marks)
    pv = [(p["x"], p["y"]) for p in s["drawn"]["pv"]]
    check("analysis of a won position: its line is drawn", infos and pv and pv == points(infos[0]["pv"]), pv)
    check("analysis of a won position: the solver's proof (a win, with its length) is shown apart from the net's line",
          shown[1] == "win" and re.search(r"wins in (>=)?\d+ plies", shown[0]) and "plies" not in shown[2]
          and "proven" in shown[2], shown)
    ev = s["evals"][6] if len(s["evals"]) > 6 else None
    check("analysis: the graph marks the position proven for black", ev and ev.get("proven") == "B" and ev.get("plies"), ev)
    page.browser.screenshot(os.path.join(OUT, "analysis.png"))
    # Balance advice on the empty board, one and two moves deep.
    page.new_game()
    page.settle()
    page.set_select("level", "novice")
    for button, n in (("#balance-one", 1), ("#balance-two", 2)):
        page.click(button)
        page.browser.until("gz.state().thinking || gz.state().balance.length", 30)
        s = page.settle()
        check("balance %d: %d advised move(s) drawn" % (n, n), len(s["balance"]) == n and len(s["drawn"]["balance"]) == n,
              (s["balance"], s["message"]))


def stop(page):
    page.setup(size=15, rule="freestyle", side="none")
    page.new_game()
    page.settle()
    page.set_value("analysis-visits", "1000000")
    page.click("#analyse")
    got = page.browser.until("(() => { const a = gz.state().analysis; return a && a.rootInfo && a.rootInfo.visits > 0; })()", 60)
    check("stop: a long analysis reports while it searches", got)
    page.click("#stop")
    s = page.settle(60)
    a = s["analysis"] or {}
    check("stop: Stop ends the analysis with its final answer",
          not s["analysing"] and a.get("isDuringSearch") is False and a["rootInfo"]["visits"] < 1000000, a.get("rootInfo"))
    page.set_select("level", "time")
    page.set_value("seconds", "600")
    page.click("#engine-move")
    check("stop: a 600 s move starts", page.browser.until("gz.state().thinking", 30))
    page.click("#stop")
    s = page.settle(60)
    check("stop: Stop makes the engine move now", len(s["moves"]) == 1, s["message"])


def records(page):
    game = page.settle()  # the game just played
    size, moves = game["size"], game["moves"]
    page.click("#show-psq")
    psq = page.browser.eval("document.getElementById('record').value")
    lines = psq.splitlines()  # a textarea's value has \n line ends
    check(".psq out: Piskvork's header, 1-based moves, -1", lines[0] == "Piskvorky %dx%d, 11:11, 0" % (size, size)
          and lines[1] == "%d,%d,0" % (moves[0]["x"] + 1, moves[0]["y"] + 1) and "-1" in lines, lines[:3])
    page.click("#show-moves")
    listed = json.loads(page.browser.eval("document.getElementById('record').value"))
    check("move list out: the analysis engine's fields", listed["boardSize"] == size and listed["moves"][0] ==
          ["B", "%d,%d" % (moves[0]["x"], moves[0]["y"])] and len(listed["moves"]) == len(moves), listed)
    page.set_select("side", "none")
    page.new_game()
    page.settle()
    for text, what in ((psq, ".psq"), (json.dumps(listed), "move list")):
        page.load_record(text)
        s = page.settle()
        check(what + " in: the same moves and board", s["moves"] == moves and s["size"] == size, s["message"])
    page.click("#undo")
    s = page.settle()
    check("undo takes back a move", s["moves"] == moves[:-1], len(s["moves"]))
    page.click("#redo")
    s = page.settle()
    check("redo puts it back", s["moves"] == moves, len(s["moves"]))
    png = base64.b64decode(page.browser.eval("gz.pngDataUrl()").split(",", 1)[1])
    check("a PNG of the board", png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5000, len(png))
    page.load_record("Piskvorky 15x15, 11:11, 0\r\n1,1,0\r\n1,1,0\r\n-1\r\n")
    s = page.settle()
    check("a record with a point twice is refused by name", "occupied" in s["message"], s["message"])


def offline(page, server, url):
    cached = page.browser.until(
        "navigator.serviceWorker.ready.then(() => caches.keys()).then((ks) => Promise.all(ks.map((k) => caches.open(k)"
        ".then((c) => c.keys())))).then((all) => { const u = all.flat().map((r) => r.url);"
        " return u.some((x) => x.endsWith('gz-engine.wasm')) && u.some((x) => x.endsWith('.pt')) && u.length; })", 120)
    check("offline: the service worker cached the page, the engine and the nets", cached, cached)
    server.terminate()
    server.wait()
    check("offline: the static server is gone", not answers(url))
    page.browser.goto(url)
    ready = page.wait_ready()
    check("offline: the reloaded page starts the engine", ready, page.browser.eval("document.body.innerText")[:300])
    page.setup(size=15, rule="freestyle", side="engine-black")
    page.new_game()
    s = page.settle()
    check("offline: the engine plays the first move", len(s["moves"]) == 1, s["message"])


def dashboard(b):
    run = os.path.join(OUT, "run")
    os.makedirs(run, exist_ok=True)
    log = open(os.path.join(OUT, "dashboard.log"), "w")
    proc = subprocess.Popen([os.path.join(BIN, "gz_dashboard"), "--run-dir", run, "--port", "0", "--site-dir", SITE],
                            stdout=subprocess.PIPE, stderr=log, text=True)
    try:
        line = proc.stdout.readline()
        if not check("the dashboard starts", line.startswith("dashboard: http"), line):
            return
        base = line.split(" ", 1)[1].strip()
        host, port = re.match(r"http://([^:/]+):(\d+)/", base).groups()

        def get(target):
            c = http.client.HTTPConnection(host, int(port), timeout=30)
            c.request("GET", target)
            r = c.getresponse()
            body = r.read()
            c.close()
            return r.status, r.getheader("Content-Type"), r.getheader("Location"), body
        for target, want in (("/board/", "text/html"), ("/board/engine/gz-engine.wasm", "application/wasm"),
                             ("/board/engine/engine-worker.js", "text/javascript"), ("/board/nets/index.json", "application/json"),
                             ("/board/sw.js", "text/javascript")):
            status, ctype, _, body = get(target)
            same = body == open(os.path.join(SITE, target[len("/board/"):] or "index.html"), "rb").read()
            check("dashboard: %s is the site's file as %s" % (target, want), status == 200 and ctype.startswith(want) and same,
                  (status, ctype))
        status, _, location, _ = get("/board")
        check("dashboard: /board redirects to /board/", status == 301 and location == "/board/", (status, location))
        for target in ("/board/../../../etc/passwd", "/board/%2e%2e/%2e%2e/etc/passwd", "/board/engine/..%2f..%2f..%2fetc/passwd",
                       "/board//etc/passwd", "/board/.hidden"):
            status, _, _, body = get(target)
            check("dashboard: %s is refused" % target, status in (400, 404) and b"root:" not in body, status)
        status, ctype, _, _ = get("/")
        check("dashboard: its own page still answers", status == 200 and ctype.startswith("text/html"), status)
        page = Page(b)
        b.goto(base + "board/")
        check("dashboard: the board's engine starts there", page.wait_ready(), b.eval("document.body.innerText")[:300])
        page.setup(size=15, rule="renju", side="engine-black")
        page.new_game()
        s = page.settle()
        check("dashboard: the engine plays the first move there", len(s["moves"]) == 1, s["message"])
    finally:
        proc.terminate()
        proc.wait()


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    require_site()
    check_no_internet_urls()
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", SITE],
                              stdout=open(os.path.join(OUT, "static-server.log"), "w"), stderr=subprocess.STDOUT)
    url = "http://127.0.0.1:%d/index.html" % port
    b = None
    try:
        if not wait_until(lambda: answers(url), 30):
            print("FAILED: the static server did not come up on port %d" % port)
            sys.exit(1)
        b = Chromium(OUT)
        page = Page(b)
        b.goto(url)
        if not check("the page starts the engine", page.wait_ready(), b.eval("document.body.innerText")[:500]):
            sys.exit(1)
        loaded = b.eval("performance.getEntriesByType('resource').map((e) => e.name)")
        check("the page loaded only from its own server", loaded and all(u.startswith("http://127.0.0.1:%d/" % port)
                                                                        for u in loaded), loaded)
        whole_game(page, "freestyle", 15, "engine-white")
        whole_game(page, "standard", 15, "engine-black")
        whole_game(page, "renju", 15, "engine-white")
        whole_game(page, "caro", 15, "engine-black")
        whole_game(page, "caro-overline", 15, "engine-white")
        whole_game(page, "freestyle", 20, "engine-black")
        whole_game(page, "standard", 15, "engine-white", opening="swap2-you")
        whole_game(page, "freestyle", 15, "engine-white", opening="swap2-engine")
        records(page)
        renju_forbidden(page)
        caro_overline(page)
        analysis(page)
        stop(page)
        b.screenshot(os.path.join(OUT, "page.png"))
        offline(page, server, url)
        dashboard(b)
    finally:
        if b:
            b.close()
        if server.poll() is None:
            server.terminate()
            server.wait()
    print("screenshots: %s" % OUT)
    if failures:
        print("FAILED: %d check(s): %s" % (len(failures), "; ".join(failures)))
        sys.exit(1)
    print("all browser page checks passed")


if __name__ == "__main__":
    main()
