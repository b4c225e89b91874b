#!/usr/bin/python3
"""The handwritten digits (sklearn.datasets.load_digits, 1797 8x8 images) on axcore.

Trains an MLP (64-64-10, scikit-learn) and a small CNN (conv 3x3 1->16 pad 1, ReLU, max pool 2x2,
dense 256->10; NumPy, Adam) with fixed seeds, quantizes both post-training to int8 (activation
scales calibrated on the training split, symmetric; weights per channel for the MLP and the CNN's
dense layer, per tensor for its convolution), exports QDQ ONNX with onnx.helper, evaluates the
held-out split in float, in NumPy int8 (ONNX QDQ semantics) and on axcore's backends through
`axc compile MODEL.onnx` and `axrun` (batched), and prints the table of docs/onnx.md.

  digits.py --axc BUILD/compiler/axc --axrun BUILD/runtime/tools/axrun --out DIR
            [--backends ref,tlm,rtl] [--limit N] [--batch B] [--check]
--check exits 1 unless every device backend predicts what the host int8 model predicts, image
by image, and (on the whole split, no --limit) reaches 95%.
"""
import argparse
import os
import re
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from sklearn.neural_network import MLPClassifier

S_IN = 0.125  # input scale: pixels 0..16 -> 0..127 (16 saturates at 127), exact in float18


def data():
    d = load_digits()
    x = d.data.astype(np.float32)
    return train_test_split(x, d.target, test_size=0.2, random_state=0, stratify=d.target)


# ---- training ---------------------------------------------------------------------------------
def train_mlp(xtr, ytr):
    m = MLPClassifier(hidden_layer_sizes=(64,), random_state=0, max_iter=400, learning_rate_init=1e-3)
    m.fit(xtr / 16.0, ytr)
    # the model takes raw pixels: fold the 1/16 into the first layer
    return {"w1": m.coefs_[0] / 16.0, "b1": m.intercepts_[0], "w2": m.coefs_[1], "b2": m.intercepts_[1]}


def im2col(x):  # (N, 8, 8) -> (N, 64, 9), pad 1
    p = np.pad(x, ((0, 0), (1, 1), (1, 1)))
    return np.stack([p[:, i:i + 8, j:j + 8] for i in range(3) for j in range(3)], -1).reshape(len(x), 64, 9)


def cnn_forward(p, x):
    cols = im2col(x.reshape(-1, 8, 8))
    c = cols @ p["wc"].reshape(16, 9).T + p["bc"]  # (N, 64, 16)
    r = np.maximum(c, 0).reshape(-1, 4, 2, 4, 2, 16)
    pooled = r.max(axis=(2, 4))  # (N, 4, 4, 16)
    flat = pooled.transpose(0, 3, 1, 2).reshape(len(x), 256)  # ONNX's NCHW flatten order
    return cols, c, r, pooled, flat, flat @ p["wf"] + p["bf"]


def train_cnn(xtr, ytr, epochs=40, seed=0):
    rng = np.random.default_rng(seed)
    p = {"wc": rng.normal(0, 0.3, (16, 1, 3, 3)), "bc": np.zeros(16), "wf": rng.normal(0, 0.06, (256, 10)),
         "bf": np.zeros(10)}
    m = {k: np.zeros_like(v) for k, v in p.items()}
    v = {k: np.zeros_like(v) for k, v in p.items()}
    t = 0
    for _ in range(epochs):
        order = rng.permutation(len(xtr))
        for s in range(0, len(order), 64):
            idx = order[s:s + 64]
            x, y = xtr[idx], ytr[idx]
            cols, c, r, pooled, flat, logits = cnn_forward(p, x / 16.0)
            e = np.exp(logits - logits.max(1, keepdims=True))
            g = e / e.sum(1, keepdims=True)
            g[np.arange(len(y)), y] -= 1
            g /= len(y)
            grads = {"wf": flat.T @ g, "bf": g.sum(0)}
            gflat = (g @ p["wf"].T).reshape(-1, 16, 4, 4).transpose(0, 2, 3, 1)  # (N, 4, 4, 16)
            mask = r == pooled[:, :, None, :, None, :]
            gr = mask * gflat[:, :, None, :, None, :]
            gc = gr.reshape(-1, 64, 16) * (c > 0)
            grads["wc"] = np.einsum("nkc,nkt->ct", gc, cols).reshape(16, 1, 3, 3)
            grads["bc"] = gc.sum((0, 1))
            t += 1
            for k in p:
                m[k] = 0.9 * m[k] + 0.1 * grads[k]
                v[k] = 0.999 * v[k] + 0.001 * grads[k] ** 2
                p[k] -= 0.01 * (m[k] / (1 - 0.9 ** t)) / (np.sqrt(v[k] / (1 - 0.999 ** t)) + 1e-8)
    # raw pixels in: fold the 1/16 into the convolution
    return {"wc": p["wc"] / 16.0, "bc": p["bc"], "wf": p["wf"], "bf": p["bf"]}


