"""The guide's ``A`` namespace: ``import axcore.script as A``.

``@A.ir_module`` / ``@A.prim_func`` parse a module from its source (guide §4.1-§4.2), ``with
A.script():`` parses a block of an ordinary method (the operator path, §4.3), ``@A.macro`` a
reusable block of statements. Everything else here is a construct used inside those regions;
each is a call of the C++ builder (axcore/compiler/script.hpp), which checks the guide's
contracts and raises :class:`CompileError` at the user's line.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import sys
import time
import types
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

import numpy as np

from .._errors import CompileError, reraise
from .._native import NativeCompileError
from .._native import script as _s
from . import _constructs as C
from . import _parser as P
from ._values import install as _install
from ._values import value as _v

_install()

__all__ = [
    "CompileError", "ir_module", "prim_func", "script", "macro", "Buffer", "IRModule",
    "DDR", "L2", "L1", "DDR_WEAK", "L2_WEAK", "L1_WEAK", "IMC", "DPU_REGISTERS", "MVM_ACCUMULATOR",
    "DP_MVMEXE", "DP_DWPU", "IFD_0_STREAM", "IFD_1_STREAM", "MVM_STREAM", "DPU_STREAM", "ODR_STREAM",
    "alloc_buffer", "alloc_constant", "alloc_imc", "mvm_accumulator", "reset_accumulator", "var", "array",
    "decl_stream", "output", "input", "grid", "serial", "unroll", "tiles", "Datapath", "IFD", "DPU", "ODR",
    "init", "pseudo", "CoreDMA", "SysDMA", "AICore", "If", "Then", "Else", "when", "where", "drop", "bypass",
    "sync", "waits", "signals", "barrier", "fuse", "prevent_fuse", "cast", "vtrsp", "Broadcast", "if_then_else",
    "BufferLoad", "int8", "int32", "float32", "IntImm", "Ramp", "Min", "Max", "min", "max", "mvm_1x1", "dpu",
    "buffer_store",
]

# ---- scopes, datapath kinds, stream scopes (§5.1, §6, §6.1) -------------------------------------
DDR, L2, L1 = "DDR", "L2", "L1"
DDR_WEAK, L2_WEAK, L1_WEAK = "DDR_WEAK", "L2_WEAK", "L1_WEAK"
IMC, DPU_REGISTERS, MVM_ACCUMULATOR = "IMC", "DPU_REGISTERS", "MVM_ACCUMULATOR"
DP_MVMEXE, DP_DWPU = "DP_MVMEXE", "DP_DWPU"
IFD_0_STREAM, IFD_1_STREAM, MVM_STREAM, DPU_STREAM, ODR_STREAM = (
    "IFD_0_STREAM", "IFD_1_STREAM", "MVM_STREAM", "DPU_STREAM", "ODR_STREAM")


def _scope(s: Any) -> str:
    return s if type(s) is str else str(getattr(s, "value", s))


# ---- the parsed regions --------------------------------------------------------------------------
class Buffer:
    """A prim_func parameter's annotation: ``inp: A.Buffer((8, 1), "float32x64", scope=A.DDR)``.

    Parameters
    ----------
    shape : tuple of int
        The packed shape (the last axis counts PWORDs, §5).
    dtype : str
        ``"<base>x<lanes>"``, e.g. ``"int8x64"``.
    scope : str, optional
        The memory scope (default ``A.DDR``).
    """

    def __init__(self, shape: Sequence[int], dtype: str, scope: str = DDR) -> None:
        self.shape = tuple(int(d) for d in shape)
        self.dtype = str(dtype)
        self.scope = _scope(scope)

    def __repr__(self) -> str:
        return f"A.Buffer({self.shape}, {self.dtype!r}, scope=A.{self.scope})"


class _PrimFunc:
    """What ``@A.prim_func`` leaves in an ``@A.ir_module`` class: the function, parsed when the
    module is built."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(f"prim_func {self.__name__} is parsed, not called: build its module with @A.ir_module "
                        "and run it with axcore.runtime")


def prim_func(fn: Callable[..., Any]) -> _PrimFunc:
    """Mark a function of an ``@A.ir_module`` class as an AxScript function (its body is the
    parsed region, §4.1)."""
    return _PrimFunc(fn)


