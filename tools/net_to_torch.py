#!/usr/bin/python3
"""net_to_torch.py: a gomoku-zero net exported by export_net -> PyTorch, TorchScript, ONNX.

Usage:
  tools/net_to_torch.py NET.npz [--check CHECK.npz] [--torchscript OUT.pt] [--onnx OUT.onnx]
                        [--tolerance 1e-5] [--onnx-tolerance 1e-4] [--min-check-positions 1000]
                        [--threads 1] [--opset 13]

Reads NET.npz (build/bin/export_net --weights CKPT --out NET.npz), rebuilds the net
as a torch.nn.Module from its header (the layers of common/net/model.cc) and loads
every tensor by name, refusing a missing, extra or mis-shaped tensor, and an unknown
format or encoder version.

--check CHECK.npz (export_net --check-positions N --check-out CHECK.npz): runs the
positions through the rebuilt net and compares log_policy and value with the C++
forward's outputs stored there; prints the max absolute differences and fails when
either exceeds --tolerance (default 1e-5), or when the file holds fewer than
--min-check-positions positions (default 1000).

--torchscript OUT.pt: torch.jit.script, save, reload, and (with --check) re-check the
reloaded module.  --onnx OUT.onnx: torch.onnx.export (input "planes", outputs
"log_policy" and "value"; dynamic batch, and dynamic board size for conv heads),
onnx.checker.check_model, a check of the graph's input/output names and shapes, and
(with --check) a numeric check of the graph with a small numpy evaluator of its
operators (float64, within --onnx-tolerance, default 1e-4): onnxruntime is not
packaged in Debian 12.

Runs with Debian's /usr/bin/python3 and python3-numpy, python3-torch (1.13) and, for
--onnx, python3-onnx.  Errors are one line on stderr: exit 2 for bad input (files,
formats, tensors), 1 when a check fails.  Format: docs/file-formats.md, "Exported nets".
"""

import argparse
import json
import os
import sys

PROG = "net_to_torch"
NET_FORMAT = "gomoku-zero-net"
CHECK_FORMAT = "gomoku-zero-net-check"
FORMAT_VERSIONS = (1,)
ENCODER_VERSIONS = (2,)
NUM_PLANES = 5
HEADER_KEY = "header"
MIN_BOARD, MAX_BOARD = 5, 22


class InputError(Exception):
    """Bad input: exit 2."""


class CheckFailed(Exception):
    """A comparison failed: exit 1."""


def die(msg, code):
    print("%s: error: %s" % (PROG, msg), file=sys.stderr)
    sys.exit(code)


def import_or_die(module, package):
    try:
        return __import__(module)
    except ImportError as e:
        die("%s cannot import %s (%s): install Debian's %s (apt-get install %s)"
            % (sys.executable, module, e, package, package), 3)


# numpy and torch are imported here but required only in main() / load_net(), so that
# --help works without them and a missing one is reported in one line naming the package.
try:
    import numpy as np
except ImportError:
    np = None
try:
    import torch
    import torch.nn.functional as F
    from torch import Tensor, nn
    from typing import Tuple
except ImportError:
    torch = None


# ---------------------------------------------------------------------------
# Reading the files

