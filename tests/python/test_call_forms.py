"""The guide's operator call forms from Python (docs/axscript.md, "Operator call forms"): each
program is compiled and run on ref and TLM and compared with an independent NumPy computation of
what the guide says the call computes. The binding is the C++ library's (ops::invoke); these
check that the Python front end hands it the guide's spellings."""
import numpy as np
import pytest

import axcore.script as A
from axcore import axol, runtime
from axcore.compiler.interpreter import emulation as emu

BACKENDS = ["ref", "tlm"]


@A.ir_module
class ScalarForms:  # Part II §2: atomic.mul(inp, 2.0); the same number by name and through aten
    @A.prim_func
    def main(inp: A.Buffer((8, 1), "float32x64", scope=A.DDR)):
        a = axol.atomic.mul(inp, 2.0)
        b = axol.atomic.mul(inp, other=2.0)
        c = axol.aten.mul_tensor(inp, 2)
        A.output(a)
        A.output(b)
        A.output(c)


@pytest.mark.parametrize("backend", BACKENDS)
def test_scalar_in_the_tensor_arguments_place(backend):
    x = np.random.default_rng(1).uniform(-100, 100, (8, 64)).astype(np.float32)
    b = runtime.compile(ScalarForms)
    res = runtime.run(b, backend=backend, inputs={"inp": x})
    assert backend == "ref" or res.cycles > 0
    for o in b.outputs:
        np.testing.assert_array_equal(res.outputs[o.name], emu.rf18(emu.rf18(x) * 2.0))


@A.ir_module
class Stages:  # §11.2 / §12: a zero fill of the output's own shape, gated in-place adds with ids
    @A.prim_func
    def main(x: A.Buffer((2, 1), "float32x64", scope=A.DDR)):
        acc = A.alloc_buffer((2, 1), "float32x64")
        axol.atomic.full((2, 1), 0.0, output=acc)
        for step in (0, 1, 2, 3):  # a build-time loop (a tuple): step is a Python int
            axol.atomic.add(acc, x, output=acc, id="add", where=step != 2)
            A.waits("add")
        A.output(acc)


@pytest.mark.parametrize("backend", BACKENDS)
def test_output_where_and_id(backend):
    x = np.random.default_rng(2).uniform(-8, 8, (2, 64)).astype(np.float32)
    b = runtime.compile(Stages)
    assert [n["op"] for n in b.graph] == ["copy", "add", "add", "add"]  # the fill, three of four adds
    res = runtime.run(b, backend=backend, inputs={"x": x})
    assert backend == "ref" or res.cycles > 0
    want = np.zeros_like(x)
    for _ in range(3):
        want = emu.rf18(emu.rf18(want) + emu.rf18(x))
    np.testing.assert_array_equal(res.outputs["acc"], want)


M, K, N, KT = 4, 256, 64, 128
W = np.random.default_rng(3).integers(-4, 5, (K, N)).astype(np.int8)


