"""The guide's constructs that no whole program of examples/guide uses, each written in an
@A.ir_module as the guide writes it, against NumPy on fsim, TLM and RTL (their C++ twins:
examples/kernels/guide_constructs.cpp, run by tests/compiler/examples_e2e_test.cpp)."""
import re

import numpy as np
import pytest

import axcore.script as A
from axcore import runtime, tir
from axcore.compiler.interpreter import emulation as emu

BACKENDS = ["fsim", "tlm", "rtl"]


def lane_values(blocks, step):
    """One PWORD per block, lane l of block b: a value in [-1.5, 1.5] that float18 rounds."""
    return np.array([[-1.5 + step * ((l * 7 + b * 13) % 31) for l in range(64)] for b in range(blocks)])


def mul18(x, s):
    """x * s of two float18 operands, rounded to float18 (the DPU's product), as float32."""
    return emu.rf18(emu.rf18(np.asarray(x, np.float32)) * emu.rf18(np.asarray(s, np.float32)))


def floats(shape, seed):
    return np.random.default_rng(seed).uniform(-100, 100, shape).astype(np.float32)


# ---- §4.4: A.grid(*shape, always_tuple=True), A.unroll(n), A.unroll(a, b) ---------------------------
SHAPE = (2, 3, 2)  # (H, W, C_BLOCKS): the loop below does not spell out the rank
SCALE = lane_values(2, 0.0973)


@A.ir_module
class LoopForms:
    @A.prim_func
    def main(inp: A.Buffer(SHAPE, "float32x64", scope=A.DDR), rows: A.Buffer((3, 4), "float32x64", scope=A.DDR)):
        scale = A.alloc_constant(SCALE, dtype="float32x64", scope=A.DDR)
        out = A.alloc_buffer(SHAPE, "float32x64", scope=A.DDR)
        out_rows = A.alloc_buffer((3, 4), "float32x64", scope=A.DDR)
        for vars in A.grid(*SHAPE, always_tuple=True):   # len(shape) not known when writing this
            spatial, ch = vars[:-1], vars[-1]            # slice by position: works for any axis count
            with A.Datapath():
                ifd = A.decl_stream("float32x64")
                dpu = A.decl_stream("float32x64")
                with A.IFD(num=0):
                    ifd.push(inp[vars])
                with A.DPU():
                    dpu.push(A.cast(ifd.pop(), "float18x64") * A.cast(scale[ch], "float18x64"))
                with A.ODR():
                    out[spatial + (ch,)] = dpu.pop()
        for u in A.unroll(2):                  # A.unroll -> not sunk (it is unrolled); sinking stops here
            for i in A.serial(4):              # serial, wraps ONE datapath -> sunk into the units
                with A.Datapath():
                    ifd = A.decl_stream("float32x64")
                    dpu = A.decl_stream("float32x64")
                    with A.IFD(num=0):
                        ifd.push(rows[u, i])
                    with A.DPU():
                        dpu.push(A.cast(ifd.pop(), "float18x64") * A.cast(scale[u], "float18x64"))
                    with A.ODR():
                        out_rows[u, i] = dpu.pop()
        for u in A.unroll(2, 3):
            for i in A.serial(4):
                with A.Datapath():
                    s = A.decl_stream("float32x64")
                    with A.IFD(num=0):
                        s.push(rows[u, i])
                    with A.ODR():
                        out_rows[u, i] = s.pop()
        A.output(out)
        A.output(out_rows)


@pytest.mark.parametrize("backend", BACKENDS)
def test_grid_always_tuple_and_unroll(backend):
    ins = {"inp": floats((2, 3, 128), 11), "rows": floats((3, 256), 12)}
    res = runtime.run(runtime.compile(LoopForms), backend=backend, inputs=ins)
    np.testing.assert_array_equal(res.outputs["out"], mul18(ins["inp"], SCALE.reshape(128)))
    want_rows = ins["rows"].copy()
    for u in range(2):
        want_rows[u] = mul18(ins["rows"][u], np.tile(SCALE[u], 4))
    np.testing.assert_array_equal(res.outputs["out_rows"], want_rows)


def test_unroll_is_not_sunk():
    """§9.2: unroll(2) around one A.serial(4) datapath is two datapath tasks, unroll(2, 3) one, the
    tuple grid nest one (sunk into the units)."""
    b = runtime.compile(LoopForms, explain=True)
    assert len(set(re.findall(r"\bdp\d+\.dwpu", b.explain))) == 4, b.explain


