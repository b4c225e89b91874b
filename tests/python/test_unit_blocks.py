"""Several blocks of one unit in one datapath (guide §6, §8.3, §9.2), written as the guide writes
them, against NumPy on fsim, TLM and RTL (several streams on one feeder: the segments of one task);
the forms that cannot run refused at the user's line.
The C++ twin of the §9.2 program is examples/kernels/guide_constructs.cpp two_dpu_blocks (run by
tests/compiler/examples_e2e_test.cpp)."""
import numpy as np
import pytest

import axcore.script as A
from axcore import runtime
from axcore.compiler.interpreter import emulation as emu
from test_errors import _dp, assert_refused_at_the_line

BACKENDS = ["fsim", "tlm", "rtl"]
TWO = np.full((1, 64), 2.0)
THREE = np.full((1, 64), 3.0)


# ---- §9.2: IFD -> DPU -> IFD -> DPU -> ODR, one loop around the datapath (sunk) -------------------
@A.ir_module
class TwoDpuBlocks:
    @A.prim_func
    def main(a: A.Buffer((4, 1), "float32x64", scope=A.DDR), b: A.Buffer((4, 1), "float32x64", scope=A.DDR)):
        two = A.alloc_constant(TWO, dtype="float32x64", scope=A.DDR)
        three = A.alloc_constant(THREE, dtype="float32x64", scope=A.DDR)
        out = A.alloc_buffer((4, 2), "float32x64", scope=A.DDR)
        for i in A.grid(4):                      # one datapath in the loop: sunk into its five blocks
            with A.Datapath():
                sa = A.decl_stream("float32x64")
                sb = A.decl_stream("float32x64")
                d = A.decl_stream("float32x64")
                with A.IFD(num=0):
                    sa.push(a[i, 0])
                with A.DPU():
                    d.push(A.cast(A.cast(sa.pop(), "float18x64") * A.cast(two[0], "float18x64"), "float32x64"))
                with A.IFD(num=0):
                    sb.push(b[i, 0])
                with A.DPU():
                    d.push(A.cast(A.cast(sb.pop(), "float18x64") + A.cast(three[0], "float18x64"), "float32x64"))
                with A.ODR():
                    for j in A.serial(2):
                        out[i, j] = d.pop()
        A.output(out)


@pytest.mark.parametrize("backend", BACKENDS)
def test_two_dpu_blocks_run_in_the_order_written(backend):
    rng = np.random.default_rng(31)
    a = rng.uniform(-100, 100, (4, 64)).astype(np.float32)
    b = rng.uniform(-100, 100, (4, 64)).astype(np.float32)
    res = runtime.run(runtime.compile(TwoDpuBlocks), backend=backend, inputs={"a": a, "b": b})
    doubled = emu.rf18(emu.rf18(a) * np.float32(2.0))
    plus3 = emu.rf18(emu.rf18(b) + np.float32(3.0))
    # Block 1 runs for every i before block 2 starts: the ODR's 8 stores get 2a, then b + 3.
    want = np.concatenate([doubled, plus3]).reshape(4, 128)
    np.testing.assert_array_equal(res.outputs["out"], want)


# ---- the same with the main stage: IFD -> MatMul -> DPU -> ODR, twice, in one MVMEXE datapath -------
W = ((np.arange(128 * 128) * 37 + 11) % 15 - 7).reshape(128, 2, 64)  # (K, N_BLOCKS) PWORDs


@A.ir_module
class TwoMatMulBlocks:
    @A.prim_func
    def main(inp: A.Buffer((4, 2), "int8x64", scope=A.DDR)):
        weights = A.alloc_constant(W, "int8x64", scope=A.DDR, shape=(128, 2))
        out = A.alloc_buffer((4, 2), "float32x64", scope=A.DDR)
        w_imc = A.alloc_imc((2, 2))
        for kb, nb in A.grid(2, 2):
            with A.pseudo.LoadIMC():
                w_imc[kb, nb] = weights[kb * 64: kb * 64 + 64, nb]
        for m in A.grid(4):                      # sunk into the eight blocks
            with A.Datapath(kind=A.DP_MVMEXE):
                ifd_stream = A.decl_stream("int8x64")
                mvm_stream = A.decl_stream("int32x64")
                dpu_stream = A.decl_stream("float32x64")
                for nb in A.unroll(2):           # unrolled: each column block's four blocks, in order
                    for kb in A.serial(2):
                        with A.IFD(num=0):
                            ifd_stream.push(inp[m, kb])
                    with A.pseudo.MatMul():
                        acc = A.mvm_accumulator()
                        A.reset_accumulator(acc)
                        for kb in A.serial(2):
                            acc += A.mvm_1x1(ifd_stream.pop(), w_imc[kb, nb])
                        mvm_stream.push(acc)
                    with A.DPU():
                        dpu_stream.push(A.cast(mvm_stream.pop(), "float32x64"))
                    with A.ODR():
                        out[m, nb] = dpu_stream.pop()
        A.output(out)


