"""Compile a module to a bundle, and run a bundle on a backend.

``compile(module) -> Bundle`` runs the C++ compiler (passes, lowering, emission) in this
process. ``run(bundle, backend=..., inputs=...) -> Result`` runs it in a child process: SystemC
elaborates once per process, so the TLM and the RTL cannot run twice in one; every backend
goes the same way, through ``axrun`` (``ref``, ``tlm``, ``rtl``) or ``axcore-fsim`` (``fsim``).
Inputs and outputs travel as ``.npy`` files (a copy each way). A bundle whose operator graph
holds operators authored in Python (ScriptOp) runs on ``ref`` here, through their NumPy
``emulate``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

import numpy as np

import warnings

from ._errors import CompileError, HazardWarning, at_user_line, reraise
from ._native import NativeCompileError
from ._native import runtime as _rt

__all__ = ["Bundle", "BufferDesc", "HazardWarning", "Result", "RunError", "compile", "load", "run", "backends"]

#: One IMC residency in 64x64 int8 tiles (spec imc_tiles): a convolution window or a linear's K
#: beyond it runs in K passes whose float18 partial sums a bit-exact reference has to follow.
IMC_TILES: int = _rt.IMC_TILES

_DTYPES = {"INT8": np.int8, "INT32": np.int32, "FLOAT16": np.float16, "FLOAT32": np.float32}


class RunError(RuntimeError):
    """A run that did not complete: bad inputs, a backend this build lacks, a device failure."""


@dataclass(frozen=True)
class BufferDesc:
    """One buffer of a bundle: ``shape`` is the logical shape (lanes unpacked on the last axis),
    ``packed`` the shape the program indexes (PWORDs) with the 64 lanes as a trailing axis."""

    name: str
    role: str
    dtype: np.dtype
    shape: tuple
    layout: str
    axis: int

    @property
    def packed(self) -> tuple:
        """The (blocks..., 64) shape of a PWORD-packed buffer; ``shape`` for a dense one."""
        if self.layout != "PWORDS" or not self.shape:
            return self.shape
        ax = self.axis % len(self.shape)
        s = list(self.shape)
        n = s[ax]
        s[ax] = -(-n // 64)
        return tuple(s) + (64,)


class Bundle:
    """An ``.axb`` program bundle: bytes, and what they hold.

    Attributes
    ----------
    data : bytes
        The encoded bundle (validated when decoded).
    buffers : list of BufferDesc
    graph : list of dict
        The operator graph the ``ref`` backend runs (op, inputs, outputs, attrs).
    metadata : dict
    compile_ms : float or None
        The compiler's time (passes + lowering + emission) when compiled here.
    build_ms : float or None
        The Python front end's time (parsing and building) when compiled here.
    explain : str
        What runs where, when compiled here with ``compile(..., explain=True)``; "" otherwise.
    """

    def __init__(self, data: bytes, compile_ms: Optional[float] = None, build_ms: Optional[float] = None,
                 explain: str = "", compiled: bool = False) -> None:
        self.data = bytes(data)
        self._info: Optional[Dict[str, Any]] = None
        if not compiled:  # bytes from elsewhere (a file): decoded and validated now
            self._decode()
        self.compile_ms = compile_ms
        self.build_ms = build_ms
        self.explain = explain

    def _decode(self) -> Dict[str, Any]:
        """What the bytes hold, decoded once, when first asked for (a bundle compiled here and only
        saved is never decoded)."""
        if self._info is None:
            try:
                info = _rt.bundle_info(self.data)
            except Exception as err:
                raise ValueError(f"not a valid .axb bundle: {err}") from None
            self._info = {
                "buffers": [BufferDesc(b["name"], b["role"].upper(), np.dtype(_DTYPES[b["dtype"]]), tuple(b["shape"]),
                                       b["layout"].upper(), b["axis"]) for b in info["buffers"]],
                "graph": list(info["graph"]), "metadata": dict(info["metadata"]), "describe": info["describe"],
                "dispatch_time": list(info["dispatch_time"])}
        return self._info

    @property
    def dispatch_time(self) -> List[Dict[str, Any]]:
        """The dispatch-time scalars (name, min, max, doc); empty for a static bundle."""
        return self._decode()["dispatch_time"]

    def bind(self, **values: int) -> "Bundle":
        """The bundle a call with these dispatch-time values runs (runtime::bind_dispatch): its
        buffers and TXN at that size. A refused call (a value missing or out of range, a failing
        guard) raises ValueError with the guard's message."""
        return Bundle(_rt.bind_dispatch(self.data, {k: int(v) for k, v in values.items()}))

    @property
    def buffers(self) -> List[BufferDesc]:
        return self._decode()["buffers"]

    @property
    def graph(self) -> List[Dict[str, Any]]:
        return self._decode()["graph"]

    @property
    def metadata(self) -> Dict[str, str]:
        return self._decode()["metadata"]

    @property
    def describe(self) -> str:
        """The bundle's summary (runtime::describe: buffers, tasks, sizes)."""
        return self._decode()["describe"]

    @property
    def inputs(self) -> List[BufferDesc]:
        return [b for b in self.buffers if b.role == "INPUT"]

    @property
    def outputs(self) -> List[BufferDesc]:
        return [b for b in self.buffers if b.role == "OUTPUT"]

    def buffer(self, name: str) -> BufferDesc:
        for b in self.buffers:
            if b.name == name:
                return b
        raise KeyError(f"the bundle has no buffer {name!r} (it has {', '.join(b.name for b in self.buffers)})")

    def save(self, path: Union[str, os.PathLike]) -> None:
        """Write the bundle to ``path`` (an ``.axb`` file)."""
        with open(path, "wb") as f:
            f.write(self.data)

    def __repr__(self) -> str:
        return (f"<Bundle {self.metadata.get('name', '?')}: {len(self.inputs)} inputs, {len(self.outputs)} outputs, "
                f"{len(self.data)} bytes>")


