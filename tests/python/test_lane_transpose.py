"""The lane transpose (A.vtrsp, guide §8.4) on every backend against NumPy: the guide's spelling in
a datapath written out, and the operators that move the PWORD-packed axis through it
(aten.permute, atomic.transpose) for int8 and float32."""
import numpy as np
import pytest

import axcore.script as A
from axcore import axol, runtime
from axcore.script import CompileError

BACKENDS = ["ref", "fsim", "tlm", "rtl"]


@A.ir_module
class Vtrsp:
    @A.prim_func
    def main(inp: A.Buffer((64, 2), "int8x64", scope=A.DDR)):
        out = A.alloc_buffer((128, 1), "int8x64", scope=A.DDR)
        for b, t in A.grid(2, 64):
            with A.Datapath():                       # no MatMul: DP_DWPU, where A.vtrsp lives
                s = A.decl_stream("int8x64")
                with A.IFD(num=0):
                    s.push(inp[t, b])
                with A.ODR():
                    out[b * 64 + t, 0] = A.vtrsp(s.pop())
        A.output(out)


@A.ir_module
class PermuteNchw:
    @A.prim_func
    def main(x: A.Buffer((1, 64, 6, 2), "int8x64", scope=A.DDR)):   # NCHW, W packed
        A.output(axol.aten.permute(x, dims=(0, 2, 3, 1)))          # NHWC, C packed


@A.ir_module
class TransposeF32:
    @A.prim_func
    def main(k: A.Buffer((128, 3), "float32x64", scope=A.DDR)):
        A.output(axol.atomic.transpose(k, -1, -2))


def _run(mod, ins, backend):
    b = runtime.compile(mod)
    res = runtime.run(b, backend=backend, inputs=ins)
    return res.outputs[b.outputs[0].name] if b.outputs[0].name in res.outputs else next(iter(res.outputs.values()))


@pytest.mark.parametrize("backend", ["fsim", "tlm", "rtl"])  # no operator: no graph for ref
def test_vtrsp_datapath(backend):
    x = np.random.default_rng(1).integers(-128, 128, (64, 128)).astype(np.int8)
    np.testing.assert_array_equal(_run(Vtrsp, {"inp": x}, backend), x.T)


@pytest.mark.parametrize("backend", BACKENDS)
def test_aten_permute_nchw_to_nhwc(backend):
    x = np.random.default_rng(2).integers(-128, 128, (1, 64, 6, 128)).astype(np.int8)
    np.testing.assert_array_equal(_run(PermuteNchw, {"x": x}, backend), np.transpose(x, (0, 2, 3, 1)))


@pytest.mark.parametrize("backend", BACKENDS)
def test_atomic_transpose_float32(backend):
    k = np.random.default_rng(3).uniform(-1e3, 1e3, (128, 192)).astype(np.float32)
    np.testing.assert_array_equal(_run(TransposeF32, {"k": k}, backend), k.T)


def test_vtrsp_refusals():
    with pytest.raises(CompileError, match="multiple of 64"):
        @A.ir_module
        class Partial:
            @A.prim_func
            def main(inp: A.Buffer((32, 1), "int8x64", scope=A.DDR)):
                out = A.alloc_buffer((32, 1), "int8x64", scope=A.DDR)
                for t in A.grid(32):
                    with A.Datapath():
                        s = A.decl_stream("int8x64")
                        with A.IFD(num=0):
                            s.push(inp[t, 0])
                        with A.ODR():
                            out[t, 0] = A.vtrsp(s.pop())
                A.output(out)
        runtime.compile(Partial)
    with pytest.raises(CompileError, match="multiple of 64"):
        @A.ir_module
        class Odd:
            @A.prim_func
            def main(x: A.Buffer((1, 48, 6, 2), "int8x64", scope=A.DDR)):
                A.output(axol.aten.permute(x, dims=(0, 2, 3, 1)))
        runtime.compile(Odd)
