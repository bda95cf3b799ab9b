#!/usr/bin/env python3
"""Runs dev/check_docs.py on a copy of tests/fixtures/docs_dead_link with its
machine-path line filled in (check_docs_finds_problems).

The planted absolute path is written into the copy here, not kept in the
repository, so that no committed doc names a machine's path; every other
planted problem is in the fixture as it stands.  Usage:
check_docs_fixture.py REPO_ROOT FIXTURE_DIR; prints check_docs' output.
"""
import os
import shutil
import subprocess
import sys
import tempfile

repo, fixture = sys.argv[1], sys.argv[2]
with tempfile.TemporaryDirectory(prefix="gz-check-docs-") as tmp:
    tree = os.path.join(tmp, "tree")
    shutil.copytree(fixture, tree)
    guide = os.path.join(tree, "docs", "guide.md")
    with open(guide) as f:
        text = f.read()
    if "MACHINE_PATH" not in text:
        sys.exit("check_docs_fixture: %s has no MACHINE_PATH placeholder" % guide)
    with open(guide, "w") as f:
        # Two kinds: a checkout's path and a named run folder under /tmp.
        planted = "/" + "/".join(["work", "main", "build", "bin", "worker"]) + " and /" + "tmp/gz-run-1"
        f.write(text.replace("MACHINE_PATH", planted))
    out = subprocess.run([sys.executable, os.path.join(repo, "dev", "check_docs.py"), tree],
                         capture_output=True, text=True)
    sys.stdout.write(out.stdout.replace(tree + os.sep, ""))
    sys.stderr.write(out.stderr)