# ---- §5 A.IntImm, §8.4 / §8.5 A.buffer_store ---------------------------------------------------------
ISCALE = lane_values(1, 0.0911)


@A.ir_module
class IntImmStore:
    @A.prim_func
    def main(inp: A.Buffer((6, 1), "int8x64", scope=A.DDR)):
        scale = A.alloc_constant(ISCALE, dtype="float32x64", scope=A.DDR)
        out = A.alloc_buffer((8, 1), "float32x64", scope=A.DDR)
        for i in A.grid(8):                   # the 6 input rows reversed, then two rows of padding
            with A.Datapath():
                ifd = A.decl_stream("int8x64")
                dpu = A.decl_stream("float32x64")
                with A.IFD(num=0):
                    ifd.push(A.if_then_else(tir.all(i < A.IntImm("int32", 6)),
                                            A.BufferLoad(inp, (A.IntImm("int32", 5) - i, 0)),
                                            A.Broadcast(A.IntImm("int8", -7), 64)))
                with A.DPU():
                    regs = A.array("float18x64", size=2)
                    A.buffer_store(regs, A.cast(ifd.pop(), "float18x64"), (A.IntImm("int32", 0),))
                    A.buffer_store(regs, regs[0] * A.cast(scale[0], "float18x64"), (1,))
                    dpu.push(A.cast(regs[1], "float32x64"))
                with A.ODR():
                    A.buffer_store(out, dpu.pop(), (i, 0))
        A.output(out)


@pytest.mark.parametrize("backend", BACKENDS)
def test_int_imm_and_buffer_store(backend):
    x = np.random.default_rng(13).integers(-128, 128, (6, 64)).astype(np.int8)
    res = runtime.run(runtime.compile(IntImmStore), backend=backend, inputs={"inp": x})
    padded = np.full((8, 64), -7, np.float32)
    padded[:6] = x[::-1]
    np.testing.assert_array_equal(res.outputs["out"], mul18(padded, ISCALE[0]))


# ---- §8.4 / §10: A.If / A.Then / A.Else store or drop, A.drop(s.pop()) ------------------------------
TWO = np.full((1, 64), 2.0)


@A.ir_module
class StoreOrDrop:
    @A.prim_func
    def main(inp: A.Buffer((4, 4), "float32x64", scope=A.DDR)):
        two = A.alloc_constant(TWO, dtype="float32x64", scope=A.DDR)
        out = A.alloc_buffer((4, 3), "float32x64", scope=A.DDR)
        for r, c in A.grid(4, 4):             # the pipeline computes 4 columns; the ODR keeps 3, mirrored
            with A.Datapath():
                ifd = A.decl_stream("float32x64")
                dpu = A.decl_stream("float32x64")
                with A.IFD(num=0):
                    ifd.push(inp[r, c])
                with A.DPU():
                    dpu.push(A.cast(ifd.pop(), "float18x64") * A.cast(two[0], "float18x64"))
                with A.ODR():
                    with A.If(c < 3):                 # selects store or drop
                        with A.Then():
                            out[r, 2 - c] = dpu.pop()
                        with A.Else():
                            A.drop(dpu.pop())     # surplus positions are dropped
        A.output(out)


@pytest.mark.parametrize("backend", BACKENDS)
def test_store_or_drop(backend):
    x = floats((4, 256), 14)
    res = runtime.run(runtime.compile(StoreOrDrop), backend=backend, inputs={"inp": x})
    want = mul18(x[:, :192], 2.0).reshape(4, 3, 64)[:, ::-1].reshape(4, 192)
    np.testing.assert_array_equal(res.outputs["out"], want)


# ---- §7: A.dpu.ops.dpu_reduce, dpu_fma, A.min / A.max ---------------------------------------------------
K = np.full((1, 64), 0.75)


