#!/usr/bin/env bash
# "Load anywhere": a checkpoint exported by export_net is
# rebuilt in PyTorch by tools/net_to_torch.py, checked against the C++ forward on
# 1,000 positions (max abs difference <= 1e-5), written as TorchScript and ONNX;
# fc and conv heads (conv also at another board size), BatchNorm layers away from
# their initial values (make_export_test_net).  Then the refusals: tampered net
# files (a tensor removed, a wrong shape, an extra tensor, unknown versions), a
# check file that disagrees, and export_net on a missing or corrupt checkpoint.
# /usr/bin/python3 without numpy, torch or onnx is a FAILURE naming the package.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BIN="${GZ_BIN_DIR:-$ROOT/build/bin}"
TBIN="${GZ_TEST_BIN_DIR:-$ROOT/build/tests}"
OUT="${GZ_TEST_TMP:-$ROOT/build/test-tmp}/test_net_export_python"
PY=/usr/bin/python3
SCRIPT="$ROOT/tools/net_to_torch.py"
rm -rf "$OUT" && mkdir -p "$OUT"
source "$ROOT/tests/support/script_checks.sh"

# Debian's Python and its packages (launch/setup.sh installs them).
for mod in numpy:python3-numpy torch:python3-torch onnx:python3-onnx; do
  if ! "$PY" -c "import ${mod%%:*}" 2>"$OUT/import.err"; then
    echo "FAILED: $PY cannot import ${mod%%:*}: Debian's ${mod#*:} is missing (apt-get install ${mod#*:};" \
         "launch/setup.sh installs it): $(tail -1 "$OUT/import.err")"
    exit 1
  fi
done
for b in "$BIN/export_net" "$TBIN/make_export_test_net"; do
  [ -x "$b" ] || { echo "FAILED: $b is not built (cmake --build build --target export_net make_export_test_net)"; exit 1; }
done

# The round trip, both heads.  fc under renju (the forbidden-points plane is used).
check "fc net created" "$TBIN/make_export_test_net" "$OUT/fc.pt" fc 9 renju 16 2 11
check "conv net created" "$TBIN/make_export_test_net" "$OUT/conv.pt" conv 9 freestyle 16 2 12
for heads in fc conv; do
  check "$heads: export_net writes the net and 1000 check positions" "$BIN/export_net" --weights "$OUT/$heads.pt" \
    --out "$OUT/$heads.npz" --check-positions 1000 --check-out "$OUT/$heads.check.npz" --check-seed 5
  check "$heads: net_to_torch.py rebuilds it, matches the C++ forward, writes TorchScript and ONNX" \
    "$PY" "$SCRIPT" "$OUT/$heads.npz" --check "$OUT/$heads.check.npz" --torchscript "$OUT/$heads.ts" \
    --onnx "$OUT/$heads.onnx"
  check "$heads: TorchScript and ONNX files exist" test -s "$OUT/$heads.ts" -a -s "$OUT/$heads.onnx"
done
# The conv net at another size: PyTorch, TorchScript and the ONNX graph (dynamic board size).
check "conv: export_net --check-board-size 7" "$BIN/export_net" --weights "$OUT/conv.pt" --out "$OUT/conv7.npz" \
  --check-positions 1000 --check-out "$OUT/conv7.check.npz" --check-board-size 7
check "conv: the net checks at 7x7 too (PyTorch, ONNX with a dynamic board size)" "$PY" "$SCRIPT" \
  "$OUT/conv7.npz" --check "$OUT/conv7.check.npz" --onnx "$OUT/conv7.onnx"
check "the export is deterministic (same bytes twice)" bash -c "'$BIN/export_net' --weights '$OUT/fc.pt' \
  --out '$OUT/fc2.npz' --check-positions 1000 --check-out '$OUT/fc2.check.npz' --check-seed 5 >/dev/null && \
  cmp '$OUT/fc.npz' '$OUT/fc2.npz' && cmp '$OUT/fc.check.npz' '$OUT/fc2.check.npz'"

