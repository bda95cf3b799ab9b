#!/usr/bin/env python3
"""Fails when the code, the build or the doc runs against the layer graph.

The graph is written once, in dev/layers.json (next to this script):
  common       each library folder of common/ and the layers it uses directly
               (a layer may use what those use, and so on down);
  tests_and_benches_only  layers no program may use (harness: child
               programs, waiting, temp folders);
  programs     the top folders of programs: they use the other layers of
               common/ and their own folder, never each other's;
  library_users  bench/, fuzz/ and browser/ (the WebAssembly bridge): libraries only (common/ and the libraries
               the program folders build), never tests/;
  free         tests/: anything;
  inside       the folders that build more than one library, each as its
               layers bottom first (name, libraries, files).

Checked under ROOT (docs/architecture.md "Layers"):
1. every #include "..." of a source file (.h .cc .cu .cpp), by its repository
   path, names a header its folder may use;
2. every target_link_libraries of a CMakeLists.txt under common/, a program,
   bench/ or fuzz/ links only libraries (add_library targets of this tree)
   of folders it may use;
3. the layer table of docs/architecture.md (rows "| `gomoku_x` (`common/x/`) |
   uses | ...") lists exactly the layers of common/ with their direct uses,
   and a folder of "inside" exactly the libraries layers.json names for it;
4. inside a folder of "inside": no #include from a file of one layer names a
   file of a later layer (a back arrow), every source file is in one layer,
   and every add_library of the folder's CMakeLists.txt files is named.

Usage: check_layers.py [ROOT].  Prints every violation as FILE:LINE: problem,
then "check_layers: N files checked, M violations"; exits 1 if any.
"""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SOURCE = (".h", ".cc", ".cu", ".cpp")
ADD_LIBRARY = re.compile(r"\badd_library\(\s*([A-Za-z0-9_]+)")
LINK = re.compile(r"\btarget_link_libraries\(([^)]*)\)", re.S)
TABLE_ROW = re.compile(r"^\| (`gomoku_\w+`(?:, `gomoku_\w+`)*) \(`common/(\w+)/`\) \| ([^|]*) \|")


def load_graph(path=os.path.join(HERE, "layers.json")):
    """The graph as {folder: [folders it may use]}, folders named as paths."""
    with open(path, encoding="utf-8") as f:
        g = json.load(f)
    direct = {"common/" + k: ["common/" + u for u in v] for k, v in g["common"].items()}
    for layer, uses in direct.items():
        for u in uses:
            if u not in direct:
                raise SystemExit(f"{path}: {layer} uses {u}, which is no layer")
    closure = {}

    def down(layer, seen=()):
        if layer in seen:
            raise SystemExit(f"{path}: the layers form a cycle through {layer}")
        if layer not in closure:
            out = set()
            for u in direct[layer]:
                out |= {u} | down(u, seen + (layer,))
            closure[layer] = out
        return closure[layer]

    uses = {layer: sorted(down(layer)) for layer in direct}
    said = {layer: ", ".join(u) or "nothing" for layer, u in uses.items()}
    every_layer = sorted(direct)
    for layer in g["tests_and_benches_only"]:
        if "common/" + layer not in direct:
            raise SystemExit(f"{path}: tests_and_benches_only names {layer}, which is no layer")
    for_programs = [l for l in every_layer if l[len("common/"):] not in g["tests_and_benches_only"]]
    for p in g["programs"]:
        uses[p] = for_programs
        said[p] = "common/ but " + ", ".join(g["tests_and_benches_only"]) + ", and its own folder"
    for b in g["library_users"]:
        uses[b] = every_layer + list(g["programs"])
        said[b] = "common/, the programs' libraries and its own folder"
    return g, direct, uses, said


def folder_of(path):
    """The folder (layer or top folder) a repository-relative path belongs to."""
    parts = path.split("/")
    if parts[0] == "common":
        return "common/" + parts[1] if len(parts) > 2 else "common"
    return parts[0]


def check_includes(root, tops, uses, said, free, errors):
    checked = 0
    for top in tops:
        for dirpath, dirs, files in os.walk(os.path.join(root, top)):
            dirs.sort()
            for name in sorted(files):
                if not name.endswith(SOURCE):
                    continue
                rel = os.path.relpath(os.path.join(dirpath, name), root)
                layer = folder_of(rel)
                if top == "common" and layer not in uses:
                    errors.append(f"{rel}: a source file of common/ outside every layer of dev/layers.json")
                    continue
                if layer not in uses:
                    continue  # tests/
                checked += 1
                with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
                    for lineno, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        header = m.group(1)
                        if "/" not in header:
                            errors.append(f"{rel}:{lineno}: include \"{header}\" by its repository path")
                            continue
                        target = folder_of(header)
                        if target == layer or (target not in uses and target not in free):
                            continue  # its own folder, or not one of ours
                        if target not in uses[layer]:
                            errors.append(f"{rel}:{lineno}: {layer} may not include {header} "
                                          f"({layer} uses: {said[layer]})")
    return checked


def cmake_files(root, tops):
    for top in tops:
        for dirpath, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = sorted(d for d in dirs if d != "fixtures")  # the checks' own test trees
            if "CMakeLists.txt" in files:
                yield os.path.relpath(os.path.join(dirpath, "CMakeLists.txt"), root)