# ---- quantization -----------------------------------------------------------------------------
def qweight(w, axis):  # symmetric int8; axis None = per tensor
    a = np.abs(w).max() if axis is None else np.abs(w).max(axis=tuple(i for i in range(w.ndim) if i != axis))
    s = np.maximum(a, 1e-8) / 127.0
    shape = [1] * w.ndim
    if axis is not None:
        shape[axis] = -1
    return np.clip(np.rint(w / s.reshape(shape)), -127, 127).astype(np.int8), s.astype(np.float32)


def q(x, s):
    return np.clip(np.rint(x / s), -128, 127)


def quantize_mlp(p, xtr):
    w1q, s1w = qweight(p["w1"], 1)
    w2q, s2w = qweight(p["w2"], 1)
    hidden = np.maximum((q(xtr, S_IN) * S_IN) @ (w1q * s1w) + p["b1"], 0)
    s_h = np.float32(hidden.max() / 127.0)
    return {"w1q": w1q, "s1w": s1w, "b1": p["b1"].astype(np.float32), "s_h": s_h, "w2q": w2q, "s2w": s2w,
            "b2": p["b2"].astype(np.float32)}


def conv_int(xq, wq):  # xq (N, 8, 8) ints, wq (16, 1, 3, 3) -> (N, 16, 8, 8) int sums
    cols = im2col(xq)
    return (cols @ wq.reshape(16, 9).T.astype(np.float64)).reshape(-1, 8, 8, 16).transpose(0, 3, 1, 2)


def quantize_cnn(p, xtr):
    wcq, s_wc = qweight(p["wc"], None)
    wfq, s_wf = qweight(p["wf"], 1)
    s_c = S_IN * float(s_wc)
    bcq = np.rint(p["bc"] / s_c).astype(np.int32)  # int32 bias at the accumulator's scale
    conv = np.maximum(conv_int(q(xtr.reshape(-1, 8, 8), S_IN), wcq) * s_c + bcq[None, :, None, None] * s_c, 0)
    s_a = np.float32(conv.max() / 127.0)
    return {"wcq": wcq, "s_wc": np.float32(s_wc), "bcq": bcq, "s_a": s_a, "wfq": wfq, "s_wf": s_wf,
            "bf": p["bf"].astype(np.float32)}


# ---- host int8 (ONNX QDQ semantics, exact integer sums, float64 scales) -----------------------------
def host_mlp(m, x):
    h1 = np.maximum(q(x, S_IN) @ m["w1q"].astype(np.float64) * (S_IN * m["s1w"].astype(np.float64)) + m["b1"], 0)
    h1q = q(h1, m["s_h"])
    return h1q @ m["w2q"].astype(np.float64) * (float(m["s_h"]) * m["s2w"].astype(np.float64)) + m["b2"]


def host_cnn(m, x):
    s_c = S_IN * float(m["s_wc"])
    acc = conv_int(q(x.reshape(-1, 8, 8), S_IN), m["wcq"]) + m["bcq"][None, :, None, None]
    a = q(np.maximum(acc * s_c, 0), m["s_a"])  # (N, 16, 8, 8)
    pooled = a.reshape(-1, 16, 4, 2, 4, 2).max(axis=(3, 5)).reshape(len(x), 256)
    return pooled @ m["wfq"].astype(np.float64) * (float(m["s_a"]) * m["s_wf"].astype(np.float64)) + m["bf"]


# ---- ONNX export (QDQ, onnx.helper) -------------------------------------------------------------
def init(name, v):
    return nh.from_array(np.asarray(v), name)


