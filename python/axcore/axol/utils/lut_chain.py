"""The guide's LUT table builders (§7): ``compute_chained_lut_params`` fits ``n_luts`` chained
piecewise-linear tables of ``func`` over ``[x_min, x_max]`` (common/num's fit, the one the
operator library uses), ``pack_lut_params_to_pword`` gives one table as the float32x64 PWORD that
``A.alloc_constant`` holds and ``A.dpu.ops.lut`` reads::

    params = compute_chained_lut_params(x_min=0.0, x_max=8.0, n_luts=1, func=np.exp)
    table = A.alloc_constant(pack_lut_params_to_pword(params[0]), dtype="float32x64", scope=A.DDR)
"""

from __future__ import annotations

from typing import Callable, List

import numpy as np

from ..._native import runtime as _rt


class LutParams:
    """One fitted table (x_min, 1/step, 31 slope/offset pairs), kept in its packed PWORD form."""

    __slots__ = ("pword",)

    def __init__(self, pword: np.ndarray) -> None:
        self.pword = pword

    def __repr__(self) -> str:
        return f"LutParams(x_min={self.pword[0, 0]}, inv_step={self.pword[0, 1]})"


def compute_chained_lut_params(x_min: float, x_max: float, n_luts: int, func: Callable[[float], float]) -> List[LutParams]:
    """The ``n_luts`` tables (1..8) of ``func`` over ``[x_min, x_max]``; ValueError on a bad range."""
    return [LutParams(np.asarray(p, np.float32).reshape(1, 64))
            for p in _rt.lut_fit(float(x_min), float(x_max), int(n_luts), lambda v: float(func(v)))]


def pack_lut_params_to_pword(params: LutParams) -> np.ndarray:
    """The table as one float32x64 PWORD, shape (1, 64), for ``A.alloc_constant``."""
    return params.pword.copy()
