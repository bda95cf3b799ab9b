#!/usr/bin/python3
"""Makes an even opening set: common/game/even_openings_SxS_RULE.inc.

    tools/even_openings.py [--size 15] [--rule freestyle] [--judge build/bin/classical_judge]
                           [--screen-nodes 10000] [--nodes 100000] [--count 24] [--out FILE]
    tools/even_openings.py [--size S] --check FILE     validate a set (what the C++ loader checks, in Python)

Candidates: every 3-stone opening (black, white, black; white to move) with all
stones in the central square of the board (5x5 on odd sizes, 6x6 on even
ones, so that the square maps onto itself under the 8 symmetries), one per
class of the 8 board symmetries.  Each is rated by the classical player (`classical_judge`, common/
search/classical.h) from the side to move's view: first a screen at
--screen-nodes, then the 4 x count candidates nearest zero again at --nodes; the
`count` nearest zero at --nodes are kept (ties to the lower points), and
written as C++ initialiser lines that common/match/openings.cc includes, each with its
score.  Deterministic: the judge is, and so is the order.  Takes a few minutes
on one core; runs the judge single-threaded.
"""
import argparse
import json
import os
import subprocess
import sys

N = 15
LO, HI = 5, 10  # the central square: rows and columns LO..HI-1 (set_size)


def set_size(size):
    global N, LO, HI
    if not 9 <= size <= 22:
        sys.exit("even_openings: --size must be 9..22, got %d" % size)
    side = 5 if size % 2 else 6
    N, LO = size, (size - side) // 2
    HI = LO + side


def transform(p, s):
    r, c = divmod(p, N)
    for _ in range(s % 4):
        r, c = c, N - 1 - r
    if s >= 4:
        c = N - 1 - c
    return r * N + c


def canonical(black, white):
    best = None
    for s in range(8):
        key = (tuple(sorted(transform(p, s) for p in black)), tuple(sorted(transform(p, s) for p in white)))
        if best is None or key < best:
            best = key
    return best


def candidates():
    region = [r * N + c for r in range(LO, HI) for c in range(LO, HI)]
    seen = set()
    out = []
    for i, b1 in enumerate(region):
        for b2 in region[i + 1:]:
            for w in region:
                if w in (b1, b2):
                    continue
                key = canonical([b1, b2], [w])
                if key in seen:
                    continue
                seen.add(key)
                (b1c, b2c), (wc,) = key
                out.append([b1c, wc, b2c])  # played order: black, white, black
    return out


def judge(binary, nodes, openings, rule):
    text = "".join(",".join(map(str, o)) + "\n" for o in openings)
    res = subprocess.run([binary, "--nodes", str(nodes), "--size", str(N), "--rule", rule], input=text,
                         capture_output=True, text=True, check=True)
    return [json.loads(line) for line in res.stdout.splitlines()]


def check(path):
    """The set's rules: 3 distinct points each, in the central square, no two
    openings equal under symmetry.  Returns the openings."""
    opens = []
    for lineno, line in enumerate(open(path), 1):
        line = line.split("//")[0].strip()
        if not line:
            continue
        if not (line.startswith("{") and line.endswith("},")):
            sys.exit("%s:%d: expected {p, p, p}," % (path, lineno))
        pts = [int(x) for x in line[1:-2].split(",")]
        if len(pts) != 3 or len(set(pts)) != 3 or any(not (LO <= p // N < HI and LO <= p % N < HI) for p in pts):
            sys.exit("%s:%d: not 3 distinct points of the central square" % (path, lineno))
        opens.append(pts)
    keys = {canonical([o[0], o[2]], [o[1]]) for o in opens}
    if len(keys) != len(opens):
        sys.exit("%s: two openings are equal under a symmetry" % path)
    return opens


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--judge", default=os.path.join(os.environ.get("GOMOKU_BIN", "build/bin"), "classical_judge"))
    ap.add_argument("--screen-nodes", type=int, default=10000)
    ap.add_argument("--nodes", type=int, default=100000)
    ap.add_argument("--count", type=int, default=24)
    ap.add_argument("--size", type=int, default=15)
    ap.add_argument("--rule", default="freestyle", choices=["freestyle", "standard", "renju", "caro", "caro-overline"])
    ap.add_argument("--out", help="default common/game/even_openings_SxS_RULE.inc (caro-overline: caro_overline)")
    ap.add_argument("--check")
    a = ap.parse_args()
    set_size(a.size)
    if a.out is None:
        a.out = "common/game/even_openings_%dx%d_%s.inc" % (N, N, a.rule.replace("-", "_"))
    if a.check:
        print("%s: %d openings, valid" % (a.check, len(check(a.check))))
        return
    cands = candidates()
    print("even_openings: %d candidates, screening at %d nodes" % (len(cands), a.screen_nodes), flush=True)
    screen = judge(a.judge, a.screen_nodes, cands, a.rule)
    screen.sort(key=lambda j: (abs(j["score"]), j["moves"]))
    short = [j["moves"] for j in screen[:4 * a.count]]
    print("even_openings: rating the %d nearest zero at %d nodes" % (len(short), a.nodes), flush=True)
    final = judge(a.judge, a.nodes, short, a.rule)
    final.sort(key=lambda j: (abs(j["score"]), j["moves"]))
    kept = final[:a.count]
    lines = [
        "// The even opening set of %dx%d %s: made by tools/even_openings.py --size %d --rule %s, do not edit." % (
            N, N, a.rule, N, a.rule),
        "// %d candidates (3 stones in the central %dx%d, one per symmetry class) screened by the classical" % (
            len(cands), HI - LO, HI - LO),
        "// player at %d nodes, the %d nearest zero rated again at %d nodes; these %d are the nearest zero." % (
            a.screen_nodes, len(short), a.nodes, a.count),
        "// Points r*%d+c in the order played (black, white, black); white is to move.  The comment: the" % N,
        "// judge's score from white's view (window units of common/search/classical.h; an open three is",
        "// worth about 300), its move and depth.  Included by common/game/even_openings.cc.",
    ]
    for j in kept:
        lines.append("{%s},  // score %+d, move %d, depth %d" % (", ".join(map(str, j["moves"])), j["score"],
                                                             j["move"], j["depth"]))
    tmp = a.out + ".tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, a.out)
    check(a.out)
    print("even_openings: wrote %s (%d openings, |score| <= %d)" % (a.out, len(kept), abs(kept[-1]["score"])))


if __name__ == "__main__":
    main()