def export_mlp(m, n, path):
    z = np.array(0, np.int8)
    nodes = [
        h.make_node("QuantizeLinear", ["x", "s_in", "z"], ["xq"], name="q_in"),
        h.make_node("DequantizeLinear", ["xq", "s_in", "z"], ["xd"], name="dq_in"),
        h.make_node("DequantizeLinear", ["w1q", "s1w", "z1w"], ["w1"], name="dq_w1", axis=1),
        h.make_node("MatMul", ["xd", "w1"], ["mm1"], name="fc1"),
        h.make_node("Add", ["mm1", "b1"], ["a1"], name="fc1_bias"),
        h.make_node("Relu", ["a1"], ["r1"], name="relu1"),
        h.make_node("QuantizeLinear", ["r1", "s_h", "z"], ["hq"], name="q_h"),
        h.make_node("DequantizeLinear", ["hq", "s_h", "z"], ["hd"], name="dq_h"),
        h.make_node("DequantizeLinear", ["w2q", "s2w", "z2w"], ["w2"], name="dq_w2", axis=1),
        h.make_node("Gemm", ["hd", "w2", "b2"], ["logits"], name="fc2"),
    ]
    inits = [init("s_in", np.float32(S_IN)), init("z", z), init("w1q", m["w1q"]), init("s1w", m["s1w"]),
             init("z1w", np.zeros(64, np.int8)), init("b1", m["b1"]), init("s_h", np.float32(m["s_h"])),
             init("w2q", m["w2q"]), init("s2w", m["s2w"]), init("z2w", np.zeros(10, np.int8)), init("b2", m["b2"])]
    g = h.make_graph(nodes, "digits_mlp", [h.make_tensor_value_info("x", T.FLOAT, [n, 64])],
                     [h.make_tensor_value_info("logits", T.FLOAT, [n, 10])], inits)
    save(g, path)


