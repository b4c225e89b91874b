"""Operators authored in Python (guide §4.3): subclass :class:`ScriptOp`, declare :class:`Arg`
fields, implement ``validate`` / ``infer_outputs`` / ``implementation`` / ``emulate``, and
:func:`register_op` it.

The C++ operator library binds the call (positional then keyword arguments, defaults, kinds),
then calls back: ``validate`` (an :class:`~axcore.axol.common.UnsupportedError` becomes a
CompileError at the call), ``infer_outputs`` (the output is allocated from it), and
``implementation`` (its ``with A.script():`` block is parsed into the caller's function). The
call's reference is a graph node the ``ref`` backend runs through ``emulate`` in NumPy.
"""

from __future__ import annotations

import enum
import types
import typing
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Type, Union

from .._native import ops as _ops
from .._native import script as _s
from ..axol.common import UnsupportedError
from .dtypes import TensorSpec

__all__ = ["Arg", "BufferInfo", "ScriptOp", "register_op", "registered"]

_REQUIRED = object()


@dataclass
class BufferInfo:
    """What an output is: packed shape, dtype ("float32x64"), scope (a buffer's ``scope()``)."""

    shape: Tuple[int, ...]
    dtype: str
    scope: str = "L1_WEAK"


class Arg:
    """One argument of a ScriptOp.

    Parameters
    ----------
    spec
        The type: a tensor spec (``Int8x64[tir.Buffer, "..."] | Float32x64[...]``), ``int``,
        ``float``, ``bool``, ``str``, an Enum, a union with ``None``.
    default
        The value when not passed; without one the argument is required.
    kw : bool
        Keyword-only: passed by name only (``dpu_cast(x, core=0)``, not ``dpu_cast(x, 0)``).
    is_output : bool
        The output: allocated from ``infer_outputs()`` under this argument's name.
    description : str
    """

    def __init__(self, spec: Any, default: Any = _REQUIRED, kw: bool = False, is_output: bool = False,
                 description: str = "") -> None:
        self.spec = spec
        self.default = default
        self.kw = kw
        self.is_output = is_output
        self.description = description
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, inst: Any, owner: Optional[type] = None) -> Any:
        if inst is None:
            return self
        return inst.__dict__.get(self.name, None if self.default is _REQUIRED else self.default)

    @property
    def required(self) -> bool:
        return self.default is _REQUIRED

    def kind(self) -> str:
        """The C++ library's argument kind ("tensor", "int", ...)."""
        members = _members(self.spec)
        if any(isinstance(m, TensorSpec) for m in members):
            return "tensor"
        for py, k in ((bool, "bool"), (int, "int"), (float, "float"), (str, "string")):
            if py in members:
                return k
        if any(isinstance(m, type) and issubclass(m, enum.Enum) for m in members):
            return "string"
        if any(typing.get_origin(m) in (tuple, list) for m in members) or tuple in members or list in members:
            return "int list"
        raise TypeError(f"Arg {self.name}: cannot tell the kind of {self.spec!r}")


def _members(spec: Any) -> List[Any]:
    if isinstance(spec, types.UnionType) or typing.get_origin(spec) is Union:
        return [m for a in typing.get_args(spec) for m in _members(a)]
    if isinstance(spec, TensorSpec):
        return [spec] + list(spec.other)
    return [spec]


class ScriptOp:
    """The base of an operator authored in Python. Subclasses declare :class:`Arg` fields and
    implement ``validate``, ``infer_outputs``, ``implementation`` and ``emulate``."""

    def validate(self) -> None:
        """Raise UnsupportedError when the bound arguments are not supported."""

    def infer_outputs(self) -> Dict[str, BufferInfo]:
        """Per output argument, the BufferInfo of the buffer to allocate."""
        raise NotImplementedError

    def implementation(self) -> None:
        """Emit the operator's datapaths (a ``with A.script():`` block)."""
        raise NotImplementedError

    def emulate(self) -> None:
        """The NumPy reference: read the tensor arguments (arrays, lanes as the last axis), write
        the output array in place."""
        raise NotImplementedError

    @classmethod
    def _args(cls) -> List[Arg]:
        out: List[Arg] = []
        for klass in reversed(cls.__mro__):
            for v in vars(klass).values():
                if isinstance(v, Arg) and v not in out:
                    out.append(v)
        return out


_REGISTRY: Dict[str, Type[ScriptOp]] = {}


def registered(name: str) -> Type[ScriptOp]:
    """The ScriptOp class registered as ``name`` ("atomic.dpu_cast"; "axol." optional)."""
    key = name[len("axol."):] if name.startswith("axol.") else name
    if key not in _REGISTRY:
        raise KeyError(f"no operator {name!r} is registered from Python in this process "
                       f"(import the module that registers it; registered: {', '.join(sorted(_REGISTRY))})")
    return _REGISTRY[key]