@A.ir_module
class DpuReduceFma:
    @A.prim_func
    def main(inp: A.Buffer((4, 3), "float32x64", scope=A.DDR)):
        k = A.alloc_constant(K, dtype="float32x64", scope=A.DDR)
        out = A.alloc_buffer((4, 2), "float32x64", scope=A.DDR)
        for r in A.grid(4):
            with A.Datapath():
                ifd = A.decl_stream("float32x64")
                dpu = A.decl_stream("float32x64")
                for j in A.serial(3):
                    with A.IFD(num=0):
                        ifd.push(inp[r, j])
                with A.DPU():
                    x = A.array("float18x64", size=3)   # the row, one register per block
                    hi = A.var("float18x64")
                    lo = A.var("float18x64")
                    s = A.var("float18x64")
                    for j in A.serial(3):
                        x[j] = A.cast(ifd.pop(), "float18x64")
                    hi = x[0]                           # combine the blocks elementwise ...
                    for j in A.serial(1, 3):
                        hi = A.max(hi, x[j])
                    lo = x[0]
                    for j in A.serial(1, 3):
                        lo = A.min(lo, x[j])
                    hi = A.dpu.ops.dpu_reduce(hi, "max")  # ... then reduce across the lanes
                    lo = A.dpu.ops.dpu_reduce(lo, "min")
                    s = A.dpu.ops.dpu_reduce(x[0], "add")
                    dpu.push(A.cast(A.dpu.ops.dpu_fma(hi, A.cast(k[0], "float18x64"), lo), "float32x64"))
                    dpu.push(A.cast(s, "float32x64"))
                with A.ODR():
                    for q in A.serial(2):
                        out[r, q] = dpu.pop()
        A.output(out)


def tree_sum18(v):
    """The DPU's ADD_REDUCE: a pairwise tree over the lanes (lane 2i with 2i + 1), rounding to float18
    at each step (exact here in float32: the lanes hold small integers)."""
    while v.shape[-1] > 1:
        v = emu.rf18(v[..., 0::2] + v[..., 1::2])
    return v[..., 0]


@pytest.mark.parametrize("backend", BACKENDS)
def test_dpu_reduce_fma_min_max(backend):
    x = np.random.default_rng(16).integers(-100, 101, (4, 192)).astype(np.float32)
    res = runtime.run(runtime.compile(DpuReduceFma), backend=backend, inputs={"inp": x})
    blocks = x.reshape(4, 3, 64)
    hi, lo = blocks.max(axis=(1, 2)), blocks.min(axis=(1, 2))
    want = np.empty((4, 128), np.float32)
    want[:, :64] = emu.rf18(emu.rf18(hi * np.float32(0.75)) + lo)[:, None]
    want[:, 64:] = tree_sum18(blocks[:, 0])[:, None]
    np.testing.assert_array_equal(res.outputs["out"], want)


# ---- §7: lut, prelu, fma, max_reduce / min_reduce / add_reduce, A.Max / A.Min, A.var / A.array ------
from axcore.axol.utils.lut_chain import compute_chained_lut_params, pack_lut_params_to_pword  # noqa: E402

LUT_PARAMS = compute_chained_lut_params(x_min=-128.0, x_max=128.0, n_luts=1, func=lambda v: v * v / 128.0)
OPS_CONSTS = np.concatenate([pack_lut_params_to_pword(LUT_PARAMS[0]), np.full((1, 64), 0.25), np.full((1, 64), 0.5)])


@A.ir_module
class DpuOps:
    @A.prim_func
    def main(inp: A.Buffer((4, 2), "float32x64", scope=A.DDR)):
        consts = A.alloc_constant(OPS_CONSTS, dtype="float32x64", scope=A.DDR)  # table, slope, one half
        out = A.alloc_buffer((4, 4), "float32x64", scope=A.DDR)
        with A.Datapath():                    # written in the sunk form: the constants stream once
            s0 = A.decl_stream("float32x64")
            s1 = A.decl_stream("float32x64")
            d = A.decl_stream("float32x64")
            with A.IFD(num=0):
                for r, j in A.grid(4, 2):
                    s0.push(inp[r, j])
            with A.IFD(num=1):
                for j in A.serial(3):
                    s1.push(consts[j])
            with A.DPU():
                k = A.array("float18x64", size=3)   # loaded once in the preamble, read every row
                with A.init():
                    for j in A.serial(3):
                        k[j] = A.cast(s1.pop(), "float18x64")
                for r in A.serial(4):
                    x = A.array("float18x64", size=2)
                    m = A.var("float18x64")
                    n = A.var("float18x64")
                    hi = A.var("float18x64")
                    lo = A.var("float18x64")
                    for j in A.serial(2):
                        x[j] = A.cast(s0.pop(), "float18x64")
                    m = A.Max(x[0], x[1])
                    n = A.Min(x[0], x[1])
                    hi = A.dpu.ops.max_reduce(m)
                    lo = A.dpu.ops.min_reduce(n)
                    d.push(A.cast(A.dpu.ops.fma(hi, k[2], lo), "float32x64"))
                    d.push(A.cast(A.dpu.ops.add_reduce(x[0]), "float32x64"))
                    d.push(A.cast(A.dpu.ops.prelu(x[1], k[1]), "float32x64"))
                    d.push(A.cast(A.dpu.ops.lut(x[0], k[0]), "float32x64"))
            with A.ODR():
                for r, q in A.grid(4, 4):
                    out[r, q] = d.pop()
        A.output(out)