def load_npz(path, what):
    if not os.path.isfile(path):
        raise InputError("%s '%s' does not exist" % (what, path))
    try:
        z = np.load(path, allow_pickle=False)
        arrays = {k: z[k] for k in z.files}
    except Exception as e:  # zipfile.BadZipFile, ValueError, OSError ...
        raise InputError("%s '%s' is not a readable .npz (%s)" % (what, path, e))
    if HEADER_KEY not in arrays:
        raise InputError("%s '%s' has no '%s' entry (not written by export_net)" % (what, path, HEADER_KEY))
    h = arrays.pop(HEADER_KEY)
    if h.dtype != np.uint8 or h.ndim != 1:
        raise InputError("%s '%s': '%s' is %s %s, expected a uint8 vector" % (what, path, HEADER_KEY, h.dtype, h.shape))
    try:
        header = json.loads(h.tobytes().decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise InputError("%s '%s': the header is not UTF-8 JSON (%s)" % (what, path, e))
    if not isinstance(header, dict):
        raise InputError("%s '%s': the header is not a JSON object" % (what, path))
    return header, arrays


def field(header, key, kind, path):
    if key not in header:
        raise InputError("'%s': header field '%s' is missing" % (path, key))
    v = header[key]
    if kind is int and (isinstance(v, bool) or not isinstance(v, int)):
        raise InputError("'%s': header field '%s' is %r, expected an integer" % (path, key, v))
    if kind is str and not isinstance(v, str):
        raise InputError("'%s': header field '%s' is %r, expected a string" % (path, key, v))
    if kind is dict and not isinstance(v, dict):
        raise InputError("'%s': header field '%s' is not a JSON object" % (path, key))
    return v


def check_versions(header, path, fmt):
    f = field(header, "format", str, path)
    if f != fmt:
        raise InputError("'%s' has format '%s', expected '%s'" % (path, f, fmt))
    v = field(header, "format_version", int, path)
    if v not in FORMAT_VERSIONS:
        raise InputError("'%s' has format version %d; this script reads version(s) %s"
                         % (path, v, ", ".join(map(str, FORMAT_VERSIONS))))
    e = field(header, "encoder_version", int, path)
    if e not in ENCODER_VERSIONS:
        raise InputError("'%s' was made for encoder version %d; this script knows encoder version(s) %s "
                         "(%d input planes)" % (path, e, ", ".join(map(str, ENCODER_VERSIONS)), NUM_PLANES))


class NetSpec:
    """What the header says about the net."""

    def __init__(self, header, path):
        check_versions(header, path, NET_FORMAT)
        self.board_size = field(header, "board_size", int, path)
        self.channels = field(header, "channels", int, path)
        self.blocks = field(header, "blocks", int, path)
        self.heads = field(header, "heads", str, path)
        self.rule = field(header, "rule", str, path)
        if self.heads not in ("fc", "conv"):
            raise InputError("'%s' has heads '%s'; this script knows fc and conv" % (path, self.heads))
        if not MIN_BOARD <= self.board_size <= MAX_BOARD:
            raise InputError("'%s': board_size %d outside [%d, %d]" % (path, self.board_size, MIN_BOARD, MAX_BOARD))
        if not 1 <= self.channels <= 1024 or not 0 <= self.blocks <= 64:
            raise InputError("'%s': channels %d / blocks %d out of range" % (path, self.channels, self.blocks))
        arch = field(header, "architecture", dict, path)
        if arch.get("input_planes") != NUM_PLANES:
            raise InputError("'%s': architecture.input_planes is %r, expected %d"
                             % (path, arch.get("input_planes"), NUM_PLANES))
        if arch.get("activation") != "relu":
            raise InputError("'%s': architecture.activation is %r; this script knows relu" % (path, arch.get("activation")))
        bn = arch.get("batchnorm") or {}
        try:
            self.bn_eps = float(bn["eps"])
            self.bn_momentum = None if bn["momentum"] is None else float(bn["momentum"])
        except (KeyError, TypeError, ValueError):
            raise InputError("'%s': architecture.batchnorm needs eps and momentum, got %r" % (path, bn))
        self.value_hidden = arch.get("value_hidden")
        self.conv_head_channels = arch.get("conv_head_channels", 32)
        if not isinstance(self.value_hidden, int) or not isinstance(self.conv_head_channels, int):
            raise InputError("'%s': architecture.value_hidden / conv_head_channels missing or not integers" % path)
        self.header = header

    def describe(self):
        return "%s-heads %dx%d net for %dx%d %s" % (self.heads, self.channels, self.blocks, self.board_size,
                                                    self.board_size, self.rule)


# ---------------------------------------------------------------------------
# The net: common/net/model.cc, layer for layer, with the same names.

if torch is not None:

    class ResidualBlock(nn.Module):
        """tower.i: conv1 (3x3) - bn1 - relu - conv2 (3x3) - bn2, + skip, relu."""

        def __init__(self, c: int, eps: float, momentum):
            super().__init__()
            self.conv1 = nn.Conv2d(c, c, 3, padding=1, bias=False)
            self.bn1 = nn.BatchNorm2d(c, eps=eps, momentum=momentum)
            self.conv2 = nn.Conv2d(c, c, 3, padding=1, bias=False)
            self.bn2 = nn.BatchNorm2d(c, eps=eps, momentum=momentum)

        def forward(self, x: Tensor) -> Tensor:
            y = F.relu(self.bn1(self.conv1(x)))
            y = self.bn2(self.conv2(y))
            return F.relu(y + x)

    class Body(nn.Module):
        """What both head types share (model.cc): input conv - bn - relu, the residual tower, and
        each head's 1x1 conv - bn - relu (policy_channels / value_channels planes)."""

        def __init__(self, channels: int, blocks: int, policy_channels: int, value_channels: int, eps: float,
                     momentum):
            super().__init__()
            C = channels
            self.input_conv = nn.Conv2d(NUM_PLANES, C, 3, padding=1, bias=False)
            self.input_bn = nn.BatchNorm2d(C, eps=eps, momentum=momentum)
            self.tower = nn.ModuleList([ResidualBlock(C, eps, momentum) for _ in range(blocks)])
            self.policy_conv = nn.Conv2d(C, policy_channels, 1, bias=False)
            self.policy_bn = nn.BatchNorm2d(policy_channels, eps=eps, momentum=momentum)
            self.value_conv = nn.Conv2d(C, value_channels, 1, bias=False)
            self.value_bn = nn.BatchNorm2d(value_channels, eps=eps, momentum=momentum)

        def head_inputs(self, planes: Tensor) -> Tuple[Tensor, Tensor]:
            x = F.relu(self.input_bn(self.input_conv(planes)))
            for block in self.tower:
                x = block(x)
            return F.relu(self.policy_bn(self.policy_conv(x))), F.relu(self.value_bn(self.value_conv(x)))

    class FcNet(Body):
        """Fc heads (model.cc PolicyValueNetImpl::forward): plays only board_size."""

        def __init__(self, size: int, channels: int, blocks: int, value_hidden: int, eps: float, momentum):
            super().__init__(channels, blocks, 2, 1, eps, momentum)
            P = size * size
            self.policy_fc = nn.Linear(2 * P, P)
            self.value_fc1 = nn.Linear(P, value_hidden)
            self.value_fc2 = nn.Linear(value_hidden, 1)

        def forward(self, planes: Tensor) -> Tuple[Tensor, Tensor]:
            p, v = self.head_inputs(planes)
            p = self.policy_fc(torch.flatten(p, 1))  # channel-major, as reshape({n, -1}) in C++
            v = F.relu(self.value_fc1(torch.flatten(v, 1)))
            return F.log_softmax(p, dim=1), torch.flatten(torch.tanh(self.value_fc2(v)))

    class ConvNet(Body):
        """Conv heads (model.cc PolicyValueNetImpl::ForwardConv): plays any square board 5..22."""

        def __init__(self, channels: int, blocks: int, head_channels: int, value_hidden: int, eps: float,
                     momentum):
            super().__init__(channels, blocks, head_channels, head_channels, eps, momentum)
            H = head_channels
            self.policy_out = nn.Conv2d(H, 1, 1, bias=False)
            self.value_fc1 = nn.Linear(2 * H, value_hidden)
            self.value_fc2 = nn.Linear(value_hidden, 1)

        def forward(self, planes: Tensor) -> Tuple[Tensor, Tensor]:
            p, v = self.head_inputs(planes)
            p = torch.flatten(self.policy_out(p), 1)
            v = torch.cat([torch.mean(v, dim=[2, 3]), torch.amax(v, dim=[2, 3])], dim=1)  # [N, 2H]: mean, max
            v = F.relu(self.value_fc1(v))
            return F.log_softmax(p, dim=1), torch.flatten(torch.tanh(self.value_fc2(v)))


def build_module(spec):
    """The net of common/net/model.cc, layer for layer, with the same names."""
    if spec.heads == "fc":
        return FcNet(spec.board_size, spec.channels, spec.blocks, spec.value_hidden, spec.bn_eps, spec.bn_momentum)
    return ConvNet(spec.channels, spec.blocks, spec.conv_head_channels, spec.value_hidden, spec.bn_eps,
                   spec.bn_momentum)


def load_tensors(model, spec, arrays, path):
    """Every tensor by name; refuses missing, extra, mis-shaped and non-finite ones."""
    expected = model.state_dict()
    listed = spec.header.get("tensors")
    if not isinstance(listed, list):
        raise InputError("'%s': header field 'tensors' is missing or not a list" % path)
    listed_names = []
    for t in listed:
        if not isinstance(t, dict) or not isinstance(t.get("name"), str):
            raise InputError("'%s': a 'tensors' entry of the header has no name: %r" % (path, t))
        listed_names.append(t["name"])
    for name in listed_names:
        if name not in arrays:
            raise InputError("'%s': tensor '%s' is listed in the header but missing from the file" % (path, name))
    for name in arrays:
        if name not in listed_names:
            raise InputError("'%s': tensor '%s' is in the file but not listed in the header" % (path, name))
    for name, ref in expected.items():
        if name not in arrays:
            raise InputError("'%s': tensor '%s' %s is missing (the %s needs it)"
                             % (path, name, list(ref.shape), spec.describe()))
    for name in arrays:
        if name not in expected:
            raise InputError("'%s': unexpected tensor '%s' %s (not part of a %s)"
                             % (path, name, list(arrays[name].shape), spec.describe()))
    state = {}
    for name, ref in expected.items():
        a = arrays[name]
        if tuple(a.shape) != tuple(ref.shape):
            raise InputError("'%s': tensor '%s' has shape %s but the %s needs %s"
                             % (path, name, list(a.shape), spec.describe(), list(ref.shape)))
        want = np.int64 if ref.dtype == torch.int64 else np.float32
        if a.dtype != np.dtype(want).newbyteorder("<") and a.dtype != np.dtype(want):
            raise InputError("'%s': tensor '%s' has dtype %s, expected %s" % (path, name, a.dtype, np.dtype(want)))
        if want is np.float32 and not np.all(np.isfinite(a)):
            bad = int(np.flatnonzero(~np.isfinite(a.ravel()))[0])
            raise InputError("'%s': tensor '%s' holds a NaN or Inf (element %d)" % (path, name, bad))
        state[name] = torch.from_numpy(np.ascontiguousarray(a.astype(want)))
    model.load_state_dict(state, strict=True)
    model.eval()
    return len(state)


# ---------------------------------------------------------------------------
# Checking against the C++ forward

class CheckData:
    def __init__(self, path, spec, net_path, min_positions):
        header, arrays = load_npz(path, "check file")
        check_versions(header, path, CHECK_FORMAT)
        for key in ("planes", "log_policy", "value"):
            if key not in arrays:
                raise InputError("check file '%s' has no '%s' array" % (path, key))
        planes, lp, v = arrays["planes"], arrays["log_policy"], arrays["value"]
        if planes.dtype != np.float32 or lp.dtype != np.float32 or v.dtype != np.float32:
            raise InputError("check file '%s': planes, log_policy and value must be float32" % path)
        if planes.ndim != 4 or planes.shape[1] != NUM_PLANES or planes.shape[2] != planes.shape[3]:
            raise InputError("check file '%s': planes has shape %s, expected [N, %d, S, S]"
                             % (path, list(planes.shape), NUM_PLANES))
        n, s = planes.shape[0], planes.shape[2]
        if lp.shape != (n, s * s) or v.shape != (n,):
            raise InputError("check file '%s': log_policy %s / value %s do not fit planes %s"
                             % (path, list(lp.shape), list(v.shape), list(planes.shape)))
        if spec.heads == "fc" and s != spec.board_size:
            raise InputError("check file '%s' has %dx%d positions but the fc-heads net plays only %dx%d"
                             % (path, s, s, spec.board_size, spec.board_size))
        for key in ("source", "model_generation", "rule"):
            if header.get(key) != spec.header.get(key):
                raise InputError("check file '%s' was made from another net: %s %r, but '%s' has %r"
                                 % (path, key, header.get(key), net_path, spec.header.get(key)))
        if n < min_positions:
            raise InputError("check file '%s' holds %d positions; at least %d are required (--min-check-positions)"
                             % (path, n, min_positions))
        self.path, self.planes, self.log_policy, self.value, self.n, self.size = path, planes, lp, v, n, s


def run_torch(fn, planes, batch=256):
    lps, vs = [], []
    with torch.no_grad():
        for i in range(0, planes.shape[0], batch):
            lp, v = fn(torch.from_numpy(np.ascontiguousarray(planes[i:i + batch])))
            lps.append(lp.numpy())
            vs.append(v.numpy())
    return np.concatenate(lps), np.concatenate(vs)


def compare(what, lp, v, check, tol):
    if lp.shape != check.log_policy.shape or v.shape != check.value.shape:
        raise CheckFailed("%s: output shapes %s / %s, the C++ forward's %s / %s"
                          % (what, list(lp.shape), list(v.shape), list(check.log_policy.shape),
                             list(check.value.shape)))
    dp = float(np.max(np.abs(lp.astype(np.float64) - check.log_policy)))
    dv = float(np.max(np.abs(v.astype(np.float64) - check.value)))
    ok = dp <= tol and dv <= tol and np.isfinite(dp) and np.isfinite(dv)
    print("%s vs C++ forward on %d positions (%dx%d): max |d log_policy| = %.3g, max |d value| = %.3g "
          "(tolerance %.0e): %s" % (what, check.n, check.size, check.size, dp, dv, tol, "ok" if ok else "FAILED"))
    if not ok:
        raise CheckFailed("%s differs from the C++ forward by more than %g (log_policy %.3g, value %.3g)"
                          % (what, tol, dp, dv))
    return dp, dv


# ---------------------------------------------------------------------------
# TorchScript and ONNX

def atomic_target(path):
    d = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(d):
        raise InputError("output folder '%s' does not exist" % d)
    return "%s.tmp.%d" % (path, os.getpid())


def write_torchscript(model, path, check, tol):
    scripted = torch.jit.script(model)
    tmp = atomic_target(path)
    try:
        scripted.save(tmp)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    loaded = torch.jit.load(path)
    loaded.eval()
    print("TorchScript: wrote %s and reloaded it" % path)
    if check is not None:
        compare("TorchScript (reloaded)", *run_torch(loaded, check.planes), check, tol)


def dims_of(value_info):
    t = value_info.type.tensor_type
    out = []
    for d in t.shape.dim:
        out.append(d.dim_value if d.HasField("dim_value") else (d.dim_param or "?"))
    return t.elem_type, out


def write_onnx(model, spec, path, check, tol, opset):
    onnx = import_or_die("onnx", "python3-onnx")
    S = spec.board_size
    dynamic = {"planes": {0: "batch"}, "log_policy": {0: "batch"}, "value": {0: "batch"}}
    if spec.heads == "conv":
        dynamic["planes"].update({2: "height", 3: "width"})
        dynamic["log_policy"][1] = "points"
    example = torch.zeros(2, NUM_PLANES, S, S)
    tmp = atomic_target(path)
    try:
        torch.onnx.export(model, (example,), tmp, input_names=["planes"], output_names=["log_policy", "value"],
                          dynamic_axes=dynamic, opset_version=opset, do_constant_folding=True)
        m = onnx.load(tmp)
        onnx.checker.check_model(m)
        # The graph's interface.
        inputs = [i for i in m.graph.input if i.name not in {init.name for init in m.graph.initializer}]
        names = ([i.name for i in inputs], [o.name for o in m.graph.output])
        if names != (["planes"], ["log_policy", "value"]):
            raise CheckFailed("ONNX graph has inputs %s and outputs %s, expected ['planes'] and "
                              "['log_policy', 'value']" % names)
        f32 = onnx.TensorProto.FLOAT
        spatial = ["height", "width"] if spec.heads == "conv" else [S, S]
        want = {"planes": (f32, ["batch", NUM_PLANES] + spatial),
                "log_policy": (f32, ["batch", "points" if spec.heads == "conv" else S * S]),
                "value": (f32, ["batch"])}
        for vi in list(inputs) + list(m.graph.output):
            got = dims_of(vi)
            if got != (want[vi.name][0], want[vi.name][1]):
                raise CheckFailed("ONNX %s has element type %d and shape %s, expected %d and %s"
                                  % (vi.name, got[0], got[1], want[vi.name][0], want[vi.name][1]))
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    ops = sorted({n.op_type for n in m.graph.node})
    print("ONNX: wrote %s (opset %d, onnx %s): check_model ok; input planes %s, outputs log_policy %s, value %s; "
          "operators %s" % (path, opset, onnx.__version__, want["planes"][1], want["log_policy"][1],
                            want["value"][1], ", ".join(ops)))
    print("ONNX: onnxruntime is not available on Debian 12 (not packaged), so the graph is run by this "
          "script's numpy evaluator instead")
    if check is not None:
        ev = OnnxNumpy(m, onnx)
        if ev.unsupported:
            print("ONNX: numeric check skipped: operators %s are not in the numpy evaluator"
                  % ", ".join(sorted(ev.unsupported)))
        else:
            lps, vs = [], []
            for i in range(0, check.n, 128):
                out = ev.run({"planes": check.planes[i:i + 128]})
                lps.append(out["log_policy"])
                vs.append(out["value"])
            compare("ONNX graph (numpy evaluator, float64)", np.concatenate(lps), np.concatenate(vs), check, tol)


class OnnxNumpy:
    """Runs the few ONNX operators a gomoku-zero net exports to, in numpy (float64)."""

    KNOWN = {"Conv", "BatchNormalization", "Relu", "Add", "Gemm", "MatMul", "Flatten", "Reshape", "LogSoftmax",
             "Tanh", "ReduceMean", "ReduceMax", "Concat", "Squeeze", "Unsqueeze", "Shape", "Gather", "Constant",
             "Identity", "Cast", "Mul", "Slice", "Transpose", "Softmax", "Log", "Sub", "Exp", "ReduceSum", "Div"}

    def __init__(self, model, onnx):
        from onnx import numpy_helper
        self.graph = model.graph
        self.init = {t.name: numpy_helper.to_array(t) for t in self.graph.initializer}
        self.numpy_helper = numpy_helper
        self.onnx = onnx
        self.unsupported = {n.op_type for n in self.graph.node} - self.KNOWN

    @staticmethod
    def attrs(node, onnx):
        return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}

    @staticmethod
    def conv(x, w, b, pads, strides, dilations, group):
        if any(s != 1 for s in strides) or any(d != 1 for d in dilations) or group != 1:
            raise CheckFailed("ONNX Conv with strides/dilations/groups is not in the numpy evaluator")
        n, c, h, wd = x.shape
        o, ci, kh, kw = w.shape
        xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
        win = np.lib.stride_tricks.sliding_window_view(xp, (kh, kw), axis=(2, 3))  # [n, c, H, W, kh, kw]
        y = np.tensordot(win, w, axes=([1, 4, 5], [1, 2, 3]))  # [n, H, W, o]
        y = np.moveaxis(y, 3, 1)
        if b is not None:
            y = y + b.reshape(1, -1, 1, 1)
        return y

    def run(self, feeds):
        onnx = self.onnx
        env = dict(self.init)
        env.update({k: v.astype(np.float64) for k, v in feeds.items()})
        for node in self.graph.node:
            a = self.attrs(node, onnx)
            i = [env[name] if name else None for name in node.input]
            op = node.op_type
            if op == "Constant":
                r = self.numpy_helper.to_array(a["value"])
            elif op == "Conv":
                pads = a.get("pads", [0, 0, 0, 0])
                r = self.conv(i[0], i[1].astype(np.float64), None if len(i) < 3 else i[2].astype(np.float64), pads,
                              a.get("strides", [1, 1]), a.get("dilations", [1, 1]), a.get("group", 1))
            elif op == "BatchNormalization":
                x, sc, bi, mu, var = i[:5]
                shp = (1, -1, 1, 1)
                r = (x - mu.reshape(shp)) / np.sqrt(var.reshape(shp) + a.get("epsilon", 1e-5)) * sc.reshape(shp) \
                    + bi.reshape(shp)
            elif op == "Relu":
                r = np.maximum(i[0], 0)
            elif op in ("Add", "Mul", "Sub", "Div"):
                r = {"Add": np.add, "Mul": np.multiply, "Sub": np.subtract, "Div": np.divide}[op](i[0], i[1])
            elif op == "Gemm":
                A = i[0].T if a.get("transA", 0) else i[0]
                B = i[1].T if a.get("transB", 0) else i[1]
                r = a.get("alpha", 1.0) * (A @ B)
                if len(i) > 2 and i[2] is not None:
                    r = r + a.get("beta", 1.0) * i[2]
            elif op == "MatMul":
                r = i[0] @ i[1]
            elif op == "Flatten":
                ax = a.get("axis", 1)
                r = i[0].reshape(int(np.prod(i[0].shape[:ax])), -1)
            elif op == "Reshape":
                shape = [int(d) if d != 0 else i[0].shape[j] for j, d in enumerate(i[1])]
                r = i[0].reshape(shape)
            elif op == "LogSoftmax" or op == "Softmax":
                ax = a.get("axis", -1)
                z = i[0] - np.max(i[0], axis=ax, keepdims=True)
                lse = np.log(np.sum(np.exp(z), axis=ax, keepdims=True))
                r = z - lse if op == "LogSoftmax" else np.exp(z - lse)
            elif op in ("Tanh", "Exp", "Log"):
                r = {"Tanh": np.tanh, "Exp": np.exp, "Log": np.log}[op](i[0])
            elif op in ("ReduceMean", "ReduceMax", "ReduceSum"):
                axes = a.get("axes")
                if axes is None and len(i) > 1 and i[1] is not None:
                    axes = i[1]
                axes = None if axes is None else tuple(int(x) for x in axes)
                f = {"ReduceMean": np.mean, "ReduceMax": np.max, "ReduceSum": np.sum}[op]
                r = f(i[0], axis=axes, keepdims=bool(a.get("keepdims", 1)))
            elif op == "Concat":
                r = np.concatenate(i, axis=a["axis"])
            elif op == "Squeeze":
                axes = a.get("axes", i[1] if len(i) > 1 else None)
                r = np.squeeze(i[0], axis=None if axes is None else tuple(int(x) for x in axes))
            elif op == "Unsqueeze":
                axes = a.get("axes", i[1] if len(i) > 1 else None)
                r = np.expand_dims(i[0], tuple(int(x) for x in axes))
            elif op == "Shape":
                r = np.array(i[0].shape, dtype=np.int64)
            elif op == "Gather":
                r = np.take(i[0], i[1].astype(np.int64), axis=a.get("axis", 0))
            elif op == "Identity" or op == "Cast":
                r = i[0]
            elif op == "Slice":
                starts, ends = i[1], i[2]
                axes = i[3] if len(i) > 3 else range(len(starts))
                sl = [slice(None)] * i[0].ndim
                for s0, e0, ax in zip(starts, ends, axes):
                    sl[int(ax)] = slice(int(s0), int(min(e0, 2**62)))
                r = i[0][tuple(sl)]
            elif op == "Transpose":
                r = np.transpose(i[0], a.get("perm"))
            else:
                raise CheckFailed("ONNX operator %s is not in the numpy evaluator" % op)
            env[node.output[0]] = np.asarray(r)
        return {o.name: env[o.name] for o in self.graph.output}