def _plain(v: Any) -> Any:
    if isinstance(v, enum.Enum):
        return v.value
    if isinstance(v, tuple):
        return list(v)
    return v


def _instance(cls: Type[ScriptOp], args: Dict[str, Any]) -> ScriptOp:
    inst = cls.__new__(cls)
    for k, v in args.items():
        inst.__dict__[k] = v
    return inst


def register_op(cls: Type[ScriptOp], name: str, generation: Any = None, atomic: bool = False) -> Callable[..., Any]:
    """Register ``cls`` as the operator ``name`` ("axol.atomic.<name>") and return the callable
    used inside a parsed region (``dpu_cast(x, core=0)``); it also joins ``axol.<level>``.

    Parameters
    ----------
    cls : ScriptOp subclass
    name : str
        "axol.<level>.<name>", level atomic / core / aten.
    generation : HardwareGeneration or list of them, optional
        The targets it is registered for (this compiler builds for one).
    atomic : bool
        A single-datapath primitive.
    """
    full = name[len("axol."):] if name.startswith("axol.") else name
    level, _, short = full.partition(".")
    if level not in ("atomic", "core", "aten") or not short:
        raise ValueError(f"register_op: name {name!r} is not axol.<atomic|core|aten>.<name>")
    if atomic and level != "atomic":
        raise ValueError(f"register_op: {name} is atomic=True but not in axol.atomic")
    args = cls._args()
    outputs = [a for a in args if a.is_output]
    if len(outputs) != 1:
        raise TypeError(f"{cls.__name__}: declare exactly one Arg(..., is_output=True), found {len(outputs)}")
    out_arg = outputs[0]
    # Every argument in declaration order, the output too: positional arguments bind in that order
    # (the output where it is declared), kw=True ones by name only (the C++ library's binding).
    specs = [(a.name, a.kind(), a.required, None if a.required else _plain(a.default), a.description, a.kw,
              a.is_output) for a in args]

    tensor_specs = [(a, [m for m in _members(a.spec) if isinstance(m, TensorSpec)]) for a in args]
    tensor_specs = [(a, specs) for a, specs in tensor_specs if specs]
    # One instance per call: validate (first) binds it, infer_outputs and implementation (last) get
    # the same one (the C++ side passes them the same dict of arguments).
    current: List[Any] = [None, None]

    def instance(bound: Dict[str, Any]) -> ScriptOp:
        return current[1] if current[0] is bound else _instance(cls, bound)

    def validate(bound: Dict[str, Any]) -> None:
        current[0] = current[1] = None
        for a, specs in tensor_specs:
            v = bound.get(a.name)
            if isinstance(v, _s.BufferHandle):
                dtype, shape = v.dtype, v.shape
                for m in specs:
                    why = m.admits(dtype, shape)
                    if why:
                        _s.fail(f"axol.{full}: argument '{a.name}': {why}", a.description)
        inst = _instance(cls, bound)
        try:
            inst.validate()
        except UnsupportedError as err:
            _s.fail(f"axol.{full}: {err}", "")
        current[0], current[1] = bound, inst

    def infer_output(bound: Dict[str, Any]) -> Tuple[List[int], str, str]:
        infos = instance(bound).infer_outputs()
        if out_arg.name not in infos:
            _s.fail(f"axol.{full}: infer_outputs() has no entry for the output '{out_arg.name}'")
        info = infos[out_arg.name]
        return [int(d) for d in info.shape], str(info.dtype), str(getattr(info.scope, "value", info.scope))

    def implementation(bound: Dict[str, Any], out: Any) -> None:
        inst = instance(bound)
        current[0] = current[1] = None
        inst.__dict__[out_arg.name] = out
        inst.implementation()

    # The callable (``dpu_cast(x, core=0)``) is the extension's (bind_ops.cpp): it refuses a call
    # outside a parsed region and hands the arguments (an Enum by its value, an output given as a
    # BufferInfo allocated from it) to the C++ library's binding: positional in declaration order,
    # keyword-only by name, output= taken as given (else allocated from infer_outputs()), and the
    # call keywords id=, core=, where= the op does not declare itself.
    call = _ops.PyOp(full, level, (cls.__doc__ or "").strip(), specs, validate, infer_output, implementation)
    _REGISTRY[full] = cls
    call.__name__ = short
    call.__qualname__ = f"axol.{full}"
    call.__doc__ = cls.__doc__
    from .. import axol
    getattr(axol, level)._add(short, call, cls.__doc__ or "")
    return call