class IRModule:
    """A built module: what ``@A.ir_module`` makes of a class.

    Attributes
    ----------
    name : str
        The class name.
    native : axcore._axcore.script.Module
        The builder's module (its ``main`` is what :func:`axcore.runtime.compile` compiles).
    funcs : list of str
        The prim_funcs, ``main`` first.
    source : str
        The file the module was parsed from.
    build_ms : float
        How long parsing and building took.
    """

    def __init__(self, cls: type) -> None:
        t0 = time.perf_counter()
        self.name = cls.__name__
        self.cls = cls
        self.native = _s.Module(cls.__name__)
        funcs = [v for v in vars(cls).values() if isinstance(v, _PrimFunc)]
        if not funcs:
            raise TypeError(f"@A.ir_module {cls.__name__} has no @A.prim_func")
        if len(funcs) > 1:
            funcs.sort(key=lambda f: f.__name__ != "main")
        self.funcs = [f.__name__ for f in funcs]
        self.source = ""
        for f in funcs:
            self.source = self.source or _build_prim_func(self.native, f)
        self.build_ms = (time.perf_counter() - t0) * 1e3

    def dump(self) -> str:
        """The module's IR in the guide's spelling (the compiler's printer)."""
        return self.native.dump()

    def __repr__(self) -> str:
        return f"<A.ir_module {self.name} ({', '.join(self.funcs)}) from {self.source}>"


def ir_module(cls: type) -> IRModule:
    """Build an AxScript module from a class holding ``@A.prim_func`` functions.

    The bodies are parsed from the file's source when the class is decorated; a compile error is
    a :class:`CompileError` at the line responsible.
    """
    try:
        return IRModule(cls)
    except (NativeCompileError, CompileError) as err:
        reraise(err)
    finally:
        P.clear_location()


def _source_of(fn: Callable[..., Any]) -> tuple:
    """Where a function's body is: (file, its FunctionDef in the cached tree of the file), looked
    up once per function object (kept on it as ``_ax_source``: a rebuild of the same class does not
    look again; a file run again defines new functions, which look again)."""
    hit = getattr(fn, "_ax_source", None)
    if hit is not None:
        return hit
    code = fn.__code__
    file = inspect.getsourcefile(fn) or code.co_filename
    tree = P.file_tree(file) if file else None
    first = code.co_firstlineno
    node = None
    if tree is not None:
        for n in ast.walk(tree):
            if not isinstance(n, ast.FunctionDef):
                continue
            start = n.decorator_list[0].lineno if n.decorator_list else n.lineno
            if n.name == fn.__name__ and (start == first or n.lineno == first):
                node = n
                break
    if node is None:
        raise CompileError(f"the body of {fn.__name__} has no source to parse: AxScript is parsed from the "
                           "function's source text in a .py file, so a function made by exec()/eval() or "
                           "without retrievable source cannot be parsed (§4.2)",
                           "define it in a .py file", code.co_filename, first, 1)
    fn._ax_source = (file, node)  # type: ignore[attr-defined]
    return file, node


def _closure(fn: Callable[..., Any]) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
        try:
            out[name] = cell.cell_contents
        except ValueError:
            pass
    return out


def _signature(fn: Callable[..., Any], file: str, node: ast.FunctionDef) -> List[tuple]:
    """The parameters of a prim_func as (name, shape, dtype, scope, line, column), checked once per
    function object (its annotations are fixed when it is defined) and kept on it."""
    sig = getattr(fn, "_ax_signature", None)
    if sig is not None:
        return sig
    P.check_subset(file, node.body, f"the body of prim_func {fn.__name__}")
    params = node.args
    if params.vararg or params.kwarg or params.kwonlyargs or params.posonlyargs:
        P.fail_at(file, node, f"prim_func {fn.__name__}: parameters are buffers, named one by one",
                  "def main(x: A.Buffer(shape, dtype, scope=A.DDR), ...)")
    sig = []
    for arg in params.args:
        ann = fn.__annotations__.get(arg.arg)
        if isinstance(ann, str):  # PEP 563 (from __future__ import annotations) stringified it
            try:
                ann = eval(ann, dict(fn.__globals__), _closure(fn))
            except Exception:
                P.fail_at(file, node,
                          f"expected Object but got str: the annotation of {arg.arg} is the string {ann!r}. "
                          "`from __future__ import annotations` (PEP 563) at module scope stringifies annotations, "
                          "and this signature is built from values of the enclosing scope (§4.2, §14)",
                          "remove `from __future__ import annotations` from the module (that import is the line "
                          "responsible), or build the signature from literals and module-level names")
        if not isinstance(ann, Buffer):
            P.fail_at(file, arg, f"parameter {arg.arg} of prim_func {fn.__name__} needs an A.Buffer annotation",
                      f"{arg.arg}: A.Buffer((rows, blocks), \"int8x64\", scope=A.DDR)")
        sig.append((arg.arg, list(ann.shape), ann.dtype, ann.scope, arg.lineno, arg.col_offset + 1))
    fn._ax_signature = sig  # type: ignore[attr-defined]
    return sig