# Tampered files, made in one process: tamper.py "IN OUT ACTION [NAME]"...
cat >"$OUT/tamper.py" <<'PY'
import json, sys
import numpy as np
def tamper(src, dst, action, name=None):
  z = np.load(src, allow_pickle=False)
  a = {k: z[k] for k in z.files}
  h = json.loads(a["header"].tobytes().decode("utf-8"))
  if action == "remove":            # the array only: the header still lists it
      del a[name]
  elif action == "remove-listed":   # the array and its header entry
      del a[name]
      h["tensors"] = [t for t in h["tensors"] if t["name"] != name]
  elif action == "reshape":         # a wrong shape, header and array agreeing
      a[name] = np.zeros((a[name].shape[0] + 1,) + a[name].shape[1:], dtype=a[name].dtype)
      for t in h["tensors"]:
          if t["name"] == name:
              t["shape"] = list(a[name].shape)
  elif action == "extra":
      a[name] = np.zeros((3,), dtype=np.float32)
      h["tensors"].append({"name": name, "shape": [3], "dtype": "float32", "kind": "parameter"})
  elif action == "nan":
      a[name] = a[name].copy()
      a[name].flat[0] = np.nan
  elif action == "version":
      h["format_version"] = 99
  elif action == "encoder":
      h["encoder_version"] = 1
  elif action == "perturb":         # one C++ output off by 1e-4
      a["log_policy"] = a["log_policy"].copy()
      a["log_policy"][17, 3] += 1e-4
  a["header"] = np.frombuffer(json.dumps(h).encode("utf-8"), dtype=np.uint8)
  np.savez(dst, **a)
for spec in sys.argv[1:]:
    tamper(*spec.split())
PY
check "tampered copies written" "$PY" "$OUT/tamper.py" \
  "$OUT/fc.npz $OUT/t_remove.npz remove tower.1.bn2.running_var" \
  "$OUT/fc.npz $OUT/t_remove2.npz remove-listed policy_bn.weight" \
  "$OUT/fc.npz $OUT/t_shape.npz reshape policy_fc.weight" \
  "$OUT/conv.npz $OUT/t_extra.npz extra policy_fc.bias" \
  "$OUT/fc.npz $OUT/t_nan.npz nan value_fc1.weight" \
  "$OUT/fc.npz $OUT/t_version.npz version" \
  "$OUT/fc.npz $OUT/t_encoder.npz encoder" \
  "$OUT/fc.check.npz $OUT/t_perturb.check.npz perturb"
# One through the command line (a new process, its exit status) ...
refused "a tensor removed from the file is refused, naming it" "'tower.1.bn2.running_var'" \
  "$PY" "$SCRIPT" "$OUT/t_remove.npz"
# ... the others through the script's main() in one process (importing torch takes seconds):
# each case is ARGS | EXIT | TEXT on stderr.
cat >"$OUT/refusals.txt" <<CASES
$OUT/t_remove2.npz|2|tensor 'policy_bn.weight' [2] is missing
$OUT/t_shape.npz|2|tensor 'policy_fc.weight' has shape [82, 162] but the fc-heads 16x2 net for 9x9 renju needs [81, 162]
$OUT/t_extra.npz|2|unexpected tensor 'policy_fc.bias'
$OUT/t_nan.npz|2|tensor 'value_fc1.weight' holds a NaN
$OUT/t_version.npz|2|format version 99
$OUT/t_encoder.npz|2|encoder version 1
$OUT/fc.npz --check $OUT/t_perturb.check.npz|1|differs from the C++ forward
$OUT/fc.npz --check $OUT/conv.check.npz|2|made from another net
$OUT/nope.npz|2|does not exist
$OUT/fc.npz --check $OUT/t_version.npz|2|expected 'gomoku-zero-net-check'
CASES
cat >"$OUT/refusals.py" <<'PY'
import contextlib, io, sys
sys.path.insert(0, sys.argv[1])
import net_to_torch
fails = 0
for line in open(sys.argv[2]):
    args, code, text = line.rstrip("\n").split("|", 2)
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            got = net_to_torch.main(args.split())
        except SystemExit as e:
            got = e.code
    msg = err.getvalue().strip()
    if got == int(code) and text in msg and msg.count("\n") == 0:
        print("ok: refused with exit %s: %s" % (got, msg))
    else:
        fails += 1
        print("FAILED: %s: exit %s (expected %s), stderr %r, expected one line with %r" % (args, got, code, msg, text))
sys.exit(1 if fails else 0)
PY
check "tampered files and bad checks are refused, one line each naming the problem" \
  "$PY" "$OUT/refusals.py" "$ROOT/tools" "$OUT/refusals.txt"

# export_net on bad input: exit 2, the problem named, no output file.
refused "export_net: a missing checkpoint is exit 2" "nope.pt" \
  "$BIN/export_net" --weights "$OUT/nope.pt" --out "$OUT/x.npz" --check-positions 10 --check-out "$OUT/x.check.npz"
head -c 2000 "$OUT/fc.pt" >"$OUT/truncated.pt"
refused "export_net: a truncated checkpoint is exit 2" "truncated" \
  "$BIN/export_net" --weights "$OUT/truncated.pt" --out "$OUT/x.npz" --check-positions 10 --check-out "$OUT/x.check.npz"
check "export_net: that was exit 2" test "$LAST_RC" = 2
check "export_net wrote nothing for them" test ! -e "$OUT/x.npz" -a ! -e "$OUT/x.check.npz"

echo "$PASSES passed, $FAILS failed"
((FAILS == 0))