def check_links(root, tops, uses, said, free, errors):
    """Each library target belongs to the folder that adds it; links follow the graph."""
    owner, texts = {}, {}
    for rel in cmake_files(root, tops + free):
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            texts[rel] = f.read()
        for m in ADD_LIBRARY.finditer(texts[rel]):
            owner.setdefault(m.group(1), folder_of(rel))
    checked = 0
    for rel, text in texts.items():
        folder = folder_of(rel)
        if folder not in uses:
            continue
        checked += 1
        for m in LINK.finditer(text):
            lineno = text.count("\n", 0, m.start()) + 1
            for lib in m.group(1).split()[1:]:
                target = owner.get(lib)
                if target is None or target == folder:
                    continue  # not a library of this tree, or its own folder's
                if target not in uses[folder]:
                    errors.append(f"{rel}:{lineno}: {folder} may not link {lib} (a library of {target}; "
                                  f"{folder} uses: {said[folder]})")
    return checked


def check_doc(root, direct, inside, errors):
    rel = "docs/architecture.md"
    try:
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        errors.append(f"{rel}: missing (its layer table is checked against dev/layers.json)")
        return 0
    seen = {}
    for lineno, line in enumerate(lines, 1):
        m = TABLE_ROW.match(line)
        if not m:
            continue
        layer = "common/" + m.group(2)
        said = m.group(3).strip()
        doc_uses = sorted("common/" + u.strip() for u in said.split(",")) if said not in ("", "—", "-") else []
        seen[layer] = lineno
        if layer not in direct:
            errors.append(f"{rel}:{lineno}: the layer table names {layer}, which dev/layers.json does not have")
        elif doc_uses != sorted(direct[layer]):
            want = ", ".join(u[len("common/"):] for u in direct[layer]) or "—"
            errors.append(f"{rel}:{lineno}: the layer table says {layer} uses \"{said}\"; dev/layers.json says \"{want}\"")
        if layer in inside:
            doc_libs = sorted(re.findall(r"`(\w+)`", m.group(1)))
            want_libs = sorted({lib for unit in inside[layer] for lib in unit["libraries"]})
            if doc_libs != want_libs:
                errors.append(f"{rel}:{lineno}: the layer table names the libraries {', '.join(doc_libs)} for {layer}; "
                              f"dev/layers.json \"inside\" names {', '.join(want_libs)}")
    for layer in sorted(set(direct) - set(seen)):
        errors.append(f"{rel}: the layer table has no row for {layer} (dev/layers.json has it)")
    return 1


def unit_of(units, rel_in_folder):
    """The index of the layer (of one folder's "inside" list) holding a file, or None."""
    stem = os.path.splitext(rel_in_folder)[0]
    for i, unit in enumerate(units):
        for f in unit["files"]:
            if (f.endswith("/") and rel_in_folder.startswith(f)) or f == stem:
                return i
    return None


def check_inside(root, inside, errors):
    """Back arrows between the layers of one folder, unplaced files, unnamed libraries."""
    checked = 0
    for folder, units in inside.items():
        base = os.path.join(root, folder)
        named = {lib for unit in units for lib in unit["libraries"]}
        for dirpath, dirs, files in os.walk(base):
            dirs.sort()
            for name in sorted(files):
                rel = os.path.relpath(os.path.join(dirpath, name), root)
                if name == "CMakeLists.txt":
                    with open(os.path.join(root, rel), encoding="utf-8") as f:
                        text = f.read()
                    for m in ADD_LIBRARY.finditer(text):
                        if m.group(1) not in named:
                            lineno = text.count("\n", 0, m.start()) + 1
                            errors.append(f"{rel}:{lineno}: {folder} adds {m.group(1)}, which no layer of "
                                          f"dev/layers.json \"inside\" {folder} names")
                    continue
                if not name.endswith(SOURCE):
                    continue
                mine = unit_of(units, os.path.relpath(rel, folder))
                if mine is None:
                    errors.append(f"{rel}: in no layer of dev/layers.json \"inside\" {folder}")
                    continue
                checked += 1
                with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
                    for lineno, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m or not m.group(1).startswith(folder + "/"):
                            continue
                        theirs = unit_of(units, m.group(1)[len(folder) + 1:])
                        if theirs is not None and theirs > mine:
                            errors.append(f"{rel}:{lineno}: a back arrow inside {folder}: layer "
                                          f"{units[mine]['layer']} may not include {m.group(1)} (layer "
                                          f"{units[theirs]['layer']}, above it; order: "
                                          f"{' < '.join(u['layer'] for u in units)})")
    return checked


def main(root):
    g, direct, uses, said = load_graph()
    inside = {k: v for k, v in g.get("inside", {}).items() if k != "about"}
    free = list(g["free"])
    tops = ["common"] + list(g["programs"]) + list(g["library_users"])
    errors = []
    checked = check_includes(root, tops, uses, said, free, errors)
    checked += check_links(root, tops, uses, said, free, errors)
    checked += check_inside(root, inside, errors)
    checked += check_doc(root, direct, inside, errors)
    for e in errors:
        print(e)
    print(f"check_layers: {checked} files checked, {len(errors)} violations")
    return 1 if errors or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
