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


def lut(x: np.ndarray, tables) -> np.ndarray:
    """``A.dpu.ops.lut(x, table)`` as the DPU computes it: ``x`` rounded to float18, evaluated against
    the chained tables (each the packed float32 PWORD of pack_lut_params_to_pword), float32 out."""
    a = np.ascontiguousarray(x, dtype=np.float32)
    packed = [np.asarray(t, np.float32).reshape(64).tolist() for t in tables]
    return _rt.lut_eval(a, packed).reshape(a.shape)