def export_cnn(m, n, path):
    z = np.array(0, np.int8)
    nodes = [
        h.make_node("QuantizeLinear", ["image", "s_in", "z"], ["xq"], name="q_in"),
        h.make_node("DequantizeLinear", ["xq", "s_in", "z"], ["xd"], name="dq_in"),
        h.make_node("DequantizeLinear", ["wcq", "s_wc", "z"], ["wc"], name="dq_wc"),
        h.make_node("DequantizeLinear", ["bcq", "s_bc"], ["bc"], name="dq_bc"),
        h.make_node("Conv", ["xd", "wc", "bc"], ["c1"], name="conv1", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        h.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        h.make_node("QuantizeLinear", ["r1", "s_a", "z"], ["aq"], name="q_a"),
        h.make_node("DequantizeLinear", ["aq", "s_a", "z"], ["ad"], name="dq_a"),
        h.make_node("MaxPool", ["ad"], ["p1"], name="pool1", kernel_shape=[2, 2], strides=[2, 2]),
        h.make_node("QuantizeLinear", ["p1", "s_a", "z"], ["pq"], name="q_p"),
        h.make_node("DequantizeLinear", ["pq", "s_a", "z"], ["pd"], name="dq_p"),
        h.make_node("Flatten", ["pd"], ["flat"], name="flatten", axis=1),
        h.make_node("DequantizeLinear", ["wfq", "s_wf", "z_wf"], ["wf"], name="dq_wf", axis=1),
        h.make_node("Gemm", ["flat", "wf", "bf"], ["logits"], name="fc"),
    ]
    inits = [init("s_in", np.float32(S_IN)), init("z", z), init("wcq", m["wcq"]), init("s_wc", m["s_wc"]),
             init("bcq", m["bcq"]), init("s_bc", np.float32(S_IN * m["s_wc"])), init("s_a", np.float32(m["s_a"])),
             init("wfq", m["wfq"]), init("s_wf", m["s_wf"]), init("z_wf", np.zeros(10, np.int8)), init("bf", m["bf"])]
    g = h.make_graph(nodes, "digits_cnn", [h.make_tensor_value_info("image", T.FLOAT, [n, 1, 8, 8])],
                     [h.make_tensor_value_info("logits", T.FLOAT, [n, 10])], inits)
    save(g, path)


def save(g, path):
    model = h.make_model(g, opset_imports=[h.make_opsetid("", 13)], producer_name="examples/digits")
    onnx.checker.check_model(model)
    onnx.save(model, path)


# ---- device ---------------------------------------------------------------------------------------
_COMPILED: set = set()


def run_device(args, kind, export, m, x, backend):
    """Predictions, cycles, MVM busy share (cycle-weighted over the batches)."""
    logits, cycles, busy = [], 0, 0.0
    batch = args.batch if kind == "mlp" else args.cnn_batch
    for s in range(0, len(x), batch):
        xb = x[s:s + batch]
        stem = os.path.join(args.out, f"{kind}_b{len(xb)}")
        if stem not in _COMPILED:  # once per run: a bundle left by an earlier run may predate this axc
            _COMPILED.add(stem)
            export(m, len(xb), stem + ".onnx")
            subprocess.run([args.axc, "compile", stem + ".onnx", "-o", stem + ".axb"], check=True, stdout=subprocess.DEVNULL)
        inp = os.path.join(args.out, f"{kind}_in.npy")
        name = "x" if kind == "mlp" else "image"
        np.save(inp, xb if kind == "mlp" else xb.reshape(-1, 1, 8, 8))
        od = os.path.join(args.out, f"{kind}_{backend}")
        r = subprocess.run([args.axrun, stem + ".axb", "--backend", backend, "--input", f"{name}={inp}", "--output-dir", od],
                           capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"axrun {backend} failed:\n{r.stderr}{r.stdout}")
        logits.append(np.load(os.path.join(od, "logits.npy")))
        out = r.stdout + r.stderr
        c = re.search(r"cycles: (\d+)", out)
        b = re.search(r"core0\.mvm\s+busy\s+([\d.]+)%", out)
        if c:
            cycles += int(c.group(1))
            busy += (float(b.group(1)) if b else 0.0) * int(c.group(1))
    return np.concatenate(logits).argmax(1), cycles, (busy / cycles if cycles else None)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--axc", required=True)
    ap.add_argument("--axrun", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--backends", default="ref,tlm,rtl")
    ap.add_argument("--limit", type=int, default=0, help="the first N test images (0: all 360)")
    ap.add_argument("--batch", type=int, default=40)
    ap.add_argument("--cnn-batch", type=int, default=8, help="CNN images per bundle (its per-image results share L1)")
    ap.add_argument("--models", default="mlp,cnn")
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    xtr, xte, ytr, yte = data()
    if args.limit:
        xte, yte = xte[:args.limit], yte[:args.limit]
    ok = True
    rows = []
    for kind in args.models.split(","):
        if kind == "mlp":
            p = train_mlp(xtr, ytr)
            fl = np.maximum(xte @ p["w1"] + p["b1"], 0) @ p["w2"] + p["b2"]
            m = quantize_mlp(p, xtr)
            host, export = host_mlp(m, xte), export_mlp
        else:
            p = train_cnn(xtr, ytr)
            fl = cnn_forward(p, xte)[-1]
            m = quantize_cnn(p, xtr)
            host, export = host_cnn(m, xte), export_cnn
        hp = host.argmax(1)
        row = [kind, (fl.argmax(1) == yte).mean(), (hp == yte).mean()]
        for be in args.backends.split(","):
            pred, cyc, busy = run_device(args, kind, export, m, xte, be)
            acc = (pred == yte).mean()
            same = int((pred == hp).sum())
            row.append((be, acc, same, cyc / len(xte) if cyc else None, busy))
            if (acc < 0.95 and not args.limit) or same != len(xte):  # the 95% bar is for the whole split
                ok = False
        rows.append(row)
    print(f"digits: {len(yte)} held-out images (sklearn load_digits, stratified 80/20 split, seed 0), batch {args.batch} (MLP) / {args.cnn_batch} (CNN)")
    print(f"{'model':5} {'float':>7} {'int8 host':>9}  backend  accuracy  same as host  cycles/image  MVM busy")
    for r in rows:
        for i, (be, acc, same, cpi, busy) in enumerate(r[3:]):
            head = f"{r[0]:5} {r[1]:7.2%} {r[2]:9.2%}" if i == 0 else " " * 23
            cp = f"{cpi:12.0f}" if cpi else f"{'-':>12}"
            bu = f"{busy:7.2f}%" if busy is not None else f"{'-':>8}"
            print(f"{head}  {be:7} {acc:8.2%}  {same:5}/{len(yte):<6} {cp}  {bu}")
    if args.check and not ok:
        print("digits: FAILED (a device backend below 95% or differing from the host int8 predictions)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
