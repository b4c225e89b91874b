#!/usr/bin/python3
"""ONNX import tests (tests/onnx): every supported op built with onnx.helper, compiled by
`axc compile MODEL.onnx`, run on the ref backend (and the TLM with --tlm), compared with a NumPy
implementation of the ONNX operator semantics written here (not the compiler's reference), and
ref == TLM byte for byte; every refusal (node name, op type, 'supported:'); corrupt files.

  onnx_ops_test.py AXC AXRUN WORKDIR [--tlm] [--rtl] [--testdata DIR]
--tlm / --rtl: also run every op graph on that backend and require its output bytes to equal ref's.
"""
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

AXC, AXRUN, WORK = sys.argv[1:4]
TLM = "--tlm" in sys.argv
RTL = "--rtl" in sys.argv
TESTDATA = sys.argv[sys.argv.index("--testdata") + 1] if "--testdata" in sys.argv else None
os.makedirs(WORK, exist_ok=True)
rng = np.random.default_rng(25)
failures = []
counts = {"ops": 0, "refusals": 0, "corrupt": 0, "testdata_run": 0, "testdata_refused": 0}


def fail(msg):
    failures.append(msg)
    print("FAIL", msg)


def model(name, nodes, inputs, outputs, inits, opset=13):
    g = h.make_graph(nodes, name, [h.make_tensor_value_info(n, t, s) for n, t, s in inputs],
                     [h.make_tensor_value_info(n, t, s) for n, t, s in outputs], [nh.from_array(np.asarray(v), k) for k, v in inits.items()])
    m = h.make_model(g, opset_imports=[h.make_opsetid("", opset)])
    path = os.path.join(WORK, name + ".onnx")
    onnx.save(m, path)
    return path


def compile_(path):
    r = subprocess.run([AXC, "compile", path, "-o", path + ".axb"], capture_output=True, text=True)
    return r


def run(path, feeds, backend="ref"):
    args = [AXRUN, path + ".axb", "--backend", backend, "-q", "--output-dir", path + "." + backend]
    for k, v in feeds.items():
        np.save(f"{path}.{k}.npy", v)
        args += ["--input", f"{k}={path}.{k}.npy"]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(r.stderr + r.stdout)
    return path + "." + backend


# ---- NumPy ONNX semantics ----------------------------------------------------------------------------
def quantize(x, s, z=0):
    return np.clip(np.rint(x / s) + z, -128, 127)


def dequantize(q, s, z=0):
    return (q.astype(np.float64) - z) * s


def conv2d(x, w, stride=1, pad=0):  # NCHW, OIHW
    n, c, hh, ww = x.shape
    o, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = (hh + 2 * pad - kh) // stride + 1, (ww + 2 * pad - kw) // stride + 1
    y = np.zeros((n, o, oh, ow))
    for i in range(kh):
        for j in range(kw):
            patch = xp[:, :, i:i + stride * oh:stride, j:j + stride * ow:stride]
            y += np.einsum("nchw,oc->nohw", patch, w[:, :, i, j])
    return y


def pool(x, k, s, f):
    n, c, hh, ww = x.shape
    oh, ow = (hh - k) // s + 1, (ww - k) // s + 1
    win = np.stack([x[:, :, i:i + s * oh:s, j:j + s * ow:s] for i in range(k) for j in range(k)], 0)
    return f(win, axis=0)


def check(name, path, feeds, expect, tol, out="y", int8=False, mag=None):
    """Compile, run on ref (and tlm), compare with the NumPy result."""
    counts["ops"] += 1
    r = compile_(path)
    if r.returncode != 0:
        return fail(f"{name}: axc compile failed: {r.stderr.strip()}")
    try:
        ref = np.load(os.path.join(run(path, feeds), out + ".npy"))
        for be in [b for b, on in (("tlm", TLM), ("rtl", RTL)) if on]:
            got = os.path.join(run(path, feeds, be), out + ".npy")
            if open(got, "rb").read() != open(os.path.join(path + ".ref", out + ".npy"), "rb").read():
                return fail(f"{name}: {be} output differs from ref")
    except RuntimeError as e:
        return fail(f"{name}: axrun failed: {e}")
    if ref.shape != expect.shape:
        return fail(f"{name}: shape {ref.shape}, ONNX says {expect.shape}")
    err = np.abs(ref.astype(np.float64) - expect)
    # float results: relative to the value, or for an MVM to the sum of |terms| (the int32 sum is rounded
    # to float18's 11 significant bits before the scale, numerics.md)
    bound = tol if int8 else tol * np.maximum(1.0, np.abs(expect) if mag is None else mag)
    if (err > bound).any():
        return fail(f"{name}: max error {err.max():.4g} (allowed {tol}{'' if int8 else ' relative'})")
    print(f"ok   {name}: max error {err.max():.3g}")


