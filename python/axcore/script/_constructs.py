"""The descriptors the parser reads: a with-block (``with A.IFD(num=0):``) and a device loop
(``for i in A.grid(8):``) evaluate to one of these, and the parser turns it into builder calls.
Outside a parsed region they do nothing but say so."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

from .._native import script as _s


class Block:
    """A with-block of the language: ``kind`` is the construct, ``args`` its arguments."""

    __slots__ = ("kind", "args")

    def __init__(self, kind: str, args: Optional[Dict[str, Any]] = None) -> None:
        self.kind = kind
        self.args = {} if args is None else args

    def __repr__(self) -> str:
        return f"Block({self.kind!r}, {self.args!r})"

    def __enter__(self) -> "Block":
        _s.fail(f"with A.{self.kind}(...) is a construct of a parsed region",
                "write it in an @A.prim_func body or inside `with A.script():`")
        return self

    def __exit__(self, *exc: Any) -> bool:  # pragma: no cover - __enter__ raises
        return False


class Loops:
    """A device loop nest: ``kind`` serial / grid / unroll, one (start, extent) per level."""

    __slots__ = ("kind", "starts", "extents", "always_tuple")

    def __init__(self, kind: str, starts: List[int], extents: List[int], always_tuple: bool = False) -> None:
        self.kind = kind
        self.starts = starts
        self.extents = extents
        self.always_tuple = always_tuple

    def __repr__(self) -> str:
        return f"Loops({self.kind!r}, {self.starts!r}, {self.extents!r})"

    def __iter__(self):  # noqa: D401 - the error is the point
        _s.fail(f"A.{self.kind}(...) is a device loop: iterate it in a parsed region",
                "for i in A.grid(n): inside an @A.prim_func body or `with A.script():`; "
                "use range(n) for a build-time loop outside it")
        return iter(())


def build_int(v: Any, what: str) -> int:
    """A build-time integer (a loop extent, a size); a device value is refused at the line."""
    if type(v) is int:
        return v
    if isinstance(v, bool) or not isinstance(v, int):
        if hasattr(v, "__index__") and not isinstance(v, (_s.Value, _s.Reg)):
            return int(v)
        _s.fail(f"{what} must be a build-time integer, got {type(v).__name__}",
                "compute it in Python (shapes are static, §4); coerce an Arg with int(...)")
    return int(v)


def extents(args: Sequence[Any], what: str) -> List[int]:
    out = list(args)
    for k, a in enumerate(out):
        if type(a) is not int:
            out[k] = build_int(a, what)
    return out


def optional_int(v: Optional[Any], default: int, what: str) -> int:
    return default if v is None else build_int(v, what)
