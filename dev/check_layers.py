#!/usr/bin/env python3
"""Fails when a source file includes a header of a layer it may not use.

The layers and their allowed dependencies are the ones drawn in
docs/architecture.md and linked in the CMakeLists.txt files:

  common/base <- game <- data <- search <- {config <- status, wire, net}
  common/match (players and the games between them) <- config, net
  executables (worker, infer_server, trainer, engine, tools, evaluator,
  dashboard) on top; they use common/ and their own folder, never each
  other's.  tests/, bench/ and fuzz/ may include anything.

Usage: check_layers.py SOURCE_ROOT.  Prints every violation as
file:line: LAYER may not include HEADER (LAYER uses: ...), exits 1 if any.
"""
import os
import re
import sys

COMMON = ["base", "game", "data", "search", "config", "status", "wire", "net", "match"]
CORE = ["common/base", "common/game", "common/data", "common/search"]
# What each layer may include besides itself.  wire and net take plain
# parameter structs, never a Config: the config -> parameters adapters live
# with the executables that use them (worker/evaluator_setup.h).
USES = {
    "common/base": [],
    "common/game": ["common/base"],
    "common/data": ["common/base", "common/game"],
    "common/search": ["common/base", "common/game", "common/data"],
    "common/config": CORE,
    "common/status": CORE + ["common/config"],  # reads the run's config from metadata.json
    "common/wire": CORE,
    "common/net": CORE,
    # players, refereed games, ratings, shipped nets, the analysis engine:
    # the library of everything that plays.
    "common/match": CORE + ["common/config", "common/net"],
}
ALL_COMMON = ["common/" + c for c in COMMON]
EXECUTABLES = ["worker", "infer_server", "trainer", "engine", "tools", "evaluator", "dashboard"]
for e in EXECUTABLES:
    USES[e] = ALL_COMMON
FREE = ["tests", "bench", "fuzz"]  # may include anything

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SOURCE = (".h", ".cc", ".cu", ".cpp")


def layer_of(path):
    """The layer a repository-relative path belongs to, or None."""
    parts = path.split("/")
    if parts[0] == "common":
        return "common/" + parts[1] if len(parts) > 2 else "common"
    return parts[0]


def main(root):
    errors = []
    checked = 0
    for top in ["common"] + EXECUTABLES + FREE:
        base = os.path.join(root, top)
        if not os.path.isdir(base):
            continue
        for dirpath, _, files in os.walk(base):
            for name in files:
                if not name.endswith(SOURCE):
                    continue
                full = os.path.join(dirpath, name)
                rel = os.path.relpath(full, root)
                layer = layer_of(rel)
                if top == "common" and layer not in USES:
                    errors.append(f"{rel}: a source file directly in common/ belongs to no layer")
                    continue
                if layer not in USES:
                    continue  # tests/, bench/, fuzz/
                checked += 1
                with open(full, encoding="utf-8", errors="replace") as f:
                    for lineno, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        header = m.group(1)
                        target = layer_of(header)
                        if "/" not in header:
                            errors.append(f"{rel}:{lineno}: include \"{header}\" by its repository path")
                            continue
                        if target == layer:
                            continue
                        if target not in USES and target not in FREE:
                            continue  # not one of ours
                        if target not in USES[layer]:
                            uses = ", ".join(USES[layer]) or "nothing"
                            errors.append(f"{rel}:{lineno}: {layer} may not include {header} ({layer} uses: {uses})")
    for e in errors:
        print(e)
    print(f"check_layers: {checked} files checked, {len(errors)} violations")
    return 1 if errors or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