Z8 = np.array(0, np.int8)
F = T.FLOAT


def qdq_in(x="x", s="sx"):
    return [h.make_node("QuantizeLinear", [x, s, "z"], [x + "q"]), h.make_node("DequantizeLinear", [x + "q", s, "z"], [x + "d"])]


def op_tests():
    # QDQ Gemm, per-tensor weight scale, float bias, K and N not multiples of 64
    x = rng.uniform(-2, 2, (5, 40)).astype(np.float32)
    w = rng.integers(-127, 128, (40, 21)).astype(np.int8)
    b = rng.normal(size=21).astype(np.float32)
    nodes = qdq_in() + [h.make_node("DequantizeLinear", ["w", "sw", "z"], ["wd"]), h.make_node("Gemm", ["xd", "wd", "b"], ["y"], name="g")]
    p = model("gemm_qdq", nodes, [("x", F, [5, 40])], [("y", F, [5, 21])],
              {"sx": np.float32(0.02), "z": Z8, "w": w, "sw": np.float32(0.01), "b": b})
    xdq, wdq = dequantize(quantize(x, 0.02), 0.02), dequantize(w, 0.01)
    check("Gemm QDQ per-tensor", p, {"x": x}, xdq @ wdq + b, 2 ** -8, mag=np.abs(xdq) @ np.abs(wdq) + np.abs(b))

    # QDQ MatMul, per-channel weights, Add + Relu + QuantizeLinear (int8 output, zero point 3)
    x = rng.uniform(-1, 1, (4, 64)).astype(np.float32)
    w = rng.integers(-127, 128, (64, 70)).astype(np.int8)
    sw = rng.uniform(0.001, 0.01, 70).astype(np.float32)
    b = rng.normal(size=70).astype(np.float32)
    nodes = qdq_in() + [h.make_node("DequantizeLinear", ["w", "sw", "zw"], ["wd"], axis=1), h.make_node("MatMul", ["xd", "wd"], ["m"]),
                        h.make_node("Add", ["m", "b"], ["a"]), h.make_node("Relu", ["a"], ["r"]),
                        h.make_node("QuantizeLinear", ["r", "sy", "zy"], ["y"])]
    p = model("matmul_perchannel", nodes, [("x", F, [4, 64])], [("y", T.INT8, [4, 70])],
              {"sx": np.float32(1 / 100), "z": Z8, "w": w, "sw": sw, "zw": np.zeros(70, np.int8), "b": b,
               "sy": np.float32(0.05), "zy": np.array(3, np.int8)})
    e = quantize(np.maximum(dequantize(quantize(x, 0.01), 0.01) @ (w * sw.astype(np.float64)) + b, 0), 0.05, 3)
    check("MatMul QDQ per-channel + Add + Relu + Q", p, {"x": x}, e, 1, int8=True)

    # QLinearMatMul int8, activation zero point -5
    a = rng.integers(-128, 128, (3, 64)).astype(np.int8)
    bq = rng.integers(-127, 128, (64, 16)).astype(np.int8)
    nodes = [h.make_node("QLinearMatMul", ["a", "sa", "za", "b", "sb", "zb", "sy", "zy"], ["y"], name="qmm")]
    p = model("qlinearmatmul", nodes, [("a", T.INT8, [3, 64])], [("y", T.INT8, [3, 16])],
              {"sa": np.float32(0.1), "za": np.array(-5, np.int8), "b": bq, "sb": np.float32(0.02), "zb": Z8,
               "sy": np.float32(0.5), "zy": np.array(2, np.int8)})
    e = quantize(((a.astype(np.float64) + 5) @ bq) * 0.1 * 0.02, 0.5, 2)
    check("QLinearMatMul", p, {"a": a}, e, 1, int8=True)

    # QLinearConv int8, zero point 4 (no padding), stride 2, int32 bias
    xi = rng.integers(-128, 128, (1, 3, 9, 9)).astype(np.int8)
    wq = rng.integers(-127, 128, (8, 3, 3, 3)).astype(np.int8)
    bi = rng.integers(-500, 500, 8).astype(np.int32)
    nodes = [h.make_node("QLinearConv", ["x", "sx", "zx", "w", "sw", "zw", "sy", "zy", "b"], ["y"], name="qconv", strides=[2, 2])]
    p = model("qlinearconv", nodes, [("x", T.INT8, [1, 3, 9, 9])], [("y", T.INT8, [1, 8, 4, 4])],
              {"sx": np.float32(0.05), "zx": np.array(4, np.int8), "w": wq, "sw": np.float32(0.01), "zw": Z8,
               "sy": np.float32(0.2), "zy": np.array(-1, np.int8), "b": bi})
    e = quantize((conv2d(xi.astype(np.float64) - 4, wq.astype(np.float64), 2) + bi[None, :, None, None]) * 0.05 * 0.01, 0.2, -1)
    check("QLinearConv", p, {"x": xi}, e, 1, int8=True)

    # QDQ Conv pad 1 + Relu, per-channel weights, float output (NCHW out)
    x = rng.uniform(0, 1, (1, 2, 6, 6)).astype(np.float32)
    wq = rng.integers(-127, 128, (5, 2, 3, 3)).astype(np.int8)
    sw = rng.uniform(0.002, 0.02, 5).astype(np.float32)
    nodes = qdq_in() + [h.make_node("DequantizeLinear", ["w", "sw", "zw"], ["wd"], axis=0),
                        h.make_node("Conv", ["xd", "wd"], ["c"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]), h.make_node("Relu", ["c"], ["y"])]
    p = model("conv_qdq", nodes, [("x", F, [1, 2, 6, 6])], [("y", F, [1, 5, 6, 6])],
              {"sx": np.float32(1 / 127), "z": Z8, "w": wq, "sw": sw, "zw": np.zeros(5, np.int8)})
    xdq, wdq = dequantize(quantize(x, 1 / 127), 1 / 127), wq * sw[:, None, None, None].astype(np.float64)
    e = np.maximum(conv2d(xdq, wdq, 1, 1), 0)
    check("Conv QDQ pad 1 + Relu, per-channel", p, {"x": x}, e, 2 ** -8, mag=conv2d(np.abs(xdq), np.abs(wdq), 1, 1))

    # MaxPool / AveragePool / GlobalAveragePool over QDQ, batch 2
    x = rng.uniform(-1, 1, (2, 3, 6, 6)).astype(np.float32)
    xd = dequantize(quantize(x, 0.01), 0.01)
    for op, attrs, f, shape in [("MaxPool", {"kernel_shape": [2, 2], "strides": [2, 2]}, lambda v: pool(v, 2, 2, np.max), [2, 3, 3, 3]),
                                ("AveragePool", {"kernel_shape": [3, 3], "strides": [3, 3]}, lambda v: pool(v, 3, 3, np.mean), [2, 3, 2, 2]),
                                ("GlobalAveragePool", {}, lambda v: v.mean(axis=(2, 3), keepdims=True), [2, 3, 1, 1])]:
        nodes = qdq_in() + [h.make_node(op, ["xd"], ["p"], **attrs), h.make_node("QuantizeLinear", ["p", "sx", "z"], ["y"])]
        p = model(op.lower(), nodes, [("x", F, [2, 3, 6, 6])], [("y", T.INT8, shape)], {"sx": np.float32(0.01), "z": Z8})
        check(op + " QDQ", p, {"x": x}, quantize(f(xd), 0.01), 1, int8=True)

    # float ops
    x = rng.normal(size=(3, 4, 5)).astype(np.float32)
    y2 = rng.normal(size=(3, 4, 5)).astype(np.float32)
    for name, node, inits, e in [
        ("Relu", h.make_node("Relu", ["x"], ["y"]), {}, np.maximum(x, 0)),
        ("Clip(0)", h.make_node("Clip", ["x", "lo"], ["y"]), {"lo": np.float32(0)}, np.maximum(x, 0)),
        ("Add per-channel", h.make_node("Add", ["x", "k"], ["y"]), {"k": np.arange(5, dtype=np.float32)}, x + np.arange(5)),
        ("Mul scalar", h.make_node("Mul", ["x", "k"], ["y"]), {"k": np.float32(1.5)}, x * 1.5),
        ("Sub scalar", h.make_node("Sub", ["x", "k"], ["y"]), {"k": np.float32(0.25)}, x - 0.25),
        ("Identity", h.make_node("Identity", ["x"], ["y"]), {}, x),
        ("Softmax", h.make_node("Softmax", ["x"], ["y"], axis=-1), {}, np.exp(x) / np.exp(x).sum(-1, keepdims=True)),
        ("Transpose (0,1 swapped)", h.make_node("Transpose", ["x"], ["y"], perm=[1, 0, 2]), {}, x.transpose(1, 0, 2)),
    ]:
        shape = list(e.shape)
        p = model("f_" + name.split()[0].lower().replace("(", "").replace(")", ""), [node], [("x", F, [3, 4, 5])], [("y", F, shape)], inits)
        check(name, p, {"x": x}, e, 2 ** -8 if name != "Softmax" else 2e-3)
    p = model("f_add2", [h.make_node("Add", ["x", "x2"], ["y"])], [("x", F, [3, 4, 5]), ("x2", F, [3, 4, 5])], [("y", F, [3, 4, 5])], {})
    check("Add two tensors", p, {"x": x, "x2": y2}, x + y2.astype(np.float64), 2 ** -8)
    xl = rng.normal(size=(2, 64)).astype(np.float32)
    g, bb = rng.normal(size=64).astype(np.float32), rng.normal(size=64).astype(np.float32)
    p = model("f_layernorm", [h.make_node("LayerNormalization", ["x", "g", "b"], ["y"], axis=-1, epsilon=1e-5)],
              [("x", F, [2, 64])], [("y", F, [2, 64])], {"g": g, "b": bb}, opset=17)
    mu, var = xl.mean(-1, keepdims=True), xl.var(-1, keepdims=True)
    check("LayerNormalization", p, {"x": xl}, (xl - mu) / np.sqrt(var + 1e-5) * g + bb, 2e-2)
    xr = rng.normal(size=(2, 3, 64)).astype(np.float32)
    p = model("f_reshape", [h.make_node("Reshape", ["x", "s"], ["y"])], [("x", F, [2, 3, 64])], [("y", F, [6, 64])], {"s": np.array([6, 64], np.int64)})
    check("Reshape", p, {"x": xr}, xr.reshape(6, 64), 2 ** -8)
    xc = rng.normal(size=(2, 3, 64)).astype(np.float32)
    p = model("f_concat", [h.make_node("Concat", ["x", "x2"], ["y"], axis=1)], [("x", F, [2, 3, 64]), ("x2", F, [2, 3, 64])], [("y", F, [2, 6, 64])], {})
    check("Concat", p, {"x": xc, "x2": xr}, np.concatenate([xc, xr], 1), 2 ** -8)
    # Flatten of an NCHW image into a Gemm (the feature order)
    x = rng.uniform(0, 1, (2, 3, 4, 4)).astype(np.float32)
    w = rng.integers(-127, 128, (48, 7)).astype(np.int8)
    nodes = qdq_in() + [h.make_node("Flatten", ["xd"], ["f"]), h.make_node("DequantizeLinear", ["w", "sw", "z"], ["wd"]), h.make_node("Gemm", ["f", "wd"], ["y"])]
    p = model("flatten_gemm", nodes, [("x", F, [2, 3, 4, 4])], [("y", F, [2, 7])], {"sx": np.float32(1 / 127), "z": Z8, "w": w, "sw": np.float32(0.01)})
    xdq, wdq = dequantize(quantize(x, 1 / 127), 1 / 127).reshape(2, 48), dequantize(w, 0.01)
    check("Flatten (NCHW) + Gemm", p, {"x": x}, xdq @ wdq, 2 ** -8, mag=np.abs(xdq) @ np.abs(wdq))


