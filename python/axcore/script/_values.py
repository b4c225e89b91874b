"""Conversions between Python values and the builder's, and the operators the builder's handles
get in Python (``buf[i, j]``, ``x * y`` on a register, ``stream.push(reg)``)."""

from __future__ import annotations

from typing import Any, List

from .._native import script as _s


def is_device(v: Any) -> bool:
    """Whether ``v`` is a device-time value (an expression, or a register read as one)."""
    return isinstance(v, (_s.Value, _s.Reg))


def value(v: Any) -> "_s.Value":
    """``v`` as a builder expression: a register is read, a Python int is an immediate, a Python
    float a float32 immediate; anything else is refused at the statement's line."""
    if isinstance(v, _s.Value):
        return v
    if isinstance(v, _s.Reg):
        return v.read()
    if isinstance(v, bool):
        return _s.Value(int(v))
    if isinstance(v, int):
        return _s.Value(v)
    if isinstance(v, float):
        return _s.float32(v)
    if hasattr(v, "__index__") and not isinstance(v, (_s.BufferHandle, _s.Stream)):
        return _s.Value(int(v))
    if v is None:
        _s.fail("a name bound to Python None is used as a value",
                "bind a real buffer or value (the parser reads both arms of an if, §4.2, §14)")
    _s.fail(f"a {type(v).__name__} is not an AxScript value here",
            "a buffer element, a stream pop, a register, a loop variable or a build-time number")
    raise AssertionError("unreachable")


def indices(key: Any) -> List["_s.Value"]:
    """A subscript as the builder's index list: ``a:b`` is ``A.slice(a, b)``, a tuple spreads
    (``buf[loop_vars]`` with the tuple of ``A.grid(..., always_tuple=True)``)."""
    items = key if isinstance(key, tuple) else (key,)
    out: List[_s.Value] = []
    for k in items:
        if isinstance(k, tuple):
            out.extend(indices(k))
        elif isinstance(k, slice):
            if k.step not in (None, 1):
                _s.fail("a slice with a step is not a buffer index", "A.Ramp(base, step, lanes)")
            if k.start is None or k.stop is None:
                _s.fail("a buffer slice needs both bounds", "buf[a:b]")
            out.append(_s.slice(value(k.start), value(k.stop)))
        else:
            out.append(value(k))
    return out


def _buffer_getitem(self: "_s.BufferHandle", key: Any) -> "_s.Value":
    return self.load(indices(key))


def _buffer_setitem(self: "_s.BufferHandle", key: Any, v: Any) -> None:
    self.store(indices(key), value(v))


def _reg_getitem(self: "_s.Reg", key: Any) -> "_s.Value":
    idx = indices(key)
    if len(idx) != 1:
        _s.fail(f"register file {self.name} takes one index, got {len(idx)}")
    return self.load(idx[0])


def _reg_setitem(self: "_s.Reg", key: Any, v: Any) -> None:
    idx = indices(key)
    if len(idx) != 1:
        _s.fail(f"register file {self.name} takes one index, got {len(idx)}")
    self.store(idx[0], value(v))


def _acc_getitem(self: "_s.Acc", key: Any) -> "_s.Value":
    return self.load(indices(key)[0])


def _binop(name: str):
    def op(self: Any, other: Any) -> Any:
        return getattr(value(self), name)(value(other))
    op.__name__ = name
    return op


def _push(self: "_s.Stream", v: Any) -> None:
    if isinstance(v, _s.Acc):
        _s.Stream._native_push(self, v)
    else:
        _s.Stream._native_push(self, value(v))


def install() -> None:
    """Give the builder's handles their Python spellings (once)."""
    if getattr(_s.BufferHandle, "_axcore_installed", False):
        return
    _s.BufferHandle.__getitem__ = _buffer_getitem
    _s.BufferHandle.__setitem__ = _buffer_setitem
    _s.Reg.__getitem__ = _reg_getitem
    _s.Reg.__setitem__ = _reg_setitem
    _s.Acc.__getitem__ = _acc_getitem
    _s.Acc.__setitem__ = lambda self, key, v: _acc_getitem(self, key)
    for name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__floordiv__",
                 "__mod__", "__lt__", "__le__", "__gt__", "__ge__", "__and__"):
        setattr(_s.Reg, name, _binop(name))
    _s.Reg.__neg__ = lambda self: -value(self)
    _s.Stream._native_push = _s.Stream.push
    _s.Stream.push = _push
    _s.BufferHandle._axcore_installed = True
