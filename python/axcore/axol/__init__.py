"""AXOL, the operator library (guide §4.3): ``from axcore import axol``.

``axol.atomic.mul(inp, 2.0)``, ``axol.core.dw_convolution_2d(...)``, ``axol.aten.permute(x,
dims=(0, 2, 3, 1))``: every operator of the C++ library (``axc ops`` lists them with their
arguments), called with the guide's positional and keyword forms inside a parsed region. An
operator registered from Python (:func:`axcore.compiler.op_registry.register_op`) joins its
level's namespace.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List

from .._errors import CompileError
from .._native import ops as _ops
from .._native import script as _s
from ..script import _parser as _P

__all__ = ["atomic", "core", "aten", "describe"]


def _call_native(full: str) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        if _P.current() is None:
            _s.fail(f"axol.{full}(...) is called outside a parsed region",
                    "call it in an @A.prim_func body or a with A.script(): block")
        # The C++ library binds the call as the guide writes it: axol.atomic.mul(inp, 2.0) (a
        # number in a tensor argument's place is its scalar), output=, id=, core=, where=.
        return _ops.invoke(full, list(args), dict(kwargs), _P.name_hint())
    call.__name__ = full.split(".")[-1]
    call.__qualname__ = "axol." + full
    return call


class _Level:
    """One level of the library: ``axol.atomic``, ``axol.core`` or ``axol.aten``."""

    def __init__(self, level: str) -> None:
        self._level = level
        self._ops: Dict[str, Callable[..., Any]] = {}
        self._docs: Dict[str, str] = {}

    def _add(self, name: str, fn: Callable[..., Any], doc: str = "") -> None:
        fn.__doc__ = doc or fn.__doc__
        self._ops[name] = fn

    def __getattr__(self, name: str) -> Callable[..., Any]:
        ops = self.__dict__.get("_ops", {})
        if name in ops:
            return ops[name]
        raise AttributeError(f"axol.{self.__dict__.get('_level', '?')} has no operator {name!r} "
                             f"(it has: {', '.join(sorted(ops))})")

    def __dir__(self) -> List[str]:
        return sorted(self._ops)


atomic = _Level("atomic")
core = _Level("core")
aten = _Level("aten")
_LEVELS = {"atomic": atomic, "core": core, "aten": aten}

for _name, _level, _doc, _args in _ops.registry():
    _lv, _short = _name.split(".", 1)
    _sig = ", ".join(f"{a[0]}{'' if a[2] else '=...'}" for a in _args)
    _LEVELS[_lv]._add(_short, _call_native(_name), f"axol.{_name}({_sig}): {_doc}")


def describe() -> str:
    """Every operator with its arguments (what ``axc ops`` prints)."""
    return _ops.describe()


class DwpuPoolType:
    """``axol.core.DwpuPoolType``: the pool kinds of ``dwpu_pool``."""

    MAX, AVERAGE, SUM, MIN = "MAX", "AVERAGE", "SUM", "MIN"


core._add("DwpuPoolType", DwpuPoolType)  # type: ignore[arg-type]
