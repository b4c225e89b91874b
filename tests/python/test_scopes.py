"""Memory scopes (guide §5.1) as the guide writes them, against NumPy on fsim, TLM and RTL: buffers
in A.L2 live in the mem tile's L2 (DDR -> L2 -> L1 copies and back), an A.L2_WEAK one that fits L1
lives there alone, an A.L1_WEAK intermediate beyond L1 moves to L2 and both its loops are tiled
through L1 from there; a pinned buffer that does not fit is refused at its line. The C++ twins:
examples/kernels/guide_constructs.cpp (memory_scopes, l2_spill), tests/compiler/scopes_test.cpp."""
import textwrap

import numpy as np
import pytest

import axcore.script as A
from axcore import runtime
from axcore.compiler.interpreter import emulation as emu

BACKENDS = ["fsim", "tlm", "rtl"]
TWO = np.full((1, 64), 2.0)
THREE = np.full((1, 64), 3.0)


def mul18(x, s):
    """x * s of two float18 operands, rounded to float18 (the DPU's product), as float32."""
    return emu.rf18(emu.rf18(np.asarray(x, np.float32)) * emu.rf18(np.asarray(s, np.float32)))


def floats(shape, seed):
    return np.random.default_rng(seed).uniform(-100, 100, shape).astype(np.float32)


# ---- §5.1: A.L2 (pinned), A.L2_WEAK, A.L1; SysDMA DDR -> L2, CoreDMA L2 -> L1 ------------------------
@A.ir_module
class MemoryScopes:
    @A.prim_func
    def main(inp: A.Buffer((8, 1), "float32x64", scope=A.DDR)):
        two = A.alloc_constant(TWO, dtype="float32x64", scope=A.DDR)
        three = A.alloc_constant(THREE, dtype="float32x64", scope=A.DDR)
        staged = A.alloc_buffer((8, 1), "float32x64", scope=A.L2)     # pinned: the mem tile's L2
        a = A.alloc_buffer((8, 1), "float32x64", scope=A.L1)
        mid = A.alloc_buffer((8, 1), "float32x64", scope=A.L2)
        small = A.alloc_buffer((8, 1), "float32x64", scope=A.L2_WEAK)  # weak: may live in L1 alone
        out = A.alloc_buffer((8, 1), "float32x64", scope=A.DDR)
        out2 = A.alloc_buffer((8, 1), "float32x64", scope=A.DDR)
        for i in A.serial(8):
            with A.SysDMA():                  # DDR -> L2
                staged[i, 0] = inp[i, 0]
        for i in A.serial(8):
            with A.CoreDMA(core=0):           # L2 -> L1
                a[i, 0] = staged[i, 0]
        for i in A.grid(8):                   # mid = 2a: the units write mid's L1 copy
            with A.Datapath():
                ifd = A.decl_stream("float32x64")
                dpu = A.decl_stream("float32x64")
                with A.IFD(num=0):
                    ifd.push(a[i, 0])
                with A.DPU():
                    dpu.push(A.cast(ifd.pop(), "float18x64") * A.cast(two[0], "float18x64"))
                with A.ODR():
                    mid[i, 0] = dpu.pop()
        for i in A.serial(8):
            with A.SysDMA():                  # L2 -> DDR: the compiler copies mid to L2 first
                out[i, 0] = mid[i, 0]
        for i in A.grid(8):                   # small = 3 mid
            with A.Datapath():
                ifd = A.decl_stream("float32x64")
                dpu = A.decl_stream("float32x64")
                with A.IFD(num=0):
                    ifd.push(mid[i, 0])
                with A.DPU():
                    dpu.push(A.cast(ifd.pop(), "float18x64") * A.cast(three[0], "float18x64"))
                with A.ODR():
                    small[i, 0] = dpu.pop()
        for i in A.serial(8):
            with A.SysDMA():
                out2[i, 0] = small[i, 0]
        A.output(out)
        A.output(out2)


@pytest.mark.parametrize("backend", BACKENDS)
def test_l2_buffers_and_the_copies_between_ddr_l2_and_l1(backend):
    x = floats((8, 64), 21)
    b = runtime.compile(MemoryScopes, explain=True)
    assert "staged (A.L2, 2048 bytes) -> L2: pinned (A.L2)" in b.explain, b.explain
    assert "small (A.L2_WEAK, 2048 bytes) -> L1: A.L2_WEAK moved" in b.explain, b.explain
    for copy in ("sysdma inp -> staged", "coredma staged -> a", "store mid (L2)", "sysdma mid -> out"):
        assert copy in b.explain, (copy, b.explain)
    res = runtime.run(b, backend=backend, inputs={"inp": x})
    np.testing.assert_array_equal(res.outputs["out"], mul18(x, 2.0))
    np.testing.assert_array_equal(res.outputs["out2"], mul18(mul18(x, 2.0), 3.0))


