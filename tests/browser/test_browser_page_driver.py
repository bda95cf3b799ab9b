"""Drives the browser page (browser/page/) for test_browser_page.py: its
controls set and clicked, the board clicked by point, the page's state read
through window.gz; and a referee of the rules written apart from the page's
rules.js, so a game's result is judged twice."""
import json
import time

SETTLED = """(() => { const s = gz.state();
  const waiting = s.thinking || s.analysing || s.busy || s.phase === 'swap2-engine-decide' ||
                  (!s.result && s.engineToMove);
  return waiting ? null : JSON.stringify(s); })()"""


class Page:
    def __init__(self, browser):
        self.browser = browser

    def wait_ready(self, limit_s=120):
        return self.browser.until("window.gz && gz.state().ready", limit_s)

    def state(self):
        return json.loads(self.browser.eval("JSON.stringify(gz.state())"))

    def settle(self, limit_s=300):
        """The state once the engine owes nothing: the human's turn, a choice, or the end."""
        got = self.browser.until(SETTLED, limit_s)
        if not got:
            raise RuntimeError("the page did not settle in %d s: %s" % (limit_s, json.dumps(self.state())[:600]))
        return json.loads(got)

    def click(self, selector):
        self.browser.click(selector)

    def set_select(self, element_id, value):
        got = self.browser.eval("(() => { const e = document.getElementById(%s); e.value = %s;"
                                " e.dispatchEvent(new Event('change')); return e.value; })()"
                                % (json.dumps(element_id), json.dumps(value)))
        if got != value:
            raise RuntimeError("#%s has no option %r" % (element_id, value))

    def set_value(self, element_id, value):
        self.set_select(element_id, value)

    def setup(self, size, rule, side, opening="plain", level=None):
        self.settle()
        if self.state()["size"] != size:
            self.set_select("size", str(size))
            self.settle()
        self.set_select("rule", rule)
        self.set_select("opening", opening)
        self.set_select("side", side)
        if level:
            self.set_select("level", level)
        self.settle()

    def new_game(self):
        self.click("#new-game")

    def load_record(self, text):
        self.browser.eval("document.getElementById('record').value = %s" % json.dumps(text))
        self.click("#load")

    def click_point(self, x, y):
        """A real mouse click on the point's centre."""
        self.settle()
        cx, cy = self.browser.eval("gz.clientOf(%d, %d)" % (x, y))
        for event in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.browser.send("Input.dispatchMouseEvent",
                              {"type": event, "x": cx, "y": cy, "button": "left", "clickCount": 1})
        time.sleep(0.05)  # the page handles the click before it is read back

    def play_out(self, size, max_moves=80):
        """The human's moves until the game ends: points two apart along the
        top and bottom rows, then the left and right columns (never five,
        never a renju foul), skipping occupied and forbidden ones."""
        order = [(x, y) for y in (0, size - 1, 2, size - 3) for x in range(0, size, 2)]
        order += [(x, y) for x in (0, size - 1) for y in range(4, size - 4, 2)]
        for _ in range(max_moves):
            s = self.settle()
            if s["result"]:
                return s
            taken = {(m["x"], m["y"]) for m in s["moves"]} | {(p["x"], p["y"]) for p in (s["forbid"] or [])}
            free = [p for p in order if p not in taken]
            if not free:
                raise RuntimeError("the script ran out of harmless points: %s" % s["moves"])
            before, refused = len(s["moves"]), s["refused"]
            self.click_point(*free[0])
            if not self.browser.until("gz.state().moves.length > %d || gz.state().refused > %d" % (before, refused), 30):
                raise RuntimeError("the click on %s was not taken: %s" % (free[0], self.state()["message"]))
        raise RuntimeError("no result after %d moves of the script" % max_moves)


def referee(rule, size, moves):
    """(colour, index) of the first move that wins under `rule` (1 black,
    2 white), or None.  Caro: exactly five with an open end (an end is closed
    by the other side's stone or the board's edge); caro-overline adds six or
    more; standard exactly five; renju exactly five for black, five or more
    for white; freestyle five or more (docs/play.md "Rules")."""
    board = {}
    for i, (x, y) in enumerate(moves):
        colour = 1 if i % 2 == 0 else 2
        board[(x, y)] = colour
        for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
            n, open_end = 1, False
            for sign in (1, -1):
                k = 1
                while board.get((x + sign * k * dx, y + sign * k * dy)) == colour:
                    n, k = n + 1, k + 1
                ex, ey = x + sign * k * dx, y + sign * k * dy
                open_end = open_end or (0 <= ex < size and 0 <= ey < size and (ex, ey) not in board)
            wins = {"freestyle": n >= 5, "standard": n == 5, "renju": n == 5 or (n > 5 and colour == 2),
                    "caro": n == 5 and open_end, "caro-overline": n >= 6 or (n == 5 and open_end)}[rule]
            if wins:
                return colour, i
    return None