def load(path: Union[str, os.PathLike]) -> Bundle:
    """Read and validate an ``.axb`` file."""
    with open(path, "rb") as f:
        return Bundle(f.read())


def compile(module: Any, cores: int = 1, explain: bool = False,  # noqa: A001 - the issue's name
            werror: bool = False) -> Bundle:
    """Compile an ``@A.ir_module`` to a bundle.

    Parameters
    ----------
    module : axcore.script.IRModule
        The module; its ``main`` prim_func is compiled.
    cores : int
        Cores of the target device (1-4).
    explain : bool
        Also describe the compiled program (``Bundle.explain``, what ``axc compile --explain``
        prints); "" otherwise.
    werror : bool
        A §14 hazard is a :class:`~axcore.script.CompileError` instead of a
        :class:`HazardWarning` (what ``axc compile --Werror=hazard`` does).

    Returns
    -------
    Bundle

    Raises
    ------
    axcore.script.CompileError
        A contract the passes or the lowering check, at the user's line.

    Warns
    -----
    HazardWarning
        Each hazard of the guide's §14 the compiler found (IMC reuse after another matrix, a
        hand-placed wait after dependent launches, a K-tiled matmul overwriting its partial sums),
        at the user's line.
    """
    native = getattr(module, "native", None)
    if native is None:
        raise TypeError(f"compile() takes an @A.ir_module, not a {type(module).__name__}")
    try:
        r = _rt.compile(native, int(cores), module.name, getattr(module, "source", ""), bool(explain), bool(werror))
    except NativeCompileError as err:
        reraise(err)
    for w in r["warnings"]:
        h = HazardWarning.from_native(w)
        warnings.warn_explicit(h, HazardWarning, h.filename or "<axscript>", h.lineno or 1)
    return Bundle(r["bundle"], r["total_ms"], getattr(module, "build_ms", None), r["explain"], compiled=True)


@dataclass
class Result:
    """What a run gave.

    Attributes
    ----------
    outputs : dict of str to numpy.ndarray
        Every output buffer, in its logical shape and dtype.
    cycles : int
        Device cycles (0 for ref).
    units : list of dict
        Per core and unit: name, busy / stall_in / stall_out (fractions of the run), tasks.
    trace : str or None
        The canonical trace file, when one was asked for.
    backend : str
    wall_s : float
        Wall time of the run (child process included).
    log : str
        What the runner printed.
    sticky : dict of str to int
        The device's sticky status registers after the run (fsim / tlm / rtl; empty for ref):
        each register summed over its tiles (``IMC_STALE_READS``, ``TOKEN_DROPPED``,
        ``ERROR_STATUS``, ``WDOG_STATUS``), and ``"<tile>.<REGISTER>"`` for every tile where it is
        not zero (``"core0.IMC_STALE_READS"``).
    """

    outputs: Dict[str, np.ndarray]
    cycles: int = 0
    units: List[Dict[str, Any]] = field(default_factory=list)
    trace: Optional[str] = None
    backend: str = ""
    wall_s: float = 0.0
    log: str = ""
    sticky: Dict[str, int] = field(default_factory=dict)

    def __getitem__(self, name: str) -> np.ndarray:
        return self.outputs[name]

    @property
    def imc_stale_reads(self) -> int:
        """MVM tile-ops that read IMC tiles outside their residency (the guide's §14 IMC reuse
        hazard: the outputs were computed with stale weights); 0 where nothing was counted."""
        return self.sticky.get("IMC_STALE_READS", 0)