# ---- §5.1, §11: an A.L1_WEAK intermediate beyond L1 (1.5 MiB against 1 MiB) moves to L2 ------------
ROWS = 6144


def spill_module(y_scope):
    @A.ir_module
    class L2Spill:
        @A.prim_func
        def main(x: A.Buffer((ROWS, 1), "float32x64", scope=A.DDR)):
            two = A.alloc_constant(TWO, dtype="float32x64", scope=A.DDR)
            three = A.alloc_constant(THREE, dtype="float32x64", scope=A.DDR)
            y = A.alloc_buffer((ROWS, 1), "float32x64", scope=y_scope)
            z = A.alloc_buffer((ROWS, 1), "float32x64", scope=A.DDR)
            for i in A.grid(ROWS):
                with A.Datapath():
                    ifd = A.decl_stream("float32x64")
                    dpu = A.decl_stream("float32x64")
                    with A.IFD(num=0):
                        ifd.push(x[i, 0])
                    with A.DPU():
                        dpu.push(A.cast(ifd.pop(), "float18x64") * A.cast(two[0], "float18x64"))
                    with A.ODR():
                        y[i, 0] = dpu.pop()
            for i in A.grid(ROWS):
                with A.Datapath():
                    ifd = A.decl_stream("float32x64")
                    dpu = A.decl_stream("float32x64")
                    with A.IFD(num=0):
                        ifd.push(y[i, 0])
                    with A.DPU():
                        dpu.push(A.cast(ifd.pop(), "float18x64") * A.cast(three[0], "float18x64"))
                    with A.ODR():
                        z[i, 0] = dpu.pop()
            A.output(z)
    return L2Spill


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_l1_weak_intermediate_beyond_l1_moves_to_l2(backend):
    x = floats((ROWS, 64), 22)
    b = runtime.compile(spill_module(A.L1_WEAK), explain=True)
    assert "y (A.L1_WEAK, 1572864 bytes) -> L2: A.L1_WEAK moved out of L1" in b.explain, b.explain
    assert "memdma y.tile1.slot0 -> y " in b.explain, b.explain  # y's tiles: L1 -> L2 on the mem tile's DMA
    res = runtime.run(b, backend=backend, inputs={"x": x})
    np.testing.assert_array_equal(res.outputs["z"], mul18(mul18(x, 2.0), 3.0))


# ---- refusals at the user's line: a pinned buffer that does not fit ---------------------------------
PINNED = '''
import axcore.script as A

@A.ir_module
class M:
    @A.prim_func
    def main(x: A.Buffer((ROWS, 1), "float32x64", scope=A.DDR)):
        b = A.alloc_buffer((ROWS, 1), "float32x64", scope=SCOPE)  # X
        y = A.alloc_buffer((ROWS, 1), "float32x64", scope=A.DDR)
        for i in A.serial(ROWS):
            with A.SysDMA():
                b[i, 0] = x[i, 0]
        for i in A.serial(ROWS):
            with A.SysDMA():
                y[i, 0] = b[i, 0]
        A.output(y)
'''


@pytest.mark.parametrize("scope,rows,message", [
    ("A.L2", 16385, "b is pinned to L2 (A.L2) and needs 4194560 bytes, but only 4194304 bytes"),
    ("A.L1", 4097, "b, pinned to L1 (A.L1), is the first that does not fit"),
], ids=["l2", "l1"])
def test_a_pinned_buffer_that_does_not_fit_is_refused_at_its_line(tmp_path, scope, rows, message):
    from test_errors import _assert_last_frame_is, _build, _line_of
    body = PINNED.replace("ROWS", str(rows)).replace("SCOPE", scope)
    with pytest.raises(A.CompileError) as info:
        runtime.compile(_build(tmp_path, body, "pinned_" + scope[2:]).M)
    err = info.value
    assert message in err.msg, err.msg
    assert err.lineno == _line_of(body, "# X"), (err.lineno, err.msg)
    _assert_last_frame_is(info, err.filename, err.lineno)


def test_the_weak_twin_of_a_pinned_buffer_beyond_l1_compiles_and_runs(tmp_path):
    from test_errors import _build
    body = PINNED.replace("ROWS", "4097").replace("SCOPE", "A.L1_WEAK")
    b = runtime.compile(_build(tmp_path, body, "weak_l1").M, explain=True)
    assert "b (A.L1_WEAK, 1048832 bytes) -> L2" in b.explain, b.explain
    x = floats((4097, 64), 23)
    np.testing.assert_array_equal(runtime.run(b, backend="fsim", inputs={"x": x}).outputs["y"], x)