@pytest.mark.parametrize("backend", BACKENDS)
def test_two_matmul_blocks_equal_the_matmul(backend):
    x = np.random.default_rng(32).integers(-128, 128, (4, 128)).astype(np.int8)
    res = runtime.run(runtime.compile(TwoMatMulBlocks), backend=backend, inputs={"inp": x})
    acc = (x.astype(np.int64) @ W.reshape(128, 128).astype(np.int64)).astype(np.float32)  # exact: |acc| < 2^24
    np.testing.assert_array_equal(res.outputs["out"], emu.rf18(acc))


# ---- §8.3: several streams on one feeder, read in order (the guide's legitimate sequential form) ------
@A.ir_module
class FeederSegments:
    @A.prim_func
    def main(x: A.Buffer((4, 1), "float32x64", scope=A.DDR), buf_a: A.Buffer((4, 1), "float32x64", scope=A.DDR),
             buf_b: A.Buffer((4, 1), "float32x64", scope=A.DDR)):
        out = A.alloc_buffer((4, 1), "float32x64", scope=A.DDR)
        with A.Datapath():
            s = A.decl_stream("float32x64")
            sa = A.decl_stream("float32x64", A.IFD_1_STREAM)   # both bind to IFD_1 (one feeder)
            sb = A.decl_stream("float32x64", A.IFD_1_STREAM)
            d = A.decl_stream("float32x64")
            with A.IFD(num=0):
                for i in range(4): s.push(x[i, 0])
            with A.IFD(num=1):
                for i in range(4): sa.push(buf_a[i, 0])      # feed a
            with A.IFD(num=1):
                for i in range(4): sb.push(buf_b[i, 0])      # feed b
            with A.DPU():
                ra = A.array("float18x64", size=4)
                r = A.array("float18x64", size=2)
                for i in range(4):
                    ra[i] = A.cast(sa.pop(), "float18x64")   # all of sa ...
                for i in range(4):
                    r[0] = A.cast(s.pop(), "float18x64")
                    r[0] = r[0] * ra[i]
                    r[1] = A.cast(sb.pop(), "float18x64")    # ... then all of sb
                    d.push(A.cast(r[0] + r[1], "float32x64"))
            with A.ODR():
                for i in range(4): out[i, 0] = d.pop()
        A.output(out)


# Differently typed and shaped segments on both feeders: IFD0 int8 then float32 (2-D), IFD1 one
# float32 element then a strided 2-D int8 walk.
@A.ir_module
class FeederSegmentsMixed:
    @A.prim_func
    def main(q: A.Buffer((4, 1), "int8x64", scope=A.DDR), x: A.Buffer((2, 2), "float32x64", scope=A.DDR),
             s: A.Buffer((1, 1), "float32x64", scope=A.DDR), g: A.Buffer((3, 4), "int8x64", scope=A.DDR)):
        out = A.alloc_buffer((8, 1), "float32x64", scope=A.DDR)
        with A.Datapath():
            m1 = A.decl_stream("int8x64")
            m2 = A.decl_stream("float32x64")
            s1 = A.decl_stream("float32x64", A.IFD_1_STREAM)
            s2 = A.decl_stream("int8x64", A.IFD_1_STREAM)
            d = A.decl_stream("float32x64")
            with A.IFD(num=0):
                for i in range(4): m1.push(q[i, 0])
            with A.IFD(num=0):
                for j, k in A.grid(2, 2): m2.push(x[j, k])
            with A.IFD(num=1):
                s1.push(s[0, 0])
            with A.IFD(num=1):
                for j, k in A.grid(2, 2): s2.push(g[2 * j, k + 1])
            with A.DPU():
                sc = A.array("float18x64", size=1)
                r = A.array("float18x64", size=2)
                sc[0] = A.cast(s1.pop(), "float18x64")
                for i in range(4):
                    r[0] = A.cast(m1.pop(), "float18x64")
                    d.push(A.cast(r[0] * sc[0], "float32x64"))
                for n in range(4):
                    r[0] = A.cast(m2.pop(), "float18x64")
                    r[1] = A.cast(s2.pop(), "float18x64")
                    d.push(A.cast(r[0] + r[1], "float32x64"))
            with A.ODR():
                for n in range(8): out[n, 0] = d.pop()
        A.output(out)


