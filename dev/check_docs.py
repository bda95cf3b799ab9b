#!/usr/bin/env python3
"""Checks that the docs name only what exists (ctest check_docs; docs/testing.md).

    dev/check_docs.py [ROOT]

Over every Markdown file under ROOT (default: the checkout), except generated
and scratch folders and test fixtures:

1. every link [text](target) names a file that exists, and its #anchor a heading
   (GitHub's slug) or <a id> of that file;
2. every path in `code` that starts with one of ROOT's top-level folders exists
   (placeholders such as NAME, N or <dir> are not paths; `x.h/.cc` is both
   files; a program may be named without its source's .cc/.py/.sh; a run
   folder's trainer/*.json is not the source folder trainer/).
   Lines between a line <!-- check_docs: retired paths --> and a line
   <!-- /check_docs --> may name files that no longer exist (a dated log, a
   map of old scripts);
3. every section a doc cites by name, as in file.md "Section" or
   file.md ("Section"), is a heading, a **bold** lead-in or a list item of
   that file that the quoted text starts;
4. README.md links every docs/*.md (its doc list is complete);
5. once a GPU figure exists (docs/data/gpu-*.json), no doc says none does;
6. no doc names a machine's absolute path (/work/, /home/, /root/, ../shared/)
   or a named folder under /tmp/ (a run dir, a copy of the binaries);
7. every link to a match record (a JSON file arena --record wrote: "result"
   and "games") stands in a paragraph or table, or just after one, that states
   the record's W / D / L (player A's wins, draws, losses), and the record's
   result equals its games counted one by one.

Prints FILE:LINE: problem for each, then "check_docs: N files, M problems";
exit status 1 when M > 0.
"""
import json
import os
import re
import sys

SKIP_DIRS = {".git", "build", "runs", "node_modules", "__pycache__", ".deps", ".whl", ".gl"}
SKIP_PREFIXES = ("build-", "tests/fixtures")
GPU_NEVER = [
    r"no GPU figure exists",
    r"no (?:GPU|device)(?: machine)? has (?:ever )?been lent",
    r"none has been lent",
    r"no (?:GPU|device)(?: machine)? was (?:ever )?lent",
    r"never (?:ran|run|been run) on a GPU",
    r"no GPU has (?:ever )?(?:run|been used)",
]
# A named folder under /tmp is one machine's run too: a reader has no /tmp/gz-chaos-run1.
MACHINE_PATH = re.compile(r"(?<![\w.~])(?:/(?:work|home|root|Users)/|/tmp/[\w.-]|\.\./shared/)")
LINK = re.compile(r"(?<!\!)\[[^\]\n]*\]\(([^)\s]+)\)|!\[[^\]\n]*\]\(([^)\s]+)\)")
CODE = re.compile(r"`([^`\n]+)`")
CITED = re.compile(r"([\w./-]+\.md)\)?,?\s+\(?\"([^\"]{2,120})\"")
FENCE = re.compile(r"^\s*(```|~~~)")


def slug(heading):
    h = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip()).lower()
    h = re.sub(r"[^\w\- ]", "", h)
    return h.replace(" ", "-")


def norm(text):
    text = re.sub(r"[`*]", "", text).lower()
    return re.sub(r"\s+", " ", text).strip(" .,;:")


class Doc:
    def __init__(self, root, rel):
        self.rel = rel
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            self.text = f.read()
        self.headings, self.anchors, self.prose, self.retired = [], set(), [], set()
        seen = {}
        fence = retired = False
        for number, line in enumerate(self.text.split("\n"), 1):
            if line.strip() == "<!-- check_docs: retired paths -->":
                retired = True
            if line.strip() == "<!-- /check_docs -->":
                retired = False
            if retired:
                self.retired.add(number)
            if FENCE.match(line):
                fence = not fence
                self.prose.append("")
                continue
            self.prose.append("" if fence else line)
            if fence:
                continue
            # Places a doc can cite by name: headings, bold lead-ins, list items.
            self.headings += [norm(b) for b in re.findall(r"\*\*(.+?)\*\*", line)]
            item = re.match(r"^\s*(?:[-*]|\d+\.)\s+(.*)", line)
            if item:
                self.headings.append(norm(item.group(1)))
            m = re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line)
            if m:
                self.headings.append(norm(m.group(2)))
                s = slug(m.group(2))
                n = seen.get(s, 0)
                seen[s] = n + 1
                self.anchors.add(s if n == 0 else "%s-%d" % (s, n))
            for a in re.findall(r"<a\s+(?:id|name)=\"([^\"]+)\"", line):
                self.anchors.add(a)

    def prose_text(self):
        """The text outside fenced blocks, offsets equal to line structure."""
        return "\n".join(self.prose)


