#!/usr/bin/python3
"""A bad brain for gomocup_check --format (tests/tools/CMakeLists.txt): it
answers START with OK, and each move request with an ERROR line, a MESSAGE and
a DEBUG line (which the manager skips) before the first empty point in reading
order, so its position checks fail and every move it owes adds one ERROR line."""
import sys

size, stones, in_board = 15, set(), False


def move():
    for y in range(size):
        for x in range(size):
            if (x, y) not in stones:
                stones.add((x, y))
                sys.stdout.write("ERROR this brain does not think\r\nMESSAGE skipped\r\nDEBUG skipped\r\n%d,%d\r\n" % (x, y))
                sys.stdout.flush()
                return


for raw in sys.stdin:
    line = raw.strip()
    word = line.split(" ")[0].upper()
    if in_board:
        if line.upper() == "DONE":
            in_board = False
            move()
        elif line:
            x, y = line.split(",")[:2]
            stones.add((int(x), int(y)))
    elif word == "START":
        size, stones = int(line.split()[1]), set()
        sys.stdout.write("OK\r\n")
        sys.stdout.flush()
    elif word == "BOARD":
        stones, in_board = set(), True
    elif word == "TURN":
        x, y = line.split(" ")[1].split(",")
        stones.add((int(x), int(y)))
        move()
    elif word == "END":
        break
