"""The two ``tir`` names the guide's programs use: ``tir.Buffer`` in an argument type
(``Int8x64[tir.Buffer, "..."]``) and ``tir.all`` in an IFD guard (§8.3)."""

from __future__ import annotations

from typing import Any

from ._native import script as _s
from .script._values import value as _v


class Buffer:
    """A buffer, as an argument type's first parameter."""


def all(*conds: Any) -> Any:  # noqa: A001 - tir's name
    """Every condition holds (a device predicate)."""
    return _s.all([_v(c) for c in conds])