def _ints(rng, shape, lo, hi, dtype):  # integer values: every float18 step below is one rounding
    return rng.integers(lo, hi, shape).astype(dtype)


@pytest.mark.parametrize("backend", BACKENDS)
def test_feeder_segments_are_read_in_order(backend):
    rng = np.random.default_rng(33)
    x, a, b = (_ints(rng, (4, 64), -100, 100, np.float32) for _ in range(3))
    res = runtime.run(runtime.compile(FeederSegments), backend=backend, inputs={"x": x, "buf_a": a, "buf_b": b})
    np.testing.assert_array_equal(res.outputs["out"], emu.rf18(emu.rf18(x * a) + b))


@pytest.mark.parametrize("backend", BACKENDS)
def test_feeder_segments_of_other_dtypes_and_shapes(backend):
    rng = np.random.default_rng(34)
    q = _ints(rng, (4, 64), -128, 128, np.int8)
    x = _ints(rng, (2, 128), -100, 100, np.float32)
    s = _ints(rng, (1, 64), -20, 20, np.float32)
    g = _ints(rng, (3, 256), -128, 128, np.int8)
    res = runtime.run(runtime.compile(FeederSegmentsMixed), backend=backend, inputs={"q": q, "x": x, "s": s, "g": g})
    gs = np.stack([g[2 * j, (k + 1) * 64:(k + 2) * 64] for j in range(2) for k in range(2)]).astype(np.float32)
    xs = x.reshape(4, 64)
    want = np.concatenate([emu.rf18(q.astype(np.float32) * s), emu.rf18(xs + gs)])
    np.testing.assert_array_equal(res.outputs["out"], want)


# ---- refused at the user's line ----------------------------------------------------------------------
# §9.2: a register the first DPU block writes, read by the second (the error harness's datapath with
# a register declared in the datapath and a second DPU block).
STATE = _dp(dpu='r[0] = A.cast(s.pop(), "float18x64")').replace(
    '                d = A.decl_stream("float32x64")\n',
    '                d = A.decl_stream("float32x64")\n                r = A.array("float18x64", size=1)\n').replace(
    "                with A.ODR():\n",
    '                with A.DPU():\n                    d.push(A.cast(r[0], "float32x64"))  # X\n'
    "                with A.ODR():\n")

# §8.3's WRONG example: two logical streams on IFD_1, popped interleaved by one DPU block.
INTERLEAVED = '''
import axcore.script as A

@A.ir_module
class M:
    @A.prim_func
    def main(inp: A.Buffer((4, 1), "float32x64", scope=A.DDR), buf_a: A.Buffer((4, 1), "float32x64", scope=A.DDR),
             buf_b: A.Buffer((4, 1), "float32x64", scope=A.DDR)):
        out = A.alloc_buffer((4, 1), "float32x64", scope=A.DDR)
        with A.Datapath():
            s = A.decl_stream("float32x64")
            sa = A.decl_stream("float32x64", A.IFD_1_STREAM)
            sb = A.decl_stream("float32x64", A.IFD_1_STREAM)
            d = A.decl_stream("float32x64")
            with A.IFD(num=0):
                for i in range(4): s.push(inp[i, 0])
            with A.IFD(num=1):
                for i in range(4): sa.push(buf_a[i, 0])      # feed a
            with A.IFD(num=1):
                for i in range(4): sb.push(buf_b[i, 0])      # feed b
            with A.DPU():
                r = A.array("float18x64", size=2)
                for i in range(4):
                    r[0] = A.cast(sa.pop(), "float18x64")
                    r[1] = A.cast(sb.pop(), "float18x64")  # X
                    r[0] = r[0] + r[1]
                    r[1] = A.cast(s.pop(), "float18x64")
                    d.push(A.cast(r[0] + r[1], "float32x64"))
            with A.ODR():
                for i in range(4): out[i, 0] = d.pop()
        A.output(out)
'''

REFUSED = [
    ("state_between_blocks", STATE, "is used again in a later DPU block of the same datapath"),
    ("interleaved_feeder", INTERLEAVED, "never interleaved (§8.3)"),
]


@pytest.mark.parametrize("name,body,message", REFUSED, ids=[c[0] for c in REFUSED])
def test_refused_at_the_line(tmp_path, name, body, message):
    assert_refused_at_the_line(tmp_path, name, body, message)