@pytest.mark.parametrize("backend", BACKENDS)
def test_dpu_ops_in_a_programs_own_dpu_block(backend):
    x = np.random.default_rng(17).integers(-100, 101, (4, 128)).astype(np.float32)  # exact in float18
    res = runtime.run(runtime.compile(DpuOps), backend=backend, inputs={"inp": x})
    x0, x1 = x[:, :64], x[:, 64:]
    want = np.empty((4, 256), np.float32)
    hi, lo = np.maximum(x0, x1).max(axis=1), np.minimum(x0, x1).min(axis=1)
    want[:, :64] = emu.rf18(emu.rf18(hi * np.float32(0.5)) + lo)[:, None]
    want[:, 64:128] = tree_sum18(x0)[:, None]
    want[:, 128:192] = np.where(x1 >= 0, x1, emu.rf18(x1 * np.float32(0.25)))
    want[:, 192:] = emu.lut(x0, [pack_lut_params_to_pword(LUT_PARAMS[0])])
    np.testing.assert_array_equal(res.outputs["out"], want)
    # The table approximates x^2 / 128 (a piecewise-linear fit: the guide's "not bit-identical").
    np.testing.assert_allclose(want[:, 192:], x0 * x0 / 128.0, rtol=0.05, atol=1.0)


# ---- §11.2 A.tiles(...) around one datapath (the tiling pass), §12 drain= by the pass ----------------
def tiled_scale(bounds):
    @A.ir_module
    class TiledScale:
        @A.prim_func
        def main(inp: A.Buffer((64, 1), "float32x64", scope=A.DDR)):
            two = A.alloc_constant(np.full((1, 64), 2.0, np.float32), dtype="float32x64", scope=A.DDR)
            out = A.alloc_buffer((64, 1), "float32x64", scope=A.DDR)
            with A.tiles(64, **bounds) as i:   # OUTSIDE the datapath: the compiler splits it into tiles
                with A.Datapath():
                    s = A.decl_stream("float32x64")
                    d = A.decl_stream("float32x64")
                    with A.IFD(num=0):
                        s.push(inp[i, 0])
                    with A.DPU():
                        d.push(A.cast(s.pop(), "float18x64") * A.cast(two[0], "float18x64"))
                    with A.ODR():
                        out[i, 0] = d.pop()
            A.output(out)
    return TiledScale


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("bounds", [{"tile_max": 16}, {"num_tiles": 4, "drain": 2}], ids=["tile_max", "drain"])
def test_tiles_around_one_datapath(backend, bounds):
    """The tiling pass splits the loop into 4 tiles of 16 rows, each DMA'd in, computed and DMA'd
    out (with drain=2 the three stages of successive tiles overlap); the result is the untiled one."""
    x = floats((64, 64), 25)
    b = runtime.compile(tiled_scale(bounds), explain=True)
    assert len(set(re.findall(r"\bdp\d+\.dwpu", b.explain))) == 4, b.explain
    res = runtime.run(b, backend=backend, inputs={"inp": x})
    np.testing.assert_array_equal(res.outputs["out"], mul18(x, 2.0))


# ---- §6 A.AICore(core=n), §12 A.barrier(*cores) ------------------------------------------------------
@A.ir_module
class OnTwoCores:
    @A.prim_func
    def main(x0: A.Buffer((4, 1), "float32x64", scope=A.DDR), x1: A.Buffer((4, 1), "float32x64", scope=A.DDR)):
        y0 = A.alloc_buffer((4, 1), "float32x64", scope=A.DDR)
        y1 = A.alloc_buffer((4, 1), "float32x64", scope=A.DDR)
        for c, x, y in [(0, x0, y0), (1, x1, y1)]:   # a build-time list: one region per core
            with A.AICore(core=c):               # buffers and work inside run on core c
                for i in A.grid(4):
                    with A.Datapath():
                        s = A.decl_stream("float32x64")
                        d = A.decl_stream("float32x64")
                        with A.IFD(num=0):
                            s.push(x[i, 0])
                        with A.DPU():
                            v = A.var("float18x64")
                            v = A.cast(s.pop(), "float18x64")
                            d.push(v + v)
                        with A.ODR():
                            y[i, 0] = d.pop()
        A.barrier(0, 1)                          # both cores reach this point before either goes on
        A.output(y0)
        A.output(y1)


