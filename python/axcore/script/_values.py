"""Conversions between Python values and the builder's, and the operators the builder's handles
get in Python (``buf[i, j]``, ``x * y`` on a register, ``stream.push(reg)``)."""

from __future__ import annotations

from typing import Any

from .._native import script as _s


# The builder's handle types, bound once (an attribute of the extension module costs a lookup
# each time; these checks run for every operand the parser builds).
_Value, _Reg = _s.Value, _s.Reg
_DEVICE = (_Value, _Reg)


def is_device(v: Any) -> bool:
    """Whether ``v`` is a device-time value (an expression, or a register read as one)."""
    return isinstance(v, _DEVICE)


def value(v: Any) -> "_s.Value":
    """``v`` as a builder expression: a register is read, a Python int is an immediate, a Python
    float a float32 immediate; anything else is refused at the statement's line (the builder's
    conversion, ``_s.value``; a Value is returned without crossing)."""
    return v if type(v) is _Value else _to_value(v)


_to_value = _s.value

# A subscript as the builder's index list: ``a:b`` is ``A.slice(a, b)``, a tuple spreads
# (``buf[loop_vars]`` with the tuple of ``A.grid(..., always_tuple=True)``). The buffer's and the
# register file's ``[]`` are the builder's own (bind_script.cpp), with this conversion.
indices = _s.indices


def _binop(name: str):
    def op(self: Any, other: Any) -> Any:
        return getattr(value(self), name)(value(other))
    op.__name__ = name
    return op


def install() -> None:
    """Give the builder's handles their Python spellings (once)."""
    if getattr(_s.BufferHandle, "_axcore_installed", False):
        return
    for name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__floordiv__",
                 "__mod__", "__lt__", "__le__", "__gt__", "__ge__", "__and__"):
        setattr(_s.Reg, name, _binop(name))
    _s.Reg.__neg__ = lambda self: -value(self)
    _s.BufferHandle._axcore_installed = True