def _paths() -> Any:
    try:
        from . import _paths as p  # generated by the build
        return p
    except ImportError:  # pragma: no cover - a copy of the sources without a build
        return None


def _tool(name: str, env: str, generated: str) -> str:
    if os.environ.get(env):
        return os.environ[env]
    p = _paths()
    path = getattr(p, generated, "") if p else ""
    if path and os.path.exists(path):
        return path
    found = shutil.which(name)
    if found:
        return found
    raise RunError(f"{name} not found: build it (cmake --build <build> --target {name}), put it on PATH, "
                   f"or set {env}")


def backends() -> List[str]:
    """The backends ``run`` takes."""
    return ["ref", "fsim", "tlm", "rtl"]


def _as_input(desc: BufferDesc, a: Any) -> np.ndarray:
    arr = np.asarray(a)
    if arr.shape != desc.shape:
        if arr.shape == desc.packed:
            arr = _unpack(desc, arr)
        else:
            raise RunError(f"input {desc.name}: shape {arr.shape}, the bundle expects {desc.shape} "
                           f"(or packed {desc.packed})")
    if arr.dtype != desc.dtype:
        conv = arr.astype(desc.dtype)
        if not np.array_equal(conv.astype(np.float64), arr.astype(np.float64), equal_nan=True):
            raise RunError(f"input {desc.name}: {arr.dtype} values do not fit {desc.dtype} exactly")
        arr = conv
    return np.ascontiguousarray(arr)


def _unpack(desc: BufferDesc, packed: np.ndarray) -> np.ndarray:
    """(blocks..., 64) -> the logical shape (the packed axis unpadded)."""
    ax = desc.axis % len(desc.shape)
    a = np.moveaxis(packed, ax, -2)
    a = a.reshape(a.shape[:-2] + (a.shape[-2] * 64,))[..., :desc.shape[ax]]
    return np.moveaxis(a, -1, ax)