def refusal(name, nodes, inputs, outputs, inits, expect, opset=13):
    counts["refusals"] += 1
    p = model("refuse_" + name, nodes, inputs, outputs, inits, opset)
    r = compile_(p)
    msg = r.stderr
    if r.returncode != 1 or any(e not in msg for e in expect):
        return fail(f"refusal {name}: exit {r.returncode}, message {msg.strip()!r}, expected {expect}")
    print(f"ok   refusal {name}: {msg.strip().splitlines()[0]}")


def refusal_tests():
    w8 = rng.integers(-127, 128, (64, 8)).astype(np.int8)
    x = [("x", F, [2, 64])]
    y = [("y", F, [2, 8])]
    refusal("unknown_op", [h.make_node("Tanh", ["x"], ["y"], name="t1")], x, [("y", F, [2, 64])], {},
            ["node 't1' (Tanh)", "the op type is not supported", "supported: "])
    refusal("float_weight", [h.make_node("MatMul", ["x", "w"], ["y"], name="mm")], x, y, {"w": np.ones((64, 8), np.float32)},
            ["node 'mm' (MatMul)", "input 0 is a float tensor", "supported:"])
    refusal("float_weight_qdq_in", qdq_in() + [h.make_node("MatMul", ["xd", "w"], ["y"], name="mm")], x, y,
            {"sx": np.float32(0.1), "z": Z8, "w": np.ones((64, 8), np.float32)}, ["node 'mm' (MatMul)", "is float", "supported:"])
    refusal("weight_zero_point", qdq_in() + [h.make_node("DequantizeLinear", ["w", "sw", "zw"], ["wd"]), h.make_node("MatMul", ["xd", "wd"], ["y"], name="mm")],
            x, y, {"sx": np.float32(0.1), "z": Z8, "w": w8, "sw": np.float32(0.1), "zw": np.array(3, np.int8)},
            ["node 'mm' (MatMul)", "weight zero point is 3", "supported: symmetric"])
    refusal("transA", qdq_in() + [h.make_node("DequantizeLinear", ["w", "sw", "z"], ["wd"]), h.make_node("Gemm", ["xd", "wd"], ["y"], name="g", transA=1)],
            x, y, {"sx": np.float32(0.1), "z": Z8, "w": w8, "sw": np.float32(0.1)}, ["node 'g' (Gemm)", "transA = 1", "supported: transA = 0"])
    img = [("x", F, [1, 4, 6, 6])]
    wc = rng.integers(-127, 128, (4, 2, 3, 3)).astype(np.int8)
    refusal("group", qdq_in() + [h.make_node("DequantizeLinear", ["w", "sw", "z"], ["wd"]), h.make_node("Conv", ["xd", "wd"], ["y"], name="c", group=2, kernel_shape=[3, 3])],
            img, [("y", F, [1, 4, 4, 4])], {"sx": np.float32(0.1), "z": Z8, "w": wc, "sw": np.float32(0.1)}, ["node 'c' (Conv)", "'group' = 2", "supported: group = 1"])
    wc1 = rng.integers(-127, 128, (4, 4, 3, 3)).astype(np.int8)
    refusal("asym_pads", qdq_in() + [h.make_node("DequantizeLinear", ["w", "sw", "z"], ["wd"]), h.make_node("Conv", ["xd", "wd"], ["y"], name="c", pads=[1, 0, 0, 1])],
            img, [("y", F, [1, 4, 4, 4])], {"sx": np.float32(0.1), "z": Z8, "w": wc1, "sw": np.float32(0.1)}, ["node 'c' (Conv)", "asymmetric pads", "supported:"])
    refusal("pad_zero_point", [h.make_node("QuantizeLinear", ["x", "sx", "zx"], ["xq"]), h.make_node("DequantizeLinear", ["xq", "sx", "zx"], ["xd"]),
                               h.make_node("DequantizeLinear", ["w", "sw", "z"], ["wd"]), h.make_node("Conv", ["xd", "wd"], ["y"], name="c", pads=[1, 1, 1, 1])],
            img, [("y", F, [1, 4, 6, 6])], {"sx": np.float32(0.1), "zx": np.array(5, np.int8), "z": Z8, "w": wc1, "sw": np.float32(0.1)},
            ["node 'c' (Conv)", "activation zero point 5", "supported: zero point 0"])
    refusal("maxpool_pads", qdq_in() + [h.make_node("MaxPool", ["xd"], ["y"], name="mp", kernel_shape=[2, 2], pads=[1, 1, 1, 1])],
            img, [("y", F, [1, 4, 4, 4])], {"sx": np.float32(0.1), "z": Z8}, ["node 'mp' (MaxPool)", "pads", "supported: pads 0"])
    refusal("maxpool_float", [h.make_node("MaxPool", ["x"], ["y"], name="mp", kernel_shape=[2, 2])], img, [("y", F, [1, 4, 5, 5])], {},
            ["node 'mp' (MaxPool)", "the DWPU pools int8", "supported:"])
    refusal("unknown_attr", [h.make_node("Relu", ["x"], ["y"], name="r", foo=1)], x, [("y", F, [2, 64])], {},
            ["node 'r' (Relu)", "attribute 'foo' is not supported"])
    refusal("clip6", [h.make_node("Clip", ["x", "lo", "hi"], ["y"], name="cl")], x, [("y", F, [2, 64])], {"lo": np.float32(0), "hi": np.float32(6)},
            ["node 'cl' (Clip)", "supported: Clip with min 0 and no max"])
    refusal("softmax_axis", [h.make_node("Softmax", ["x"], ["y"], name="sm", axis=0)], x, [("y", F, [2, 64])], {},
            ["node 'sm' (Softmax)", "axis 0", "supported: the last axis"])
    refusal("layernorm_padded", [h.make_node("LayerNormalization", ["x", "g"], ["y"], name="ln")], [("x", F, [2, 10])], [("y", F, [2, 10])],
            {"g": np.ones(10, np.float32)}, ["node 'ln' (LayerNormalization)", "padding would enter the mean"], opset=17)
    refusal("transpose_last", [h.make_node("Transpose", ["x"], ["y"], name="tr", perm=[1, 0])], x, [("y", F, [64, 2])], {},
            ["node 'tr' (Transpose)", "moves the packed axis", "supported:"])
    refusal("reshape_last", [h.make_node("Reshape", ["x", "s"], ["y"], name="rs")], x, [("y", F, [128])], {"s": np.array([128], np.int64)},
            ["node 'rs' (Reshape)", "new last extent", "supported:"])
    refusal("matmulinteger", [h.make_node("MatMulInteger", ["a", "b"], ["y"], name="mi")], [("a", T.INT8, [2, 64])], [("y", T.INT32, [2, 8])], {"b": w8},
            ["node 'mi' (MatMulInteger)", "int32 result", "supported:"])
    refusal("per_axis_activation", [h.make_node("QuantizeLinear", ["x", "s", "zz"], ["y"], name="q", axis=1)], x, [("y", T.INT8, [2, 64])],
            {"s": np.full(64, 0.1, np.float32), "zz": np.zeros(64, np.int8)}, ["node 'q' (QuantizeLinear)", "per-axis QuantizeLinear of a computed tensor", "supported: per-tensor"])
    refusal("uint8_input", [h.make_node("Identity", ["a"], ["y"])], [("a", T.UINT8, [2, 64])], [("y", T.UINT8, [2, 64])], {},
            ["graph input 'a' is uint8", "supported: float32 or int8 inputs"])
    refusal("symbolic", [h.make_node("Relu", ["x"], ["y"])], [("x", F, ["N", 64])], [("y", F, ["N", 64])], {}, ["symbolic", "supported: fixed"])
    refusal("domain", [h.make_node("Gelu", ["x"], ["y"], name="ge", domain="com.microsoft")], x, [("y", F, [2, 64])], {},
            ["node 'ge' (Gelu)", "domain 'com.microsoft'", "supported: the default ONNX domain"])