@pytest.mark.parametrize("backend", BACKENDS)  # rtl: the 4-core Verilated model (docs/rtl.md)
def test_aicore_regions_and_a_barrier(backend):
    ins = {"x0": floats((4, 64), 26), "x1": floats((4, 64), 27)}
    cores = 4 if backend == "rtl" else 2     # the Verilated models have 1 or 4 cores: cores 2, 3 idle there
    b = runtime.compile(OnTwoCores, cores=cores, explain=True)
    assert "core0 DWPU" in b.explain and "core1 DWPU" in b.explain and "barrier" in b.explain, b.explain
    res = runtime.run(b, backend=backend, inputs=ins, cores=cores)
    np.testing.assert_array_equal(res.outputs["y0"], mul18(ins["x0"], 2.0))
    np.testing.assert_array_equal(res.outputs["y1"], mul18(ins["x1"], 2.0))


# ---- §5: A.int8 / A.int32 / A.float32, A.Broadcast, A.cast --------------------------------------------
@A.ir_module
class ScalarValues:
    @A.prim_func
    def main(q: A.Buffer((4, 1), "int8x64", scope=A.DDR), x: A.Buffer((4, 1), "float32x64", scope=A.DDR)):
        out_q = A.alloc_buffer((6, 1), "float32x64", scope=A.DDR)
        out_x = A.alloc_buffer((6, 1), "float32x64", scope=A.DDR)
        for i in A.grid(6):                   # q, then two rows of the int8 pad -3
            with A.Datapath():
                s = A.decl_stream("int8x64")
                d = A.decl_stream("float32x64")
                with A.IFD(num=0):
                    s.push(A.if_then_else(tir.all(i < A.int32(4)), q[i, 0], A.Broadcast(A.int8(-3), 64)))
                with A.DPU():
                    d.push(A.cast(s.pop(), "float32x64"))
                with A.ODR():
                    out_q[i, 0] = d.pop()
        for i in A.grid(6):                   # x, then two rows of the float pad -1.5 (IFD -> ODR: exact)
            with A.Datapath():
                s = A.decl_stream("float32x64")
                with A.IFD(num=0):
                    s.push(A.if_then_else(tir.all(i >= A.int32(0), i < A.int32(4)), x[i, 0],
                                          A.Broadcast(A.float32(-1.5), 64)))
                with A.ODR():
                    out_x[i, 0] = s.pop()
        A.output(out_q)
        A.output(out_x)


@pytest.mark.parametrize("backend", BACKENDS)
def test_scalar_constructors_as_pads_and_bounds(backend):
    q = np.random.default_rng(28).integers(-128, 128, (4, 64)).astype(np.int8)
    x = floats((4, 64), 29)
    res = runtime.run(runtime.compile(ScalarValues), backend=backend, inputs={"q": q, "x": x})
    want_q = np.concatenate([q.astype(np.float32), np.full((2, 64), -3.0, np.float32)])
    want_x = np.concatenate([x, np.full((2, 64), -1.5, np.float32)])
    np.testing.assert_array_equal(res.outputs["out_q"], want_q)
    np.testing.assert_array_equal(res.outputs["out_x"], want_x)


# ---- §10: A.where(cond) on A.Datapath, A.CoreDMA, A.SysDMA; inert on A.ODR ---------------------------
THREE = np.full((1, 64), 3.0)
COPY_OUT = 1  # a build-time value: which of the two unrolled SysDMA blocks copies the result out


