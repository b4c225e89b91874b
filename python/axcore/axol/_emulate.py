"""The ``ref`` backend for a graph of operators authored in Python: each node runs its class's
NumPy ``emulate()``; the arrays an emulate sees carry the lanes as the last axis (§4.3)."""

from __future__ import annotations

from typing import Any, Dict

import numpy as np

_NP = {"int8": np.int8, "int32": np.int32, "float16": np.float16, "float32": np.float32}


def _np_dtype(dtype: str) -> Any:
    base = dtype.split("x")[0]
    if base not in _NP:
        raise ValueError(f"no NumPy dtype for {dtype}")
    return _NP[base]


def run_graph(bundle: Any, inputs: Dict[str, np.ndarray]) -> Dict[str, np.ndarray]:
    """Outputs of ``bundle``'s graph on ``inputs`` (logical shapes), every node a ScriptOp."""
    from ..compiler.op_registry import registered
    from ..runtime import RunError, _pack, _unpack
    env: Dict[str, np.ndarray] = {}
    for b in bundle.buffers:
        if b.name in inputs:
            env[b.name] = _pack(b, inputs[b.name])
    for i, node in enumerate(bundle.graph):
        op = node["op"]
        if not op.startswith("py:"):
            raise RunError(f"ref: graph node {i} ({op}) is a C++ operator next to operators authored in Python; "
                           "this runtime runs a graph of one kind or the other")
        cls = registered(op[3:])
        attrs = dict(node["attrs"])
        inst = cls.__new__(cls)
        names = [n for n in str(attrs.pop("py.tensor_args", "")).split(",") if n]
        for arg, src in zip(names, node["inputs"]):
            if src not in env:
                raise RunError(f"ref: graph node {i} ({op}) reads {src}, which nothing produced")
            inst.__dict__[arg] = env[src]
        out_dtype = _np_dtype(str(attrs.pop("py.out_dtype")))
        shape = attrs.pop("py.out_shape")
        shape = [shape] if isinstance(shape, int) else list(shape)
        for k, v in attrs.items():
            inst.__dict__[k] = v
        for a in cls._args():
            if not a.is_output and a.name not in inst.__dict__:
                inst.__dict__[a.name] = None if a.required else a.default
        out_arg = [a for a in cls._args() if a.is_output][0]
        out = np.zeros(tuple(shape) + (64,), dtype=out_dtype)
        inst.__dict__[out_arg.name] = out
        inst.emulate()
        env[node["outputs"][0]] = out
    result = {}
    for b in bundle.outputs:
        if b.name not in env:
            raise RunError(f"ref: output {b.name} is not produced by the graph")
        result[b.name] = _unpack(b, env[b.name]).astype(b.dtype) if b.layout == "PWORDS" else env[b.name]
    return result
