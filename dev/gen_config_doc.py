#!/usr/bin/python3
"""Prints the key table of docs/configuration.md from `worker --print-config-doc`.

    dev/gen_config_doc.py build/bin/worker               print the table
    dev/gen_config_doc.py build/bin/worker --check DOC   exit 1 (naming the lines) when
                                                          DOC's table differs (ctest check_config_doc)
"""
import json, subprocess, sys
# The registry's table: key, default and help text, each help text on its key's
# registry line (common/config/config.cc MakeRegistry).
doc = json.loads(subprocess.check_output([sys.argv[1], "--print-config-doc"]))
rows = []
for e in doc:
    if not e["help"]:
        sys.exit("gen_config_doc.py: no help text for %s: add it to its registry line "
                 "(common/config/config.cc MakeRegistry)" % e["key"])
    rows.append("| `%s` | `%s` | %s |" % (e["key"], json.dumps(e["default"]), e["help"]))
if len(sys.argv) == 4 and sys.argv[2] == "--check":
    lines = open(sys.argv[3]).read().splitlines()
    start = lines.index("| key | default | meaning |") + 2
    end = start
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    have = lines[start:end]
    if have != rows:
        missing = [r for r in rows if r not in have]
        stale = [r for r in have if r not in rows]
        print("%s is stale: regenerate its key table with dev/gen_config_doc.py %s" % (sys.argv[3], sys.argv[1]))
        for r in missing:
            print("  missing or changed: " + r)
        for r in stale:
            print("  stale: " + r)
        if not missing and not stale:
            print("  the rows are out of order")
        sys.exit(1)
    print("%s: the key table matches the registry (%d keys)" % (sys.argv[3], len(rows)))
elif len(sys.argv) == 2:
    print("\n".join(rows))
else:
    sys.exit(__doc__)