def _build_prim_func(mod: Any, pf: _PrimFunc) -> str:
    fn = pf.fn
    file, node = _source_of(fn)
    sig = _signature(fn, file, node)
    ns: Dict[str, Any] = dict(fn.__globals__)
    if fn.__closure__:
        ns.update(_closure(fn))
    P.set_location(file, node.lineno, node.col_offset + 1)
    func = mod.prim_func(fn.__name__)
    names = set()
    for name, shape, dtype, scope, line, column in sig:
        P.set_line(line, column)
        ns[name] = func.input(name, shape, dtype, scope)
        names.add(name)
    parser = P.Parser(file, ns, f"the body of prim_func {fn.__name__}", names, own=True)
    _s.build_function(func, parser, node.body)  # parser.run(node.body) in the builder's function
    return file


class _SkipBody(Exception):
    pass


class script:
    """``with A.script():`` — the block below is parsed into the current function (the
    operator path, §4.3); the Python around it runs. It sees the enclosing function's locals
    bound above the ``with`` line and the module globals."""

    def __enter__(self) -> "script":
        frame = sys._getframe(1)
        file = frame.f_code.co_filename
        line = frame.f_lineno
        block = _script_block(frame.f_code, file, line)
        if block is None:
            raise CompileError("with A.script(): has no source to parse (the block is parsed from its .py file)",
                               "write the method in a .py file", file, line, 1)
        node, pass_only = block
        region = "a with A.script(): block"
        ns = dict(frame.f_globals)
        ns.update(frame.f_locals)
        outer = P.current()
        names = outer.names if outer is not None else None
        try:
            P.check_subset(file, node.body, region)
            P.Parser(file, ns, region, names, own=True).run(node.body)
        except (NativeCompileError, CompileError) as err:
            reraise(err)
        self._frame = None
        if pass_only:
            return self  # nothing to skip (and a lone `pass` has no line event inside the with)
        # The block was built: skip running it as Python (a trace function raises on its first line).
        self._old_trace = sys.gettrace()
        sys.settrace(_no_trace)
        frame.f_trace = _skip
        self._frame = frame
        return self

    def __exit__(self, typ: Any, val: Any, tb: Any) -> bool:
        if self._frame is None:
            return False
        sys.settrace(self._old_trace)
        # The frame's own trace goes too: left set, it fires on the method's next event (its
        # return, when the block was the method's last statement) outside this with.
        self._frame.f_trace = None
        self._frame = None
        return typ is _SkipBody


def _no_trace(*args: Any) -> None:
    return None


def _skip(frame: types.FrameType, event: str, arg: Any) -> None:
    raise _SkipBody()


# The `with A.script():` statement at a line of a function's code, once per (code, line): keyed by
# the code object's id, with the code object kept (so the id is not reused) and compared.
_blocks: Dict[int, tuple] = {}


def _script_block(code: types.CodeType, file: str, line: int) -> Optional[tuple]:
    """(the With node, whether its body is only ``pass``), None when the line has no source."""
    hit = _blocks.get(id(code))
    if hit is None or hit[0] is not code:
        hit = _blocks[id(code)] = (code, {})
    by_line = hit[1]
    found = by_line.get(line)
    if found is not None:
        return found
    tree = P.file_tree(file)
    node = None
    if tree is not None:
        for n in ast.walk(tree):
            if isinstance(n, ast.With) and n.lineno == line and any(
                    isinstance(i.context_expr, ast.Call) and _attr_name(i.context_expr.func) == "script"
                    for i in n.items):
                node = n
                break
    if node is None:
        return None
    found = by_line[line] = (node, all(isinstance(st, ast.Pass) for st in node.body))
    return found