def corrupt_tests():
    good = open(os.path.join(WORK, "gemm_qdq.onnx"), "rb").read()
    cases = {"truncated": good[: len(good) // 2], "empty": b"", "garbage": bytes(rng.integers(0, 256, 300, dtype=np.uint8)),
             "yaml_text": b"name: mlp\ninputs: []\n"}
    for name, data in cases.items():
        counts["corrupt"] += 1
        p = os.path.join(WORK, "corrupt_" + name + ".onnx")
        open(p, "wb").write(data)
        r = compile_(p)
        if r.returncode != 1 or p not in r.stderr or not ("not an ONNX model" in r.stderr or "no graph" in r.stderr or "no opset" in r.stderr):
            fail(f"corrupt {name}: exit {r.returncode} {r.stderr.strip()!r}")
        else:
            print(f"ok   corrupt {name}: {r.stderr.strip()}")


# The libonnx-testdata node tests the importer runs (docs/onnx.md says why not the others).
TESTDATA_RUN = ["test_relu", "test_identity", "test_add", "test_add_bcast", "test_sub", "test_mul", "test_softmax_example",
                "test_softmax_axis_2", "test_softmax_default_axis", "test_transpose_all_permutations_0"]
TESTDATA_REFUSED = ["test_qlinearmatmul_2D", "test_qlinearconv", "test_matmulinteger", "test_maxpool_2d_default", "test_gemm_default_no_bias",
                    "test_softmax_axis_0", "test_layer_normalization_2d_axis0", "test_globalaveragepool", "test_conv_with_strides_padding"]


def testdata_tests():
    for t in TESTDATA_RUN + TESTDATA_REFUSED:
        d = os.path.join(TESTDATA, t)
        if not os.path.isdir(d):
            fail(f"testdata {t}: not found in {TESTDATA}")
            continue
        m = onnx.load(os.path.join(d, "model.onnx"))
        ds = os.path.join(d, "test_data_set_0")
        ins = [onnx.numpy_helper.to_array(onnx.load_tensor(os.path.join(ds, f"input_{i}.pb"))) for i in range(len(m.graph.input))]
        outs = [onnx.numpy_helper.to_array(onnx.load_tensor(os.path.join(ds, f"output_{i}.pb"))) for i in range(len(m.graph.output))]
        path = os.path.join(WORK, t + ".onnx")
        onnx.save(m, path)
        r = compile_(path)
        if t in TESTDATA_REFUSED:
            counts["testdata_refused"] += 1
            if r.returncode != 1 or "supported" not in r.stderr:
                fail(f"testdata {t}: expected a refusal, got exit {r.returncode} {r.stderr.strip()!r}")
            else:
                print(f"ok   testdata {t} refused: {r.stderr.strip().splitlines()[0]}")
            continue
        counts["testdata_run"] += 1
        if r.returncode != 0:
            fail(f"testdata {t}: {r.stderr.strip()}")
            continue
        feeds = {m.graph.input[i].name: ins[i] for i in range(len(ins))}
        try:
            od = run(path, feeds)
        except RuntimeError as e:
            fail(f"testdata {t}: {e}")
            continue
        got = np.load(os.path.join(od, m.graph.output[0].name + ".npy"))
        tol = 2e-3 if "softmax" in t else 2 ** -8
        err = np.abs(got - outs[0]) / np.maximum(1, np.abs(outs[0]))
        if got.shape != outs[0].shape or err.max() > tol:
            fail(f"testdata {t}: relative error {err.max():.3g} (shape {got.shape} vs {outs[0].shape})")
        else:
            print(f"ok   testdata {t}: relative error {err.max():.3g}")


op_tests()
refusal_tests()
corrupt_tests()
if TESTDATA:
    testdata_tests()
print("onnx tests:", counts, f"{len(failures)} failures")
sys.exit(1 if failures else 0)
