#!/usr/bin/env bash
# The Gomocup manager's pre-submission position checks of one format
# (tools/gomocup_manager.h, the table of test_zip_rules.py) on the Linux engine
# as a manager gets it: the folder of tools/make_gomocup_folder.sh (the shipped
# net of every league), each position sent as BOARD through the real pipe by
# build/bin/gomocup_check --format FORMAT, the reply judged.  A turn of 2 s
# instead of the format's 30 s: the checks are of the rules, not of strength.
# usage: test_presubmission.sh FORMAT   (GZ_BIN_DIR, GZ_TEST_TMP from ctest)
set -euo pipefail
format="$1"
root="$(cd "$(dirname "$0")/../.." && pwd)"
bin="${GZ_BIN_DIR:-$root/build/bin}"
dir="${GZ_TEST_TMP:-/tmp}/presubmission-$format"
rm -rf "$dir"
"$root/tools/make_gomocup_folder.sh" --binary "$bin/pbrain-gomoku-zero" "$dir/engine" >/dev/null
"$bin/gomocup_check" --engine "$dir/engine/pbrain-gomoku-zero" --format "$format" --turn-ms 2000 --games 0 \
  --no-protocol --stderr "$dir/engine.stderr"