def _attr_name(f: Any) -> str:
    if isinstance(f, ast.Attribute):
        return f.attr
    if isinstance(f, ast.Name):
        return f.id
    return ""


class macro:
    """``@A.macro``: a named block of statements, parsed and inlined where it is called, with a
    scope of its own (only the arguments cross, §4.2). Define it outside the parsed region."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn
        self.__name__ = fn.__name__

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        outer = P.current()
        if outer is None:
            _s.fail(f"macro {self.__name__} is called outside a parsed region",
                    "call it inside an @A.prim_func body or a with A.script(): block")
        file, node = _source_of(self.fn)
        region = f"the body of macro {self.__name__}"
        P.check_subset(file, node.body, region)
        bound = inspect.signature(self.fn).bind(*args, **kwargs)
        bound.apply_defaults()
        ns = dict(self.fn.__globals__)
        ns.update(_closure(self.fn))
        ns.update(bound.arguments)
        inner = P.Parser(file, ns, region, outer.names, own=True)
        inner.units = list(outer.units)
        inner.run(node.body)


# ---- buffers, streams, registers (§5.2, §6.1) -----------------------------------------------------
def alloc_buffer(shape: Sequence[int], dtype: str, scope: str = L1_WEAK, name: str = "") -> Any:
    """A buffer of ``shape`` (packed) and ``dtype`` in ``scope`` (§5.2)."""
    return _s.alloc_buffer(C.extents(shape, "a buffer extent"), dtype, _scope(scope), name or P.name_hint())


def alloc_constant(values: Any, dtype: str, scope: str = DDR, shape: Optional[Sequence[int]] = None,
                   name: str = "") -> Any:
    """A constant buffer holding ``values`` (C order over shape x lanes; a NumPy array whose last
    axis is the lanes gives the shape, ``[0.0] * 64`` is one PWORD)."""
    arr = np.asarray(values, dtype=np.float64)
    if shape is None:
        lanes = int(dtype.split("x")[-1]) if "x" in dtype else 1
        shape = list(arr.shape[:-1]) if arr.ndim >= 2 and arr.shape[-1] == lanes else []
    return _s.alloc_constant(arr.reshape(-1), dtype, _scope(scope), C.extents(shape, "a constant extent"),
                             name or P.name_hint())


def alloc_imc(tiles: Sequence[int], dtype: str = "int8x4096", core: Optional[int] = None, name: str = "") -> Any:
    """A logical IMC buffer of (K_BLOCKS, N_BLOCKS) 64x64 tiles (§5.2, §6.2)."""
    return _s.alloc_imc(C.extents(tiles, "an IMC extent"), dtype, C.optional_int(core, -1, "core"),
                        name or P.name_hint())


def mvm_accumulator() -> Any:
    """The MVM's accumulator register; declare it inside the MatMul block (§5.2)."""
    return _s.mvm_accumulator()


def reset_accumulator(acc: Any) -> None:
    """Zero every lane of the accumulator."""
    _s.reset_accumulator(acc)


def var(dtype: str, name: str = "") -> Any:
    """A single DPU register, read and assigned without an index (§5.2)."""
    return _s.var(dtype, name or P.name_hint())


def array(dtype: str, size: int = 16, name: str = "") -> Any:
    """A DPU register file of ``size`` registers, indexed ``reg[i]`` (§5.2)."""
    return _s.array(dtype, C.build_int(size, "A.array size"), name or P.name_hint())


# A.decl_stream(dtype, scope=None, name=""): a stream between two units, its device scope inferred
# from the units (§6.1), named after the variable it is assigned to; the extension's own function.
decl_stream = _s.decl_stream


def output(buf: Any) -> None:
    """Name ``buf`` as a result of the module."""
    _s.output(buf)


def input(buf: Any) -> Any:  # noqa: A001 - the guide's name
    """Name a module operand (parameters are the operands already; kept for the guide's API)."""
    return buf


# ---- loops (§4.4, §9, §11.2) ------------------------------------------------------------------------
def grid(*extents: int, always_tuple: bool = False) -> C.Loops:
    """An N-dimensional device loop nest, row-major (§4.4)."""
    ex = C.extents(extents, "an A.grid extent")
    return C.Loops("grid", [0] * len(ex), ex, always_tuple)


