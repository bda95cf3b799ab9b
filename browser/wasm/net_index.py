#!/usr/bin/env python3
"""The site's nets: the newest .pt of each (rule, trained board size) in the
repository's nets/ -- the set the native engine plays by default
(common/match/shipped_nets.h, ShippedLeagueNets: names end in their date, so
the last name in order is the newest) -- copied into the site's nets/ folder
with index.json, which the worker (engine-worker.js) reads:

  {"nets": [{"file": "gz-15x15-renju-2026-12-06.pt", "rule": "renju",
             "size": 15, "heads": "conv", "bytes": 336582}, ...]}

usage: net_index.py NETS_DIR SITE_NETS_DIR
"""
import json
import os
import shutil
import struct
import sys


def header(path):
    """The checkpoint's JSON header (common/net/checkpoint_format.cc: magic
    GZCK, format version u32, JSON length u32, JSON)."""
    with open(path, "rb") as f:
        fixed = f.read(12)
        if len(fixed) < 12 or fixed[:4] != b"GZCK":
            raise ValueError(f"{path}: not a gomoku-zero checkpoint (bad magic)")
        (length,) = struct.unpack("<I", fixed[8:12])
        return json.loads(f.read(length))


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    src, dst = argv[1], argv[2]
    os.makedirs(dst, exist_ok=True)
    chosen, seen = [], set()
    for name in sorted((n for n in os.listdir(src) if n.endswith(".pt")), reverse=True):
        h = header(os.path.join(src, name))
        key = (h["rule"], int(h["board_size"]))
        if key in seen:
            continue
        seen.add(key)
        chosen.append({"file": name, "rule": h["rule"], "size": int(h["board_size"]),
                       "heads": h.get("heads", "fc"), "bytes": os.path.getsize(os.path.join(src, name))})
    if not chosen:
        sys.exit(f"net_index.py: no .pt net in {src}")
    chosen.sort(key=lambda n: (n["rule"], n["size"]))
    for n in chosen:
        shutil.copy2(os.path.join(src, n["file"]), os.path.join(dst, n["file"]))
    with open(os.path.join(dst, "index.json"), "w") as f:
        json.dump({"nets": chosen}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv)