# ---------------------------------------------------------------------------

def load_net(path):
    """For use as a module: (torch.nn.Module in eval mode, header dict) of an exported NET.npz.

    Raises InputError naming the problem.  Example:
        sys.path.insert(0, "tools"); import net_to_torch
        model, header = net_to_torch.load_net("net.npz")
        log_policy, value = model(planes)  # planes: float32 [N, 5, S, S]
    """
    if np is None or torch is None:
        raise ImportError("net_to_torch.load_net needs numpy and torch")
    header, arrays = load_npz(path, "net file")
    spec = NetSpec(header, path)
    model = build_module(spec)
    load_tensors(model, spec, arrays, path)
    return model, header


def main(argv):
    ap = argparse.ArgumentParser(
        prog="net_to_torch.py",
        description="Rebuild a gomoku-zero net exported by export_net (NET.npz) in PyTorch, check it against the "
                    "C++ forward (CHECK.npz), and write TorchScript and ONNX.",
        epilog="Example: build/bin/export_net --weights W.pt --out net.npz --check-positions 1000 --check-out "
               "check.npz && /usr/bin/python3 tools/net_to_torch.py net.npz --check check.npz --torchscript net.ts "
               "--onnx net.onnx.  Exit codes: 0 ok, 1 a check failed, 2 bad input, 3 a Python package is missing.  "
               "Format: docs/file-formats.md \"Exported nets\".")
    ap.add_argument("net", metavar="NET.npz", help="the net, written by export_net --out")
    ap.add_argument("--check", metavar="CHECK.npz", help="positions with the C++ outputs (export_net --check-out)")
    ap.add_argument("--torchscript", metavar="OUT.pt", help="write the net as TorchScript (torch.jit.script)")
    ap.add_argument("--onnx", metavar="OUT.onnx", help="write the net as ONNX (needs python3-onnx)")
    ap.add_argument("--tolerance", type=float, default=1e-5, help="max abs difference allowed (default 1e-5)")
    ap.add_argument("--onnx-tolerance", type=float, default=1e-4,
                    help="max abs difference allowed between the ONNX graph run by the numpy evaluator (float64) "
                         "and the C++ float32 forward (default 1e-4: that difference is mostly the C++ forward's "
                         "own float32 rounding)")
    ap.add_argument("--min-check-positions", type=int, default=1000,
                    help="refuse a check file with fewer positions (default 1000)")
    ap.add_argument("--threads", type=int, default=1, help="torch intra-op threads (default 1)")
    ap.add_argument("--opset", type=int, default=13, help="ONNX opset (default 13)")
    args = ap.parse_args(argv)

    import_or_die("numpy", "python3-numpy")
    import_or_die("torch", "python3-torch")
    if args.onnx:
        import_or_die("onnx", "python3-onnx")
    torch.set_num_threads(max(1, args.threads))
    try:
        header, arrays = load_npz(args.net, "net file")
        spec = NetSpec(header, args.net)
        model = build_module(spec)
        n = load_tensors(model, spec, arrays, args.net)
        print("loaded %s: %s, %d tensors, iteration %s, generation %s (torch %s)"
              % (args.net, spec.describe(), n, header.get("iteration"), header.get("model_generation"),
                 torch.__version__))
        check = CheckData(args.check, spec, args.net, args.min_check_positions) if args.check else None
        if check is not None:
            compare("PyTorch module", *run_torch(model, check.planes), check, args.tolerance)
        else:
            print("no --check file: the rebuilt net is not compared with the C++ forward")
        if args.torchscript:
            write_torchscript(model, args.torchscript, check, args.tolerance)
        if args.onnx:
            write_onnx(model, spec, args.onnx, check, args.onnx_tolerance, args.opset)
    except InputError as e:
        die(str(e), 2)
    except CheckFailed as e:
        die(str(e), 1)
    print("%s: ok" % PROG)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