@A.ir_module
class SplitK:  # §11.2: load_imc(src, imc) and atomic.matmul(matrix_ifd=, matrix_imc=, partial=, output=)
    @A.prim_func
    def main(x: A.Buffer((M, K // 64), "int8x64", scope=A.DDR)):
        c = A.alloc_buffer((M, N // 64), "float32x64")
        axol.atomic.full((M, N // 64), 0.0, output=c)
        for k0 in (0, KT):
            xk = axol.atomic.slice_tensor(x, dim=-1, start=k0, end=k0 + KT)
            wk = A.alloc_constant(W[k0:k0 + KT].ravel().tolist(), "int8x64", scope=A.DDR, shape=(KT, N // 64))
            imc = A.alloc_imc((KT // 64, N // 64))
            axol.atomic.load_imc(wk, imc)
            axol.atomic.matmul(matrix_ifd=xk, matrix_imc=imc, partial=c, output=c)
        A.output(c)


@pytest.mark.parametrize("backend", BACKENDS)
def test_split_k_matmul_with_partial(backend):
    x = np.random.default_rng(4).integers(-20, 21, (M, K)).astype(np.int8)
    res = runtime.run(runtime.compile(SplitK), backend=backend, inputs={"x": x})
    assert backend == "ref" or res.cycles > 0
    want = np.zeros((M, N), np.float32)
    for k0 in (0, KT):
        p = x[:, k0:k0 + KT].astype(np.int64) @ W[k0:k0 + KT].astype(np.int64)
        want = emu.rf18(emu.rf18(want) + emu.rf18(p.astype(np.float32)))
    np.testing.assert_array_equal(res.outputs["c"], want)


@A.ir_module
class PackedReshape:  # §13: aten.reshape(b2, shape=(1, N_PATCHES, HIDDEN_BLOCKS)), the buffer's shape
    @A.prim_func
    def main(b2: A.Buffer((1, 2, 3, 2), "float32x64", scope=A.DDR)):
        b3 = axol.aten.reshape(b2, shape=(1, 6, 2))
        A.output(axol.atomic.copy(b3))


def test_reshape_takes_the_guides_packed_shape():
    x = np.random.default_rng(5).uniform(-1, 1, (1, 2, 3, 128)).astype(np.float32)
    b = runtime.compile(PackedReshape)
    assert list(b.outputs[0].shape) == [1, 6, 128]
    res = runtime.run(b, backend="ref", inputs={"b2": x})
    np.testing.assert_array_equal(res.outputs[b.outputs[0].name], x.reshape(1, 6, 128))


@A.ir_module
class OnCores:  # §6 / §12: core= places a call on a core (the call inside A.AICore(core=n))
    @A.prim_func
    def main(x: A.Buffer((4, 1), "float32x64", scope=A.DDR), y: A.Buffer((4, 1), "float32x64", scope=A.DDR)):
        A.output(axol.atomic.mul(x, 2.0, core=1))
        A.output(axol.atomic.add(y, 1.0, core=0))


@pytest.mark.parametrize("backend", BACKENDS)
def test_core_places_the_call(backend):
    rng = np.random.default_rng(6)
    ins = {"x": rng.uniform(-9, 9, (4, 64)).astype(np.float32), "y": rng.uniform(-9, 9, (4, 64)).astype(np.float32)}
    b = runtime.compile(OnCores, cores=2, explain=True)
    lines = b.explain.splitlines()
    assert any("core1 DWPU" in ln and "(atomic.mul)" in ln for ln in lines), b.explain
    assert any("core0 DWPU" in ln and "(atomic.add)" in ln for ln in lines), b.explain
    res = runtime.run(b, backend=backend, inputs=ins, cores=2)
    mul, add = (o.name for o in b.outputs)
    np.testing.assert_array_equal(res.outputs[mul], emu.rf18(emu.rf18(ins["x"]) * 2.0))
    np.testing.assert_array_equal(res.outputs[add], emu.rf18(emu.rf18(ins["y"]) + 1.0))


def _dpu_cast_program():
    """§4.3's AtomicDpuCast called with a given output: an int8 buffer, and a BufferInfo it is
    allocated from; the output's dtype picks the cast (the guide's `self.output.dtype`)."""
    from dpu_cast_op import dpu_cast
    from axcore.compiler.op_registry import BufferInfo

    @A.ir_module
    class CastInto:
        @A.prim_func
        def main(inp: A.Buffer((4, 2), "float32x64", scope=A.DDR)):
            q = A.alloc_buffer((4, 2), "int8x64")
            dpu_cast(inp, q)                                              # output by position (declared second)
            h = dpu_cast(inp, output=BufferInfo((4, 2), "float16x64", "L1_WEAK"))
            A.output(q)
            A.output(h)
    return CastInto


@pytest.mark.parametrize("backend", BACKENDS)
def test_scriptop_output_given(backend):
    x = np.random.default_rng(7).uniform(-300, 300, (4, 128)).astype(np.float32)
    b = runtime.compile(_dpu_cast_program())
    res = runtime.run(b, backend=backend, inputs={"inp": x})
    q, h = (o.name for o in b.outputs)
    np.testing.assert_array_equal(res.outputs[q], np.clip(np.round(emu.rf18(x)), -128, 127).astype(np.int8))
    np.testing.assert_array_equal(res.outputs[h], emu.rf18(x).astype(np.float16))