def serial(start: int, stop: Optional[int] = None) -> C.Loops:
    """A sequential device loop over 0..N-1, or start..stop-1 (§4.4)."""
    a, b = (0, start) if stop is None else (start, stop)
    a, b = C.build_int(a, "A.serial start"), C.build_int(b, "A.serial stop")
    return C.Loops("serial", [a], [builtins.max(0, b - a)])


def unroll(start: int, stop: Optional[int] = None) -> C.Loops:
    """A device loop the compiler fully unrolls at lowering (§4.4)."""
    a, b = (0, start) if stop is None else (start, stop)
    a, b = C.build_int(a, "A.unroll start"), C.build_int(b, "A.unroll stop")
    return C.Loops("unroll", [a], [builtins.max(0, b - a)])


def tiles(extent: int, tile_min: int = 0, tile_max: int = 0, num_tiles: int = 0, drain: int = 0) -> C.Block:
    """``with A.tiles(extent, tile_min=, tile_max=, num_tiles=, drain=) as t:`` (§11.2, §12).

    Around operator calls, nested tile loops or several datapaths, the loop of tile steps is
    unrolled at build time (§9.3) and ``t`` is the step's tile handle: ``t.base``, ``t.lanes``
    (the last tile short), ``buf.tile(t, dim=N)``; with ``drain=N`` the loop runs num_tiles + N
    steps and ``t.is_load`` / ``t.is_compute`` / ``t.is_store`` (``t.stage(k)``) are the stages'
    build-time predicates for ``where=`` and ``A.when``. Around exactly one ``A.Datapath`` it is the
    tiling pass's loop (§11.1) and ``t`` the element index (the pass derives the DMA regions)."""
    return C.Block("tiles", {"extent": C.build_int(extent, "A.tiles extent"),
                             "bounds": [C.build_int(x, "an A.tiles bound") for x in (tile_min, tile_max,
                                                                                   num_tiles, drain)]})


# ---- datapaths and blocks (§6, §8) ------------------------------------------------------------------
def Datapath(kind: Optional[str] = None, core: Optional[int] = None, id: str = "") -> C.Block:  # noqa: A002
    """``with A.Datapath(kind=..., core=..., id=...):`` — one datapath invocation (§6)."""
    if kind is None and core is None and not id:
        return _DATAPATH_BLOCK
    k = None if kind is None else str(getattr(kind, "value", kind))
    return C.Block("Datapath", {"kind": k, "core": C.optional_int(core, -1, "core"), "id": id or ""})


# The blocks without arguments (and the common argument values) are made once: a Block is a
# read-only descriptor, and these are evaluated for every block of every build.
_BLOCKS = {k: C.Block(k) for k in ("DPU", "ODR", "init", "MatMul", "LoadIMC", "Then", "Else", "prevent_fuse")}
_IFD_BLOCKS = {n: C.Block("IFD", {"num": n}) for n in (None, 0, 1)}
_DATAPATH_BLOCK = C.Block("Datapath", {"kind": None, "core": -1, "id": ""})


def IFD(num: Optional[int] = None) -> C.Block:
    """``with A.IFD(num=0):`` — the input feeder; num=1 is the DPU's side input (§8.2). Without num
    it is the main feeder, unless the stream it pushes is pinned to ``A.IFD_1_STREAM`` (§6.1)."""
    if num is None:
        return _IFD_BLOCKS[None]
    b = _IFD_BLOCKS.get(num) if type(num) is int else None
    return b if b is not None else C.Block("IFD", {"num": C.build_int(num, "IFD num")})


def DPU() -> C.Block:
    """``with A.DPU():`` — the DPU's register program (§8.5)."""
    return _BLOCKS["DPU"]


def ODR() -> C.Block:
    """``with A.ODR():`` — the output store (§8.4)."""
    return _BLOCKS["ODR"]


def init() -> C.Block:
    """``with A.init():`` — the DPU's one-time preamble (§8.5)."""
    return _BLOCKS["init"]


class _Pseudo:
    """``A.pseudo``: the blocks the compiler expands (MatMul inside a datapath, LoadIMC a datapath)."""

    @staticmethod
    def MatMul() -> C.Block:
        """``with A.pseudo.MatMul():`` — reset, ``acc += A.mvm_1x1(...)``, push (§6.2)."""
        return _BLOCKS["MatMul"]

    @staticmethod
    def LoadIMC() -> C.Block:
        """``with A.pseudo.LoadIMC():`` — makes a matrix resident, one IMC block a store (§6.2)."""
        return _BLOCKS["LoadIMC"]


