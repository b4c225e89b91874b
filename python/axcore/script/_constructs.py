"""The descriptors the parser reads: a with-block (``with A.IFD(num=0):``) and a device loop
(``for i in A.grid(8):``) evaluate to one of these, and the parser turns it into builder calls.
Outside a parsed region they do nothing but say so."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence

from .._native import script as _s


@dataclass
class Block:
    """A with-block of the language: ``kind`` is the construct, ``args`` its arguments."""

    kind: str
    args: Dict[str, Any] = field(default_factory=dict)

    def __enter__(self) -> "Block":
        _s.fail(f"with A.{self.kind}(...) is a construct of a parsed region",
                "write it in an @A.prim_func body or inside `with A.script():`")
        return self

    def __exit__(self, *exc: Any) -> bool:  # pragma: no cover - __enter__ raises
        return False


@dataclass
class Loops:
    """A device loop nest: ``kind`` serial / grid / unroll, one (start, extent) per level."""

    kind: str
    starts: List[int]
    extents: List[int]
    always_tuple: bool = False

    def __iter__(self):  # noqa: D401 - the error is the point
        _s.fail(f"A.{self.kind}(...) is a device loop: iterate it in a parsed region",
                "for i in A.grid(n): inside an @A.prim_func body or `with A.script():`; "
                "use range(n) for a build-time loop outside it")
        return iter(())


def build_int(v: Any, what: str) -> int:
    """A build-time integer (a loop extent, a size); a device value is refused at the line."""
    if isinstance(v, bool) or not isinstance(v, int):
        if hasattr(v, "__index__") and not isinstance(v, (_s.Value, _s.Reg)):
            return int(v)
        _s.fail(f"{what} must be a build-time integer, got {type(v).__name__}",
                "compute it in Python (shapes are static, §4); coerce an Arg with int(...)")
    return int(v)


def extents(args: Sequence[Any], what: str) -> List[int]:
    return [build_int(a, what) for a in args]


def optional_int(v: Optional[Any], default: int, what: str) -> int:
    return default if v is None else build_int(v, what)
