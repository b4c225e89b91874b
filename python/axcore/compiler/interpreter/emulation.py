"""NumPy helpers for an operator's ``emulate()`` (guide §4.3): the device's numerics."""

from __future__ import annotations

import numpy as np

from ..._native import runtime as _rt


def rf18(x: np.ndarray) -> np.ndarray:
    """``x`` (float32) rounded to the DPU's float18 precision (common/num's rf18, element-wise).

    Parameters
    ----------
    x : numpy.ndarray
        Any shape; converted to float32 first.

    Returns
    -------
    numpy.ndarray
        float32, the same shape.
    """
    a = np.ascontiguousarray(x, dtype=np.float32)
    return _rt.rf18(a).reshape(a.shape)