@A.ir_module
class WhereGuard:
    @A.prim_func
    def main(inp: A.Buffer((8, 1), "float32x64", scope=A.DDR)):
        two = A.alloc_constant(TWO, dtype="float32x64", scope=A.DDR)
        three = A.alloc_constant(THREE, dtype="float32x64", scope=A.DDR)
        a = A.alloc_buffer((8, 1), "float32x64", scope=A.L1)
        b = A.alloc_buffer((8, 1), "float32x64", scope=A.L1)
        c = A.alloc_buffer((8, 1), "float32x64", scope=A.L1)
        out = A.alloc_buffer((8, 1), "float32x64", scope=A.DDR)
        for i in A.serial(8):
            with A.SysDMA():
                a[i, 0] = inp[i, 0]
        for i in A.grid(8):                   # b = 2a on rows 0..4
            with A.Datapath():
                A.where(i < 5)
                ifd = A.decl_stream("float32x64")
                dpu = A.decl_stream("float32x64")
                with A.IFD(num=0):
                    ifd.push(a[i, 0])
                with A.DPU():
                    dpu.push(A.cast(ifd.pop(), "float18x64") * A.cast(two[0], "float18x64"))
                with A.ODR():
                    b[i, 0] = dpu.pop()
        for i in A.grid(8):                   # b = 3a on rows 5..7
            with A.Datapath():
                A.where(i >= 5)
                ifd = A.decl_stream("float32x64")
                dpu = A.decl_stream("float32x64")
                with A.IFD(num=0):
                    ifd.push(a[i, 0])
                with A.DPU():
                    dpu.push(A.cast(ifd.pop(), "float18x64") * A.cast(three[0], "float18x64"))
                with A.ODR():
                    A.where(i < 6)            # inert: the ODR is a stream unit (§8.4); rows 6, 7 stored
                    b[i, 0] = dpu.pop()
        for i in A.serial(8):                 # c = b on rows 4..7
            with A.CoreDMA(core=0):
                A.where(i >= 4)
                c[i, 0] = b[i, 0]
        for i in A.serial(8):                 # c = a on rows 0..3
            with A.CoreDMA(core=0):
                A.where(i < 4)
                c[i, 0] = a[i, 0]
        for h in A.unroll(2):                 # copied out once
            with A.SysDMA():
                A.where(h == COPY_OUT)
                for i in A.serial(8):
                    out[i, 0] = c[i, 0]
        A.output(out)


@pytest.mark.parametrize("backend", BACKENDS)
def test_where_bounds_its_block(backend):
    x = floats((8, 64), 15)
    b = runtime.compile(WhereGuard, explain=True)
    res = runtime.run(b, backend=backend, inputs={"inp": x})
    want = x.copy()
    want[4] = mul18(x[4], 2.0)
    want[5:] = mul18(x[5:], 3.0)
    np.testing.assert_array_equal(res.outputs["out"], want)


# ---- §6.1 pinned stream scopes, §6.4 A.bypass() -------------------------------------------------------
@A.ir_module
class StreamPinsBypass:
    @A.prim_func
    def main(inp: A.Buffer((8, 1), "float32x64", scope=A.DDR), wts: A.Buffer((8, 1), "float32x64", scope=A.DDR)):
        two = A.alloc_constant(np.full((1, 64), 2.0, np.float32), dtype="float32x64", scope=A.DDR)
        prod = A.alloc_buffer((8, 1), "float32x64", scope=A.DDR)
        copy = A.alloc_buffer((8, 1), "float32x64", scope=A.DDR)
        twice = A.alloc_buffer((8, 1), "float32x64", scope=A.DDR)
        for i in A.grid(8):                   # scope= pins each stream to its unit's stream
            with A.Datapath():
                x = A.decl_stream("float32x64", A.IFD_0_STREAM)
                w = A.decl_stream("float32x64", A.IFD_1_STREAM)
                d = A.decl_stream("float32x64", scope=A.DPU_STREAM)
                with A.IFD():
                    x.push(inp[i, 0])
                with A.IFD():                 # no num: the pin makes it the side input
                    w.push(wts[i, 0])
                with A.DPU():
                    d.push(A.cast(x.pop(), "float18x64") * A.cast(w.pop(), "float18x64"))
                with A.ODR():
                    prod[i, 0] = d.pop()
        for i in A.grid(8):                   # every compute unit bypassed (§6.4), written out
            with A.Datapath():
                s = A.decl_stream("float32x64")
                with A.IFD(num=0):
                    s.push(inp[i, 0])
                with A.pseudo.MatMul():
                    A.bypass()
                with A.DPU():
                    A.bypass()
                with A.ODR():
                    copy[i, 0] = s.pop()
        for i in A.grid(8):                   # the side input bypassed: the DPU reads its constant
            with A.Datapath(kind=A.DP_DWPU, core=0):
                s = A.decl_stream("float32x64")
                d = A.decl_stream("float32x64")
                with A.IFD(num=0):
                    s.push(inp[i, 0])
                with A.IFD(num=1):
                    A.bypass()
                with A.DPU():
                    d.push(A.cast(s.pop(), "float18x64") * A.cast(two[0], "float18x64"))
                with A.ODR():
                    twice[i, 0] = d.pop()
        A.output(prod)
        A.output(copy)
        A.output(twice)


