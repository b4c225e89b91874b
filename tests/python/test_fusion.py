"""§12 fusion from Python: ``with A.fuse():`` and ``with A.prevent_fuse():`` as the guide writes
them, around operator calls (a linear with bias and ReLU, then a re-quantize). The fused program
runs the quantize in the linear's DPU epilogue (no DWPU datapath, the float32 intermediate never
written) and equals the reference (the ref backend) on fsim, TLM and RTL; the prevented one keeps
the two datapaths; a strict group that cannot fuse is refused at the ``with A.fuse`` line."""
import numpy as np
import pytest

import axcore.script as A
from axcore import axol, runtime

BACKENDS = ["fsim", "tlm", "rtl"]
W = [float((i * 7 + 13) % 7 - 3) for i in range(128 * 128)]
B = [float((i * 11 + 26) % 81 - 40) for i in range(128)]


def linear_then_quantize(region):
    """x -> core.linear (+ bias, ReLU) -> atomic.quantize inside ``with region():``."""
    @A.ir_module
    class LinearQuantize:
        @A.prim_func
        def main(x: A.Buffer((8, 2), "int8x64", scope=A.DDR)):
            w = A.alloc_constant(W, dtype="int8x64", shape=(128, 2), scope=A.DDR)
            b = A.alloc_constant(B, dtype="float32x64", shape=(2,), scope=A.DDR)
            with region():
                h = axol.core.linear(x, w, bias=b, activation="relu")
                q = axol.atomic.quantize(h, scale=8.0)
            A.output(q)
    return LinearQuantize


Fused = linear_then_quantize(A.fuse)              # with A.fuse():  (strict=True, the default)
Prevented = linear_then_quantize(A.prevent_fuse)  # with A.prevent_fuse():


def inputs():
    return {"x": np.random.default_rng(5).integers(-128, 128, (8, 128)).astype(np.int8)}


@pytest.mark.parametrize("backend", BACKENDS)
def test_fuse_and_prevent_fuse_run_bit_exact(backend):
    fused, apart = runtime.compile(Fused, explain=True), runtime.compile(Prevented, explain=True)
    assert "fused: atomic.quantize" in fused.explain  # what axc compile --explain prints
    assert "inside A.prevent_fuse()" in apart.explain
    want = runtime.run(fused, backend="ref", inputs=inputs()).outputs
    for b in (fused, apart):
        res = runtime.run(b, backend=backend, inputs=inputs())
        for name, arr in want.items():
            np.testing.assert_array_equal(res.outputs[name], arr)
    if backend != "fsim":  # the quantize's DWPU task and its L1 traffic are gone
        assert runtime.run(fused, backend=backend, inputs=inputs()).cycles < \
            runtime.run(apart, backend=backend, inputs=inputs()).cycles


def test_a_strict_group_that_stays_apart_is_refused_at_its_line():
    with pytest.raises(A.CompileError) as e:
        @A.ir_module
        class Apart:
            @A.prim_func
            def main(x: A.Buffer((4, 2), "int8x64", scope=A.DDR)):
                w1 = A.alloc_constant(W, dtype="int8x64", shape=(128, 2), scope=A.DDR)
                w2 = A.alloc_constant(W[:128 * 64], dtype="int8x64", shape=(128, 1), scope=A.DDR)
                with A.fuse():
                    h = axol.core.linear(x, w1)
                    q = axol.atomic.quantize(h, scale=4.0)
                    A.output(axol.core.linear(q, w2))

        runtime.compile(Apart)
    assert "A.fuse(strict=True)" in str(e.value)
    assert "test_fusion.py" in str(e.value)  # at the user's line, not in the compiler
