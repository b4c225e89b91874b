"""Dispatch-time shapes from Python (issue 24): a bundle compiled with a dispatch-time M (axc
compile examples/models/dispatch_linear.yaml) shows its scalar, binds at a size, runs at several M
equal to the reference graph, and a call whose guard fails is refused with the guard's message."""
import os
import subprocess

import numpy as np
import pytest

from axcore import runtime

MODEL = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "models", "dispatch_linear.yaml")


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("dispatch") / "dl.axb")
    axc = runtime._tool("axc", "AXCORE_AXC", "AXC")
    subprocess.run([axc, "compile", MODEL, "-o", out], check=True, capture_output=True)
    return runtime.load(out)


def test_scalar_and_binding(bundle):
    assert [(s["name"], s["min"], s["max"]) for s in bundle.dispatch_time] == [("M", 1, 64)]
    b = bundle.bind(M=24)
    assert b.dispatch_time == []
    assert b.buffer("x").shape == (24, 128)
    assert b.buffer("y").shape == (24, 64)
    with pytest.raises(ValueError, match="^M must be a multiple of 8$"):
        bundle.bind(M=12)
    with pytest.raises(ValueError, match="M must be in \\[1, 64\\]"):
        bundle.bind(M=80)


@pytest.mark.parametrize("m", [8, 32, 64])
def test_runs_at_each_m(bundle, m):
    x = np.random.default_rng(m).integers(-128, 128, size=(m, 128), dtype=np.int8)
    r = runtime.run(bundle, "ref", {"x": x}, dispatch={"M": m})
    assert r["y"].shape == (m, 64)
    f = runtime.run(bundle, "fsim", {"x": x}, dispatch={"M": m})
    assert np.array_equal(r["y"], f["y"])


def test_failing_guard_is_refused(bundle):
    x = np.zeros((12, 128), dtype=np.int8)
    with pytest.raises(runtime.RunError, match="the call is refused: M must be a multiple of 8"):
        runtime.run(bundle, "ref", {"x": x}, dispatch={"M": 12})
