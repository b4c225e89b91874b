"""Argument types of an operator (guide §4.3): ``Int8x64[tir.Buffer, "..."]`` admits an int8x64
buffer of any shape, a union (``|``) admits each member, a shape string other than "..." fixes
the rank and extents ("1" is a single-element buffer)."""

from __future__ import annotations

from typing import Any, FrozenSet, Optional, Tuple


class TensorSpec:
    """What a tensor argument admits: dtypes, and shapes ("..." is any)."""

    def __init__(self, dtypes: FrozenSet[str], shapes: Tuple[str, ...], other: Tuple[Any, ...] = ()) -> None:
        self.dtypes = dtypes
        self.shapes = shapes
        self.other = other  # non-tensor members of a union (BufferInfo, None)

    def __or__(self, other: Any) -> "TensorSpec":
        if isinstance(other, TensorSpec):
            return TensorSpec(self.dtypes | other.dtypes, self.shapes + other.shapes, self.other + other.other)
        return TensorSpec(self.dtypes, self.shapes, self.other + (other,))

    __ror__ = __or__

    def admits(self, dtype: str, shape: Tuple[int, ...]) -> Optional[str]:
        """None when a buffer of ``dtype`` and ``shape`` is admitted, else why not."""
        if dtype not in self.dtypes:
            return f"dtype {dtype} is not one of {', '.join(sorted(self.dtypes))}"
        if "..." in self.shapes:
            return None
        want = [tuple(int(x) for x in s.replace(" ", "").split(",") if x) for s in self.shapes]
        if tuple(shape) not in want:
            return f"shape {tuple(shape)} is not one of {', '.join(str(w) for w in want)}"
        return None

    def __repr__(self) -> str:
        return f"TensorSpec({sorted(self.dtypes)}, {self.shapes})"


class _DtypeClass(type):
    def __getitem__(cls, item: Any) -> TensorSpec:
        shape = item[1] if isinstance(item, tuple) and len(item) > 1 else "..."
        return TensorSpec(frozenset({cls.dtype}), (str(shape),))


class Int8x64(metaclass=_DtypeClass):
    dtype = "int8x64"


class Int32x64(metaclass=_DtypeClass):
    dtype = "int32x64"


class Float16x64(metaclass=_DtypeClass):
    dtype = "float16x64"


class Float32x64(metaclass=_DtypeClass):
    dtype = "float32x64"


class Float18x64(metaclass=_DtypeClass):
    dtype = "float18x64"
