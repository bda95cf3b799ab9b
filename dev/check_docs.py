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
5. once a GPU figure exists (results/data/gpu-*.json), no doc says none does;
6. no doc names a machine's absolute path (/work/, /home/, /root/, ../shared/)
   or a named folder under /tmp/ (a run dir, a copy of the binaries);
7. every link to a match record (a JSON file arena --record wrote: "result"
   and "games") stands in a paragraph or table, or just after one, that states
   the record's W / D / L (player A's wins, draws, losses), and the record's
   result equals its games counted one by one;
8. in FIGURE_DOCS only (README.md, docs/play.md; a missing one is skipped):
   every figure in prose -- a number with a unit of time, size, rate or Elo,
   a percentage, a match score W/D/L, a ratio such as 1.6x -- has a date
   (YYYY-MM-DD) or a link to its record (RECORD_LINK: results/,
   nets/, experiments/, docs/benchmarks*.md, or a .json/.jsonl/.log/.csv/.tsv/
   .txt file) in its paragraph (the lines between blank lines; a heading is
   its own).  A table row is its own paragraph, vouched for also by the
   table's header row or by its caption (the line just above the table, one
   blank line between at most); a column whose header names a setting ("time
   control", "a move", "limit", ...) holds settings, not figures.  Not
   figures: fenced blocks, `code`, link targets, URLs, HTML tags and comments,
   board sizes (15x15), versions (LibTorch 1.13, C++17), a time a move or a
   game (0.5 s a move: a time control), a period (every 30 s), a limit
   (under 350 MB, at most ...), a machine's size (24 GiB machine), an
   interval's level (95% intervals), and lines between
   <!-- check_docs: not figures --> and <!-- /check_docs -->;
9. every fenced block marked json parses (json.loads), and every non-empty
   line of a block marked jsonl does;
10. results live in results/ (data, logs, figures; results/README.md is their
   index), docs/ in docs/: a data file (.json, .jsonl, .log, .tsv, .csv, .txt,
   .svg) or a folder data/ under docs/ is reported with the place it belongs
   (move it with `git mv docs/data/X results/data/X` and re-point its links).

Prints FILE:LINE: problem for each, then "check_docs: N files, M problems";
exit status 1 when M > 0.
"""
import json
import os
import re
import sys

SKIP_DIRS = {".git", "build", "runs", "release", "node_modules", "__pycache__", ".deps", ".whl", ".gl"}
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

# Check 8: the docs whose figures need a date or a record; more may be added.
FIGURE_DOCS = ("README.md", "docs/play.md")
DATE = re.compile(r"(?<!\d)\d{4}-\d{2}-\d{2}(?!\d)")
# A link that vouches for a figure: its target (repository path, anchor dropped).
RESULT_SUFFIXES = (".json", ".jsonl", ".log", ".tsv", ".csv", ".txt", ".svg")
RECORD_LINK = re.compile(r"^(?:results/|nets/|experiments/|docs/benchmarks[\w-]*\.md$)"
                         r"|\.(?:json|jsonl|log|csv|tsv|txt)$")
_NUM = r"[+\u2212-]?(?:\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)"
_RANGE = _NUM + r"(?:\s?[-\u2013]\s?" + _NUM + r")?"
_START = r"(?<![\w.,/+\u2212-])"  # not inside a word, a number, a path or a version
FIGURES = [  # (kind, pattern); the figure is the whole match
    ("time", re.compile(_START + _RANGE + r"\s?(?:ns|\u00b5s|ms|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?)\b")),
    ("size", re.compile(_START + _RANGE + r"\s?(?:[kKMGT]i?B|bytes)\b(?:\s?/\s?s\b|\s(?:a|an|per)\s(?:second|minute|hour|day|game|move)\b)?")),
    ("rate", re.compile(_START + _RANGE + r"[kKM]?(?:\s[A-Za-z]+)?(?:\s(?:a|an|per)\s(?:second|sec|minute|min|hour|day)\b"
                        r"|\s?/\s?(?:s|sec|min|h|hour)\b)|" + _START + _RANGE + r"[kKM]?\s?(?:nps|Hz)\b")),
    ("Elo", re.compile(_START + _RANGE + r"\s?Elo\b|\bElo\s(?:of\s)?[+\u2212-]\d+(?:\.\d+)?")),
    ("percentage", re.compile(_START + _RANGE + r"\s?(?:%|percent\b)")),
    ("score", re.compile(r"(?<![\w.,/])\d+\s?/\s?\d+\s?/\s?\d+(?![\w/]|[.,]\d)")),
    # 1.6x, not 15x15 or 128x8 (a letter or digit after the x is no ratio)
    ("ratio", re.compile(_START + r"\d+(?:\.\d+)?[x\u00d7](?![\w-])|" + _START + _NUM +
                         r"\stimes\s(?:faster|slower|more|fewer|less|larger|smaller|longer|shorter|as)\b")),
]
# Not measurements: a time control, a period, a limit, a machine's size, an interval's level.
NOT_FIGURE_AFTER = {
    "time": re.compile(r"(?:\s(?:a|an|per|each)\s(?:move|game|turn)\b|\s(?:move|turn)\b|\s?/\s?(?:move|game|turn)\b)"),
    "size": re.compile(r"\s(?:virtual\s)?(?:machines?|VMs?|hosts?)\b"),
    "percentage": re.compile(r"\s(?:confidence|intervals?|CI)\b"),
}
# (A period, but "about every 55 s" is a measurement.)
NOT_FIGURE_BEFORE = re.compile(r"(?:(?<!about )(?<!around )(?<!roughly )(?<!nearly )\bevery|\bunder|\bbelow|"
                               r"\bat most|\bup to|\blimits? of|\bmax(?:imum)? of|\bcap of)"
                               r"\s(?:[\w-]+['\u2019]s\s)?(?:about\s)?$", re.IGNORECASE)
SETTING_COLUMN = re.compile(r"\b(?:time control|settings?|limits?|budgets?|a move|per move|config)\b", re.IGNORECASE)
TABLE_ROW = re.compile(r"^\s*\|")
CODE_FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*([^`\s]*)")


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
        self.not_figures = set()
        seen = {}
        fence = retired = not_figures = False
        for number, line in enumerate(self.text.split("\n"), 1):
            if line.strip() == "<!-- check_docs: retired paths -->":
                retired = True
            if line.strip() == "<!-- check_docs: not figures -->":
                not_figures = True
            if line.strip() == "<!-- /check_docs -->":
                retired = not_figures = False
            if retired:
                self.retired.add(number)
            if not_figures:
                self.not_figures.add(number)
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


def blank(text, pattern, flags=0):
    """`text` with each match of `pattern` turned to spaces, its newlines kept (offsets stay)."""
    return re.sub(pattern, lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=flags)


def cells(row):
    """A table row's cells by column (the text before a leading | is no column)."""
    parts = re.split(r"(?<!\\)\|", blank(row, r"(`+)[\s\S]+?\1"))
    out, offset = [], 0
    for part in parts:
        out.append(row[offset:offset + len(part)])
        offset += len(part) + 1
    return out[1:] if not out[0].strip() else out


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
        data = os.path.join(self.root, "results", "data")
        if not os.path.isdir(data) or not any(re.match(r"gpu-.*\.json$", f) for f in os.listdir(data)):
            return
        flat = doc.text.replace("\n", " ")
        for pattern in GPU_NEVER:
            for m in re.finditer(pattern, flat, re.IGNORECASE):
                self.report(doc, m.start(), "says no GPU ran, but results/data has a GPU record: \"%s\"" % m.group(0))

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

    # -- 8. figures need a date or a record ------------------------------------

    def vouches(self, doc, text):
        """Whether `text` (one paragraph, table row or caption) holds a date or a record link."""
        text = blank(text, r"<!--[\s\S]*?-->|(`+)[\s\S]+?\1")  # a date in `code` is a file's, not the figure's
        if DATE.search(text):
            return True
        for m in LINK.finditer(text):
            target = (m.group(1) or m.group(2)).partition("#")[0]
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                continue
            path = self.resolve(doc, target) if target else doc.rel
            if path is not None and RECORD_LINK.search(path):
                return True
        return False

    def figures(self, text):
        """(offset, figure) of each unsourced-looking figure in `text`, prose only (see the header)."""
        text = blank(text, r"<!--[\s\S]*?-->|(`+)[\s\S]+?\1")
        text = blank(text, r"(?<=\])\([^)\s]*(?:\s+\"[^\"]*\")?\)|<?\b(?:https?|ftp|mailto|file):[^\s)>]+>?|"
                           r"<[^>\n]+>|\{#[^}\n]*\}|^\s*\[[^\]\n]+\]:.*$", re.MULTILINE)
        found = sorted(((m.start(), -len(m.group(0)), kind, m) for kind, pattern in FIGURES
                        for m in pattern.finditer(text)), key=lambda t: t[:2])
        out, end = [], -1
        for start, _, kind, m in found:
            if start < end:
                continue  # one figure, two kinds (80 MB an hour: a size and a rate)
            end = m.end()
            after = NOT_FIGURE_AFTER.get(kind)
            if after and after.match(text, m.end()):
                continue
            if kind not in ("score", "ratio") and NOT_FIGURE_BEFORE.search(text, 0, start):
                continue
            out.append((start, re.sub(r"\s+", " ", m.group(0))))
        return out

    def check_figures(self, doc):
        if doc.rel not in FIGURE_DOCS:
            return
        lines = ["" if n + 1 in doc.not_figures else line for n, line in enumerate(doc.prose)]
        blocks, current = [], None  # [kind, first line index, lines]; a heading is its own block
        for i, line in enumerate(lines):
            kind = None if not line.strip() else "table" if TABLE_ROW.match(line) else \
                "heading" if re.match(r"^#{1,6}\s", line) else "para"
            if current and (kind != current[0] or kind == "heading"):
                current = None
            if kind and current is None:
                current = [kind, i, []]
                blocks.append(current)
            if current:
                current[2].append(line)
        for kind, first, block in blocks:
            if kind != "table":
                text = "\n".join(block)
                if self.vouches(doc, text):
                    continue
                for pos, figure in self.figures(text):
                    self.problems.append("%s:%d: figure '%s' has no date or record link in its paragraph" %
                                         (doc.rel, first + 1 + text.count("\n", 0, pos), figure))
                continue
            # A table: each row on its own, or the header row, or the caption just above.
            above = [lines[k] for k in (first - 1, first - 2) if k >= 0]
            caption = above[0] if above and above[0].strip() else above[1] if len(above) > 1 else ""
            if TABLE_ROW.match(caption):
                caption = ""
            table_vouched = self.vouches(doc, caption) or self.vouches(doc, block[0])
            settings = {c for c, cell in enumerate(cells(block[0])) if SETTING_COLUMN.search(cell)}
            for k, row in enumerate(block):
                if (k == 1 and re.match(r"^[\s|:-]+$", row)) or table_vouched or self.vouches(doc, row):
                    continue
                for c, cell in enumerate(cells(row)):
                    if c in settings and k > 0:
                        continue
                    for _, figure in self.figures(cell):
                        self.problems.append("%s:%d: figure '%s' has no date or record link in its table row, "
                                             "header or caption" % (doc.rel, first + 1 + k, figure))

    # -- 9. json blocks parse -----------------------------------------------------

    def check_json_blocks(self, doc):
        lines = doc.text.split("\n")
        i = 0
        while i < len(lines):
            m = CODE_FENCE.match(lines[i])
            if not m:
                i += 1
                continue
            close = re.compile(r"^\s*%s{%d,}\s*$" % (re.escape(m.group(1)[0]), len(m.group(1))))
            j = i + 1
            while j < len(lines) and not close.match(lines[j]):
                j += 1
            lang, fence_line, body = m.group(2).lower(), i + 1, lines[i + 1:j]
            if lang == "json":
                try:
                    json.loads("\n".join(body))
                except ValueError as e:
                    self.problems.append("%s:%d: json block does not parse: %s (line %d, column %d)" %
                                         (doc.rel, fence_line, e.msg, fence_line + e.lineno, e.colno))
            elif lang == "jsonl":
                for k, line in enumerate(body):
                    if not line.strip():
                        continue
                    try:
                        json.loads(line)
                    except ValueError as e:
                        self.problems.append("%s:%d: jsonl block's line %d does not parse: %s (column %d)" %
                                             (doc.rel, fence_line, fence_line + 1 + k, e.msg, e.colno))
            i = j + 1

    def run(self):
        for doc in self.docs.values():
            self.check_match_links(doc)
            self.check_links(doc)
            self.check_code_paths(doc)
            self.check_cited_sections(doc)
            self.check_gpu_claims(doc)
            self.check_machine_paths(doc)
            self.check_figures(doc)
            self.check_json_blocks(doc)
        self.check_readme_list()
        self.check_results_apart()
        return self.problems

    def check_results_apart(self):
        docs = os.path.join(self.root, "docs")
        if not os.path.isdir(docs):
            return
        for dirpath, dirnames, filenames in os.walk(docs):
            dirnames.sort()
            for name in sorted(filenames):
                rel = os.path.relpath(os.path.join(dirpath, name), self.root)
                if rel.startswith(os.path.join("docs", "data") + os.sep) or name.endswith(RESULT_SUFFIXES):
                    home = "results/data/" if not name.endswith(".svg") else "results/figures/"
                    self.problems.append("%s:1: a result under docs/: it belongs in %s (results/README.md)" % (rel, home))


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