def markdown_files(root):
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        rel_dir = "" if rel_dir == "." else rel_dir
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and
                             not os.path.join(rel_dir, d).startswith(SKIP_PREFIXES))
        out += [os.path.join(rel_dir, f) for f in sorted(filenames) if f.endswith(".md")]
    return out


def line_of(text, pos):
    return text.count("\n", 0, pos) + 1


def is_placeholder(path):
    if re.search(r"[<>{}*$|\[\]…]|\.\.\.|YYYY", path):
        return True
    for part in re.split(r"[/.:-]", path):
        if re.fullmatch(r"[A-Z][A-Z0-9_]*", part) or re.fullmatch(r".*[a-z_]N", part):
            return True  # NAME, OUT, weights_itN
    return False


class Checker:
    def __init__(self, root):
        self.root = root
        self.docs = {rel: Doc(root, rel) for rel in markdown_files(root)}
        self.problems = []
        self.top_dirs = {d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)) and
                         d not in SKIP_DIRS and not d.startswith(("build-", "."))}

    def report(self, doc, pos, message, text=None):
        """A problem at offset `pos` of `text` (the doc's prose text: fenced lines blanked)."""
        self.problems.append("%s:%d: %s" % (doc.rel, line_of(doc.text if text is None else text, pos), message))

    def resolve(self, doc, target):
        """The repository path a doc's relative link names, or None outside ROOT."""
        path = os.path.normpath(os.path.join(os.path.dirname(doc.rel), target))
        return None if path.startswith("..") else path

    def anchors_of(self, path):
        if path in self.docs:
            return self.docs[path].anchors
        return None

    def check_links(self, doc):
        text = doc.prose_text()
        for m in LINK.finditer(text):
            target = m.group(1) or m.group(2)
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, mailto:
                continue
            file_part, _, anchor = target.partition("#")
            path = self.resolve(doc, file_part) if file_part else doc.rel
            if path is None:
                self.report(doc, m.start(), "link leaves the repository: %s" % target, text)
                continue
            if not os.path.exists(os.path.join(self.root, path)):
                self.report(doc, m.start(), "dead link: %s (no %s)" % (target, path), text)
                continue
            if anchor:
                anchors = self.anchors_of(path)
                if anchors is not None and anchor not in anchors:
                    self.report(doc, m.start(), "dead anchor: %s (no heading #%s in %s)" % (target, anchor, path), text)

    def check_code_paths(self, doc):
        text = doc.prose_text()
        for m in CODE.finditer(text):
            for token in m.group(1).split():
                token = token.rstrip(",;:.)").lstrip("(")
                head = token.split("/", 1)[0]
                if "/" not in token or head not in self.top_dirs or head in SKIP_DIRS:
                    continue
                if is_placeholder(token) or line_of(text, m.start()) in doc.retired:
                    continue
                if re.fullmatch(r"trainer/[\w.-]+\.json", token):
                    continue  # RUN/trainer/state.json and the like (docs/file-formats.md)
                both = re.fullmatch(r"(.+)\.h/\.cc", token)
                paths = [both.group(1) + ".h", both.group(1) + ".cc"] if both else [token]
                for path in paths:
                    # a program may be named by its source without the suffix (bench/bench_mcts)
                    if not any(os.path.exists(os.path.join(self.root, path + ext)) for ext in ("", ".cc", ".py", ".sh")):
                        self.report(doc, m.start(), "no such path: %s" % path, text)

    def cited_doc(self, doc, name):
        for base in (os.path.dirname(doc.rel), "", "docs"):
            path = os.path.normpath(os.path.join(base, name))
            if path in self.docs:
                return self.docs[path]
        return None

    def check_cited_sections(self, doc):
        text = doc.prose_text()
        flat = text.replace("\n", " ")  # a citation may wrap; offsets stay the same
        for m in CITED.finditer(flat):
            target = self.cited_doc(doc, m.group(1))
            if target is None:
                if m.group(1).startswith(tuple(self.top_dirs)) or "/" not in m.group(1):
                    self.report(doc, m.start(), "cites a doc that does not exist: %s" % m.group(1), text)
                continue
            wanted = norm(m.group(2))
            if not any(h.startswith(wanted) for h in target.headings):
                self.report(doc, m.start(), 'no section "%s" in %s' % (m.group(2), target.rel), text)

    def check_readme_list(self):
        readme = self.docs.get("README.md")
        if readme is None:
            self.problems.append("README.md:1: missing")
            return
        linked = {self.resolve(readme, m.group(1) or m.group(2)).partition("#")[0]
                  for m in LINK.finditer(readme.text) if not re.match(r"^[a-z]+:", m.group(1) or m.group(2))}
        for rel in sorted(self.docs):
            if os.path.dirname(rel) == "docs" and rel not in linked:
                self.problems.append("README.md:1: the doc list does not link %s" % rel)

    def check_gpu_claims(self, doc):
        data = os.path.join(self.root, "docs", "data")
        if not os.path.isdir(data) or not any(re.match(r"gpu-.*\.json$", f) for f in os.listdir(data)):
            return
        flat = doc.text.replace("\n", " ")
        for pattern in GPU_NEVER:
            for m in re.finditer(pattern, flat, re.IGNORECASE):
                self.report(doc, m.start(), "says no GPU ran, but docs/data has a GPU record: \"%s\"" % m.group(0))

    def check_machine_paths(self, doc):
        for m in MACHINE_PATH.finditer(doc.text):
            self.report(doc, m.start(), "a machine's absolute path: %s" % doc.text[m.start():m.start() + 40].split()[0])

    def match_record(self, path):
        """(wins, draws, losses) of an arena --record file, checked against its games; None otherwise."""
        if not path.endswith(".json"):
            return None
        try:
            with open(os.path.join(self.root, path), encoding="utf-8") as f:
                record = json.load(f)
        except (OSError, ValueError):
            return None
        if not isinstance(record, dict) or not {"result", "games", "player_a"} <= set(record):
            return None
        r = record["result"]
        stated = (r.get("wins"), r.get("draws"), r.get("losses"))
        counted = [0, 0, 0]
        for g in record["games"]:
            counted[0 if g.get("winner") == g.get("a_colour") else 1 if g.get("winner") in ("draw", None) else 2] += 1
        if tuple(counted) != stated:
            self.problems.append("%s:1: its result says %s / %s / %s but its games count %d / %d / %d" %
                                 ((path,) + stated + tuple(counted)))
        return stated

    def check_match_links(self, doc):
        text = doc.prose_text()
        blocks = []  # (start, end) offsets of paragraphs and tables
        for m in re.finditer(r"(?:[^\n]+\n?)+", text):
            blocks.append((m.start(), m.end()))
        for m in LINK.finditer(text):
            target = (m.group(1) or m.group(2)).partition("#")[0]
            path = self.resolve(doc, target) if target else None
            wdl = self.match_record(path) if path and os.path.isfile(os.path.join(self.root, path)) else None
            if wdl is None:
                continue
            i = next(k for k, (a, b) in enumerate(blocks) if a <= m.start() < b)
            near = " ".join(text[a:b] for a, b in blocks[max(0, i - 1):i + 1])
            if not re.search(r"(?<![\d/])%d\s*/\s*%d\s*/\s*%d(?![\d/])" % wdl, near):
                self.report(doc, m.start(), "links the match record %s but does not state its W / D / L %d / %d / %d "
                            "beside it" % ((path,) + wdl), text)

    def run(self):
        for doc in self.docs.values():
            self.check_match_links(doc)
            self.check_links(doc)
            self.check_code_paths(doc)
            self.check_cited_sections(doc)
            self.check_gpu_claims(doc)
            self.check_machine_paths(doc)
        self.check_readme_list()
        return self.problems


def main(argv):
    root = os.path.abspath(argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    checker = Checker(root)
    problems = checker.run()
    for p in problems:
        print(p)
    print("check_docs: %d files, %d problems" % (len(checker.docs), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