pseudo = _Pseudo()


def CoreDMA(core: Optional[int] = None, id: str = "") -> C.Block:  # noqa: A002
    """``with A.CoreDMA(core=c):`` — a core's DMA (a movement block, §8.1)."""
    return C.Block("CoreDMA", {"core": C.optional_int(core, -1, "core"), "id": id or ""})


def SysDMA(id: str = "") -> C.Block:  # noqa: A002
    """``with A.SysDMA():`` — the shim DMA (a movement block, §8.1)."""
    return C.Block("SysDMA", {"id": id or ""})


def AICore(core: int) -> C.Block:
    """``with A.AICore(core=n):`` — buffers and work inside run on core n (§6)."""
    return C.Block("AICore", {"core": C.build_int(core, "core")})


def If(cond: Any) -> C.Block:
    """``with A.If(cond):`` holding ``with A.Then():`` and optionally ``with A.Else():`` (§10)."""
    return C.Block("If", {"cond": cond})


def Then() -> C.Block:
    """The taken branch of ``A.If``."""
    return _BLOCKS["Then"]


def Else() -> C.Block:
    """The other branch of ``A.If``."""
    return _BLOCKS["Else"]


def when(cond: Any) -> C.Block:
    """``with A.when(cond):`` — ``A.If(cond)`` with only a Then (§10)."""
    return C.Block("when", {"cond": cond})


def fuse(unsafe: bool = False, strict: bool = True, disable_dpu_reg_pressure_heuristic: bool = False,
         enable_loop_legalization: bool = False) -> C.Block:
    """``with A.fuse(...):`` — the datapaths built inside (written or made by operator calls) fuse
    (§12; compiler/passes/fuse.cpp): with ``strict`` the compile is refused at this line when a
    producer/consumer pair of the group stays apart; ``unsafe`` / ``disable_dpu_reg_pressure_heuristic``
    fuse past the DPU register estimate; ``enable_loop_legalization`` is accepted (the pass matches flat
    addresses, it rewrites no loop)."""
    return C.Block("fuse", {"unsafe": bool(unsafe), "strict": bool(strict),
                            "reg": bool(disable_dpu_reg_pressure_heuristic),
                            "loops": bool(enable_loop_legalization)})


def prevent_fuse() -> C.Block:
    """``with A.prevent_fuse():`` — nothing built inside is fused (§12)."""
    return _BLOCKS["prevent_fuse"]


def where(cond: Any) -> None:
    """``A.where(cond)`` — the block predicate of the ``A.Datapath``, ``A.CoreDMA`` or ``A.SysDMA``
    it is written in (§10): it bounds the data movement the block generates. Decided when the
    program is built: each comparison bounds one loop variable around the block, or is a build-time
    value (a Python bool too); inert in a stream unit block (``A.ODR`` ...); else refused here."""
    _s.where(cond)


def bypass() -> None:
    """``A.bypass()`` — the enclosing stream unit block is bypassed (§6.4): the datapath runs as if
    it were omitted; the block holds nothing else. IFD(num=0) and the ODR cannot be bypassed."""
    _s.bypass()


def drop(popped: Any) -> None:
    """``A.drop(stream.pop())`` — consume one element and discard it (ODR only, §6.1)."""
    _s.drop(_v(popped))


# ---- sync (§12) ---------------------------------------------------------------------------------------
def sync(waits: Sequence[str] = (), signals: Sequence[str] = (), buffers: Sequence[Any] = ()) -> None:
    """``A.sync(waits=, signals=, buffers=)`` (§12): wait for the launches the ids tag (or a signal of
    them marked); mark every launch made so far done under the signalled ids (a later wait on one
    waits for those still in flight); ``buffers`` narrows both to the launches touching those
    buffers (alone: wait for every such launch in flight)."""
    _s.sync(list(waits), list(signals), list(buffers))


def waits(*ids: str) -> None:
    """``A.sync(waits=ids)``."""
    for i in ids:
        _s.waits(i)


def signals(*ids: str) -> None:
    """``A.sync(signals=ids)``."""
    for i in ids:
        _s.signals(i)


def barrier(*cores: int) -> None:
    """All-to-all sync across cores (a no-op for fewer than two)."""
    _s.barrier([C.build_int(c, "core") for c in cores])