@pytest.mark.parametrize("backend", BACKENDS)
def test_stream_pins_and_bypass(backend):
    ins = {"inp": floats((8, 64), 21), "wts": floats((8, 64), 22)}
    b = runtime.compile(StreamPinsBypass, explain=True)
    res = runtime.run(b, backend=backend, inputs=ins)
    np.testing.assert_array_equal(res.outputs["prod"], mul18(ins["inp"], ins["wts"]))
    np.testing.assert_array_equal(res.outputs["copy"], ins["inp"])  # exact: nothing passed through float18
    np.testing.assert_array_equal(res.outputs["twice"], mul18(ins["inp"], 2.0))


def test_pin_and_bypass_lower_to_what_they_say():
    """The IFD() without num pushing the IFD_1_STREAM-pinned stream is the side input; the bypassed
    MatMul leaves a DP_DWPU datapath (three DWPU datapaths, no MVMEXE)."""
    text = StreamPinsBypass.dump()
    assert text.count("with A.IFD(num=1):") == 2, text
    assert text.count("A.bypass()") == 3, text
    b = runtime.compile(StreamPinsBypass, explain=True)
    assert len(set(re.findall(r"\bdp\d+\.dwpu", b.explain))) == 3 and "mvmexe" not in b.explain, b.explain


# ---- §12 A.sync(buffers=), A.signals, with a §4.2 @A.macro -------------------------------------------
@A.macro
def scale_rows(src, dst, factor, rows, tag):
    """Emits one datapath loop (a macro: statements, inlined where it is called; its names are its own)."""
    for i in A.grid(rows):
        with A.Datapath(id=tag):
            s = A.decl_stream("float32x64")
            d = A.decl_stream("float32x64")
            with A.IFD(num=0):
                s.push(src[i, 0])
            with A.DPU():
                d.push(A.cast(s.pop(), "float18x64") * A.cast(factor[0], "float18x64"))
            with A.ODR():
                dst[i, 0] = d.pop()


@A.ir_module
class SyncSignals:
    @A.prim_func
    def main(a: A.Buffer((4, 1), "float32x64", scope=A.DDR), b: A.Buffer((4, 1), "float32x64", scope=A.DDR)):
        two = A.alloc_constant(np.full((1, 64), 2.0, np.float32), dtype="float32x64", scope=A.DDR)
        three = A.alloc_constant(np.full((1, 64), 3.0, np.float32), dtype="float32x64", scope=A.DDR)
        a_l1 = A.alloc_buffer((4, 1), "float32x64", scope=A.L1)
        b_l1 = A.alloc_buffer((4, 1), "float32x64", scope=A.L1)
        out_a = A.alloc_buffer((4, 1), "float32x64", scope=A.DDR)
        out_b = A.alloc_buffer((4, 1), "float32x64", scope=A.DDR)
        with A.SysDMA(id="load"):
            for i in A.serial(4):
                a_l1[i, 0] = a[i, 0]
        with A.SysDMA(id="load"):
            for i in A.serial(4):
                b_l1[i, 0] = b[i, 0]
        A.sync(waits=["load"], buffers=[a_l1])   # the data guarded: only a's copy is waited here
        scale_rows(a_l1, out_a, two, 4, "ew_a")
        A.signals("a_done")                      # marks what is in flight (b's copy, ew_a) done
        A.waits("a_done")
        scale_rows(b_l1, out_b, three, 4, "")
        A.output(out_a)
        A.output(out_b)


@pytest.mark.parametrize("backend", BACKENDS)
def test_sync_buffers_signals_and_a_macro(backend):
    ins = {"a": floats((4, 64), 23), "b": floats((4, 64), 24)}
    b = runtime.compile(SyncSignals, werror=True)  # every dependency fenced by the author: no §14 hazard
    res = runtime.run(b, backend=backend, inputs=ins)
    np.testing.assert_array_equal(res.outputs["out_a"], mul18(ins["a"], 2.0))
    np.testing.assert_array_equal(res.outputs["out_b"], mul18(ins["b"], 3.0))


def test_a_macro_is_inlined_where_it_is_called():
    """Two calls, two datapath loops; the macro's names (s, d, i) did not leak into main's scope."""
    text = SyncSignals.dump()
    assert text.count("with A.Datapath(") == 2, text
    assert 'A.sync(waits=["load"], signals=[], buffers=[a_l1])' in text, text
    assert 'A.sync(waits=[], signals=["a_done"])' in text, text


# ---- refusals at the user's line -------------------------------------------------------------------
from test_errors import _dp, assert_refused_at_the_line  # noqa: E402 - the error harness