def _pack(desc: BufferDesc, logical: np.ndarray) -> np.ndarray:
    """The logical shape -> (blocks..., 64), padding the packed axis with zeros."""
    if desc.layout != "PWORDS":
        return logical
    ax = desc.axis % len(desc.shape)
    a = np.moveaxis(logical, ax, -1)
    n = a.shape[-1]
    blocks = -(-n // 64)
    padded = np.zeros(a.shape[:-1] + (blocks * 64,), dtype=logical.dtype)
    padded[..., :n] = a
    padded = padded.reshape(a.shape[:-1] + (blocks, 64))
    return np.moveaxis(padded, -2, ax)


_DMA = re.compile(r"^\s+(\S+)\s+busy\s+([\d.]+)%\s+([\d ]+) bytes")
_STICKY_REG = re.compile(r"([A-Z_]+) (\d+)(?: \(([^)]*)\))?")


def _sticky(line: str) -> Dict[str, int]:
    """axrun's "sticky status: IMC_STALE_READS 32 (core0 32), TOKEN_DROPPED 0, ..." line."""
    out: Dict[str, int] = {}
    for m in _STICKY_REG.finditer(line.split(":", 1)[1]):
        out[m.group(1)] = int(m.group(2))
        for part in (m.group(3) or "").split(","):
            if part.strip():
                tile, value = part.split()
                out[f"{tile}.{m.group(1)}"] = int(value)
    return out


_UNIT = re.compile(r"^\s+(\S+)\s+busy\s+([\d.]+)%\s+stall in\s+([\d.]+)%\s+out\s+([\d.]+)%\s+tasks\s+(\d+)")


def run(bundle: Union[Bundle, str, os.PathLike], backend: str = "ref",
        inputs: Optional[Mapping[str, Any]] = None, cores: int = 1, trace: Optional[str] = None,
        timeout: Optional[float] = None, dispatch: Optional[Mapping[str, int]] = None) -> Result:
    """Run a bundle on a backend.

    Parameters
    ----------
    bundle : Bundle or path
        What to run.
    backend : {"ref", "fsim", "tlm", "rtl"}
        ``ref`` runs the operator graph (common/ref, or a ScriptOp's NumPy emulate), ``fsim`` the
        functional device, ``tlm`` / ``rtl`` the SystemC and Verilated models.
    inputs : dict of str to array_like
        One array per input buffer, in the logical shape (lanes unpacked) or the packed shape
        (blocks..., 64); dtypes must convert exactly.
    cores : int
        Device cores.
    trace : str, optional
        Write the canonical trace here (tlm / rtl / fsim).
    timeout : float, optional
        Seconds before the child process is stopped.
    dispatch : dict of str to int, optional
        The values of a bundle's dispatch-time scalars (``{"M": 24}``); a call whose guard fails
        raises RunError with the guard's message before any backend runs.

    Returns
    -------
    Result
    """
    if not isinstance(bundle, Bundle):
        bundle = load(bundle)
    if backend not in backends():
        raise RunError(f"unknown backend {backend!r}: one of {', '.join(backends())}")
    if bundle.dispatch_time or dispatch:
        try:
            bundle = bundle.bind(**dict(dispatch or {}))
        except ValueError as err:
            raise RunError(f"the call is refused: {err}") from None
    given = dict(inputs or {})
    arrays: Dict[str, np.ndarray] = {}
    for d in bundle.inputs:
        if d.name not in given:
            raise RunError(f"input {d.name} is missing (the bundle's inputs: "
                           f"{', '.join(i.name for i in bundle.inputs)})")
        arrays[d.name] = _as_input(d, given.pop(d.name))
    if given:
        raise RunError(f"no input named {', '.join(sorted(given))} (the bundle's inputs: "
                       f"{', '.join(i.name for i in bundle.inputs)})")
    t0 = time.perf_counter()
    if backend == "ref" and any(n["op"].startswith("py:") for n in bundle.graph):
        from .axol._emulate import run_graph
        outs = run_graph(bundle, arrays)
        return Result(outs, backend="ref", wall_s=time.perf_counter() - t0)
    with tempfile.TemporaryDirectory(prefix="axcore-run-") as tmp:
        path = os.path.join(tmp, "bundle.axb")
        bundle.save(path)
        args = []
        for name, a in arrays.items():
            f = os.path.join(tmp, f"in.{name}.npy")
            np.save(f, a)
            args += ["--input", f"{name}={f}"]
        outdir = os.path.join(tmp, "out")
        if backend == "fsim":
            cmd = [_tool("axcore-fsim", "AXCORE_FSIM", "FSIM"), path]
        else:
            cmd = [_tool("axrun", "AXCORE_AXRUN", "AXRUN"), path, "--backend", backend, "--quiet"]
        cmd += args + ["--output-dir", outdir, "--cores", str(int(cores))]
        if trace:
            if backend == "ref":
                raise RunError("the ref backend writes no trace (tlm, rtl or fsim do)")
            cmd += ["--trace", os.path.abspath(trace)]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise RunError(f"{backend}: no result after {timeout} s") from None
        log = p.stdout + p.stderr
        if p.returncode != 0:
            what = {1: "the run failed on the device", 2: "the bundle or its inputs were refused",
                    3: "this build has no such backend"}.get(p.returncode, f"exit {p.returncode}")
            raise RunError(f"{backend}: {what}:\n{log.strip()}")
        outs = {}
        for d in bundle.outputs:
            outs[d.name] = np.load(os.path.join(outdir, d.name + ".npy"))
    cycles = 0
    units = []
    sticky: Dict[str, int] = {}
    for line in p.stdout.splitlines():
        if line.strip().startswith("sticky status:"):
            sticky = _sticky(line)
        m = re.match(r"^\s+cycles: ([\d ]+)", line)
        if m:
            cycles = int(m.group(1).replace(" ", ""))
        d = _DMA.match(line)
        if d:
            units.append({"name": d.group(1), "busy": float(d.group(2)) / 100,
                          "bytes": int(d.group(3).replace(" ", ""))})
        m = _UNIT.match(line)
        if m:
            units.append({"name": m.group(1), "busy": float(m.group(2)) / 100, "stall_in": float(m.group(3)) / 100,
                          "stall_out": float(m.group(4)) / 100, "tasks": int(m.group(5))})
    return Result(outs, cycles, units, os.path.abspath(trace) if trace else None, backend,
                  time.perf_counter() - t0, log, sticky)
