"""The IMC reuse hazard of tests/python/test_hazards.py run on fsim, the TLM and the RTL: the
device counts the stale tile-ops, ``Result.sticky`` / ``Result.imc_stale_reads`` carry the count
(the same on the three backends, outputs equal), and the program that reloads first reads nothing
stale and computes x · w1 (NumPy; hand-written datapaths have no operator graph for ref)."""
import warnings

import numpy as np
import pytest

from axcore import runtime
from test_hazards import IMC, RELOAD, _load, _write

X = np.random.default_rng(23).integers(-8, 8, (4, 128)).astype(np.int8)
W1 = (np.arange(128 * 64 * 64) % 7 - 3).reshape(128, 64 * 64)  # test_hazards.IMC's w1: K x N
XW1 = (X.astype(np.int64) @ W1).astype(np.int32)


def _bundle(tmp_path, reload, name):
    p = _write(tmp_path, IMC.replace("{reload}", RELOAD if reload else ""), name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", runtime.HazardWarning)
        return runtime.compile(_load(p, name).M)


def test_stale_reads_reach_the_result_on_every_device_backend(tmp_path):
    b = _bundle(tmp_path, False, "imc_run_stale")
    runs = {be: runtime.run(b, backend=be, inputs={"x": X}) for be in ("fsim", "tlm", "rtl")}
    for be, res in runs.items():
        assert res.imc_stale_reads == 4 * 64 * 2, (be, res.sticky)
        assert res.sticky["core0.IMC_STALE_READS"] == 512 and res.sticky["ERROR_STATUS"] == 0, (be, res.sticky)
        np.testing.assert_array_equal(res.outputs[b.outputs[1].name], runs["fsim"].outputs[b.outputs[1].name])
        np.testing.assert_array_equal(res.outputs[b.outputs[0].name], XW1)  # o1: before the hazard
        # o3 reads w1 after w2 ended its residency: what the stale IMC held, not x · w1.
        assert not np.array_equal(res.outputs[b.outputs[1].name], XW1), be


@pytest.mark.parametrize("backend", ["tlm", "rtl"])
def test_reloading_first_reads_nothing_stale(tmp_path, backend):
    b = _bundle(tmp_path, True, f"imc_run_ok_{backend}")
    res = runtime.run(b, backend=backend, inputs={"x": X})
    assert res.imc_stale_reads == 0 and res.sticky["IMC_STALE_READS"] == 0
    for o in b.outputs:
        np.testing.assert_array_equal(res.outputs[o.name], XW1)
