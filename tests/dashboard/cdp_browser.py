"""Headless Chromium driven over the DevTools protocol on a pipe
(--remote-debugging-pipe: requests and replies are JSON, NUL-terminated, on
the child's fds 3 and 4).  For the dashboard's browser tests."""
import json
import os
import shutil
import subprocess
import time


def make_check(failures):
    """The browser tests' one check: prints ok / FAILED for `what`, appends a
    failure to `failures`, and returns `ok`."""
    def check(what, ok, detail=""):
        print(("ok: " if ok else "FAILED: ") + what + ("" if ok else "  (%s)" % (detail,)), flush=True)
        if not ok:
            failures.append(what)
        return ok
    return check


class Chromium:
    def __init__(self, out_dir, width=1400, height=1100):
        exe = shutil.which("chromium")
        if not exe:
            raise SystemExit("FAILED: Debian's chromium is not installed (launch/setup.sh installs it)")
        cmd_r, self._cmd_w = os.pipe()
        self._reply_r, reply_w = os.pipe()

        def child_fds():
            # Duplicate first: an end may already sit on fd 3 or 4.
            to_child, from_child = os.dup(cmd_r), os.dup(reply_w)
            os.dup2(to_child, 3)
            os.dup2(from_child, 4)

        log = open(os.path.join(out_dir, "chromium.log"), "w")
        self.proc = subprocess.Popen(
            [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--remote-debugging-pipe",
             "--user-data-dir=" + os.path.join(out_dir, "profile"), "about:blank"],
            preexec_fn=child_fds, close_fds=False, stdout=log, stderr=subprocess.STDOUT)
        os.close(cmd_r)
        os.close(reply_w)
        self._pending = b""
        self._seq = 0
        self._session = None
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self._session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.send("Page.enable")
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})

    def send(self, method, params=None):
        self._seq += 1
        request = {"id": self._seq, "method": method, "params": params or {}}
        if self._session is not None and not method.startswith("Target."):
            request["sessionId"] = self._session
        os.write(self._cmd_w, json.dumps(request).encode() + b"\0")
        for message in self._messages():
            if message.get("id") == self._seq:
                if "error" in message:
                    raise RuntimeError("%s: %s" % (method, message["error"]))
                return message.get("result", {})

    def _messages(self):
        while True:
            end = self._pending.find(b"\0")
            if end < 0:
                data = os.read(self._reply_r, 1 << 20)
                if not data:
                    raise RuntimeError("chromium closed its protocol pipe (see chromium.log)")
                self._pending += data
                continue
            raw, self._pending = self._pending[:end], self._pending[end + 1:]
            yield json.loads(raw)

    def goto(self, url):
        self.send("Page.navigate", {"url": url})

    def eval(self, script):
        result = self.send("Runtime.evaluate", {"expression": script, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in result:
            raise RuntimeError("script failed: " + json.dumps(result["exceptionDetails"])[:400])
        return result["result"].get("value")

    def until(self, script, limit_s=90):
        """The script's first truthy value, or None after limit_s (a hang guard, not a timing check)."""
        deadline = time.time() + limit_s
        while time.time() < deadline:
            try:
                value = self.eval(script)
            except RuntimeError:  # not loaded yet
                value = None
            if value:
                return value
            time.sleep(0.2)
        return None

    def click(self, selector):
        at = self.eval("(() => { const e = document.querySelector(%s); if (!e) return null;"
                       " e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
                       " return [r.x + r.width / 2, r.y + r.height / 2]; })()" % json.dumps(selector))
        if not at:
            raise RuntimeError("no element " + selector)
        for event in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent",
                      {"type": event, "x": at[0], "y": at[1], "button": "left", "clickCount": 1})

    def hover(self, selector):
        at = self.eval("(() => { const e = document.querySelector(%s); const r = e.getBoundingClientRect();"
                       " return [r.x + r.width / 2, r.y + r.height / 2]; })()" % json.dumps(selector))
        self.send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": at[0], "y": at[1]})

    def screenshot(self, path):
        import base64
        with open(path, "wb") as f:
            f.write(base64.b64decode(self.send("Page.captureScreenshot", {"format": "png"})["data"]))

    def close(self):
        self.proc.kill()
        self.proc.wait()