REFUSED = [
    ("intimm_dtype", _dp(ifd='s.push(inp[A.IntImm("float32", 0), 0])  # X'),
     'A.IntImm("float32", 0): an integer immediate is int8, int32 or int64'),
    ("intimm_range", _dp(ifd='s.push(A.Broadcast(A.IntImm("int8", -129), 64))  # X'),
     'A.IntImm("int8", -129): the value does not fit int8'),
    ("store_var_index", _dp(dpu='v = A.var("float18x64")\n'
                                'A.buffer_store(v, A.cast(s.pop(), "float18x64"), (0,))  # X\n'
                                'd.push(A.cast(v, "float32x64"))'), "Cannot store into v at 0"),
    ("store_stream", _dp(dpu='A.buffer_store(d, A.cast(s.pop(), "float18x64"), (0,))  # X'),
     "A.buffer_store stores into a buffer or a DPU register file, not a Stream"),
    ("dpu_reduce_op", _dp(dpu='d.push(A.cast(A.dpu.ops.dpu_reduce(A.cast(s.pop(), "float18x64"), "mul"), '
                             '"float32x64"))  # X'),
     'A.dpu.ops.dpu_reduce(x, "mul"): the DPU reduces across the lanes by add, max or min'),
    ("where_reads", _dp().replace("            with A.Datapath():\n",
                                  "            with A.Datapath():\n                A.where(inp[0, 0] < 1)  # X\n"),
     "A.where(inp[0, 0] < 1) reads inp[0, 0]: a block predicate is decided when the program is built"),
    ("where_in_loop", _dp().replace("        A.output(out)\n",
                                    "        with A.SysDMA():\n            for r in A.serial(8):\n"
                                    "                A.where(r < 4)  # X\n                out[r, 0] = inp[r, 0]\n"
                                    "        A.output(out)\n"),
     "A.where(cond) is the block predicate of A.Datapath, A.CoreDMA and A.SysDMA (§10); here it is inside a loop"),
    ("where_select", _dp().replace("            with A.Datapath():\n",
                                   "            with A.Datapath():\n"
                                   "                A.where(A.if_then_else(i < 2, 1, 0) < 1)  # X\n"),
     "reads A.if_then_else"),
    # §6.1 a pinned stream is pushed by its own unit
    ("pin_feeder", _dp().replace('s = A.decl_stream("float32x64")', 's = A.decl_stream("float32x64", A.IFD_1_STREAM)')
     .replace("s.push(inp[i, 0])", "s.push(inp[i, 0])  # X"),
     "s is pinned to IFD_1_STREAM (scope= at"),
    ("pin_odr_stream", _dp().replace('s = A.decl_stream("float32x64")',
                                     's = A.decl_stream("float32x64", A.ODR_STREAM)  # X'),
     "ODR_STREAM is an ODR's output stream"),
    # §6.4 A.bypass()
    ("bypass_odr", _dp().replace("out[i, 0] = d.pop()", "A.bypass()  # X\n                    out[i, 0] = d.pop()"),
     "the ODR cannot be bypassed"),
    ("bypass_with_work", _dp(dpu='A.bypass()\nd.push(A.cast(s.pop(), "float32x64"))  # X'),
     "this A.DPU block is bypassed (A.bypass() at"),
    # §8.5 / §14 the A.init rule
    ("init_rewritten", _dp(dpu='r = A.array("float18x64", size=1)\nwith A.init():\n'
                              '    r[0] = A.cast(s.pop(), "float18x64")\n'
                              'r[0] = A.cast(s.pop(), "float18x64")  # X\nd.push(A.cast(r[0], "float32x64"))'),
     "r[0] is written in A.init (at"),
    # §12 A.sync(buffers=)
    ("sync_buffers", _dp().replace("        A.output(out)\n",
                                   "        A.sync(buffers=[out])\n"
                                   "        A.sync(waits=[\"x\"], buffers=[out])  # X\n        A.output(out)\n"),
     'A.sync waits on "x", which no launch before it is tagged with (or signals)'),
    # §4.2 no decorator makes a nested def a macro
    ("nested_macro", _dp(ifd="@A.macro\ndef push_it(i):  # X\n    s.push(inp[i, 0])\npush_it(i)"),
     "a nested function is refused"),
]


@pytest.mark.parametrize("name,body,message", REFUSED, ids=[c[0] for c in REFUSED])
def test_refused_at_the_line(tmp_path, name, body, message):
    assert_refused_at_the_line(tmp_path, name, body, message)