# ---- values (§5, §7) ----------------------------------------------------------------------------------
# A.cast(v, dtype): v converted to dtype (rounding and clipping as the target type does, §5); the
# extension's own function.
cast = _s.cast


def vtrsp(v: Any) -> Any:
    """The lane transpose of an ODR store value on A.DP_DWPU (§8.4): store 64b + i gets lane i of
    pops 64b .. 64b + 63 in its lanes (blocks of 64 consecutive stores)."""
    return _s.vtrsp(_v(v))


def Broadcast(scalar: Any, lanes: int) -> Any:
    """A scalar in every lane."""
    return _s.Broadcast(_v(scalar), C.build_int(lanes, "lanes"))


def if_then_else(cond: Any, a: Any, b: Any) -> Any:
    """A value-level select (§10)."""
    return _s.if_then_else(_v(cond), _v(a), _v(b))


def BufferLoad(buf: Any, idx: Any) -> Any:
    """``buf[idx]`` written as a call (the IFD pad form, §8.3)."""
    return buf[tuple(idx) if isinstance(idx, (list, tuple)) else idx]


def int8(v: int) -> Any:
    return _s.int8(C.build_int(v, "A.int8 value"))


def int32(v: int) -> Any:
    return _s.int32(C.build_int(v, "A.int32 value"))


def float32(v: float) -> Any:
    return _s.float32(float(v))


def IntImm(dtype: str, v: int) -> Any:
    """An integer immediate (§3, §5): ``A.IntImm("int32", v)`` an index (or an int32 pad value),
    ``A.IntImm("int8", v)`` an int8 pad value; another dtype, or a value out of range, is refused."""
    return _s.IntImm(str(getattr(dtype, "name", dtype)), C.build_int(v, "A.IntImm value"))


def buffer_store(buf: Any, value: Any, indices: Any) -> None:
    """``A.buffer_store(buf, value, indices)`` — ``buf[indices] = value`` as a call (§8.4, §8.5): a
    DPU register file (``A.buffer_store(regs, expr, (i,))``) or a buffer."""
    _s.buffer_store(buf, value, indices)


def Ramp(base: Any, step: int, lanes: int) -> Any:
    """``lanes`` elements from ``base``, ``step`` apart (a strided index, §5)."""
    return _s.Ramp(_v(base), C.build_int(step, "Ramp step"), C.build_int(lanes, "Ramp lanes"))


def Min(a: Any, b: Any) -> Any:
    return _s.Min(_v(a), _v(b))


def Max(a: Any, b: Any) -> Any:
    return _s.Max(_v(a), _v(b))


min = Min  # noqa: A001 - the guide's names
max = Max  # noqa: A001


def mvm_1x1(x: Any, imc_tile: Any) -> Any:
    """One IFD vector against one IMC tile, into the accumulator (§7)."""
    return _s.mvm_1x1(_v(x), _v(imc_tile))


class _DpuOps:
    """``A.dpu.ops``: the DPU intrinsics (§7)."""

    @staticmethod
    def lut(x: Any, table: Any, n_luts: int = 1) -> Any:
        if n_luts == 1:
            return _s.lut(_v(x), _v(table))
        return _s.lut_chain(_v(x), _v(table), C.build_int(n_luts, "n_luts"))

    @staticmethod
    def prelu(x: Any, slope: Any) -> Any:
        return _s.prelu(_v(x), _v(slope))

    @staticmethod
    def fma(a: Any, b: Any, c: Any) -> Any:
        return _s.fma(_v(a), _v(b), _v(c))

    dpu_fma = fma

    @staticmethod
    def add_reduce(x: Any) -> Any:
        return _s.add_reduce(_v(x))

    @staticmethod
    def max_reduce(x: Any) -> Any:
        return _s.max_reduce(_v(x))

    @staticmethod
    def min_reduce(x: Any) -> Any:
        return _s.min_reduce(_v(x))

    @staticmethod
    def dpu_reduce(x: Any, op: Any) -> Any:
        """Across the 64 lanes by ``op`` ("add", "max" or "min"; an enum's name too), broadcast back
        (§7): what add_reduce / max_reduce / min_reduce wrap."""
        return _s.dpu_reduce(_v(x), str(getattr(op, "name", op)).lower())


class _Dpu:
    ops = _DpuOps()


dpu = _Dpu()
