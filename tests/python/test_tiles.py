"""The guide's §11.2 tile handles and §12 hand-written software pipeline, written as the guide
writes them, against NumPy on ref, fsim, TLM and RTL; a device-time predicate refused at its line."""
import numpy as np
import pytest

import axcore.script as A
from axcore import axol, runtime
from axcore.runtime import HazardWarning
from axcore.script import CompileError
from axcore.compiler.interpreter import emulation as emu

M, K_BLOCKS, N_BLOCKS = 3, 4, 2
K_MIN, K_MAX = 1, 2  # IMC tiles of 2 K blocks: K = 256 in two K tiles


@A.ir_module
class KSplit:  # §11.2, line for line (the weight b_2d an input)
    @A.prim_func
    def main(a_2d: A.Buffer((M, K_BLOCKS), "int8x64", scope=A.DDR),
             b_2d: A.Buffer((K_BLOCKS * 64, N_BLOCKS), "int8x64", scope=A.DDR)):
        m, k_blocks, n_blocks, k_min, k_max = M, K_BLOCKS, N_BLOCKS, K_MIN, K_MAX
        c_2d = A.alloc_buffer((m, n_blocks), "float32x64", scope=A.DDR)
        a_l1 = A.alloc_buffer((m, k_blocks), "int8x64", scope=A.L1)
        b_l1 = A.alloc_buffer((k_blocks * 64, n_blocks), "int8x64", scope=A.L1)
        c_l1 = A.alloc_buffer((m, n_blocks), "float32x64", scope=A.L1)
        imc = A.alloc_imc((k_blocks, n_blocks))
        with A.tiles(m) as m_tile:
            axol.atomic.full((m_tile.lanes, n_blocks), 0.0, output=c_l1.tile(m_tile, dim=0))
            axol.atomic.copy(a_2d.tile(m_tile, dim=0), output=a_l1.tile(m_tile, dim=0))
            with A.tiles(k_blocks, tile_min=k_min, tile_max=k_max) as k_tile:
                k_rows = A.Ramp(k_tile.base * 64, 1, k_tile.lanes * 64)
                axol.atomic.copy(b_2d.tile(k_rows, dim=0), output=b_l1.tile(k_rows, dim=0))
                with A.tiles(n_blocks) as n_tile:
                    axol.atomic.load_imc(b_l1.tile(k_rows, dim=0).tile(n_tile, dim=1),
                                         imc.tile(k_tile, dim=0).tile(n_tile, dim=1))
                    axol.atomic.matmul(matrix_ifd=a_l1.tile(m_tile, dim=0).tile(k_tile, dim=1),
                                       matrix_imc=imc.tile(k_tile, dim=0).tile(n_tile, dim=1),
                                       partial=c_l1.tile(m_tile, dim=0).tile(n_tile, dim=1),
                                       output=c_l1.tile(m_tile, dim=0).tile(n_tile, dim=1))
            axol.atomic.copy(c_l1.tile(m_tile, dim=0), output=c_2d.tile(m_tile, dim=0))
        A.output(c_2d)


def _k_split_reference(a, b):
    want = np.zeros((M, N_BLOCKS * 64), np.float32)
    for k0 in range(0, K_BLOCKS * 64, K_MAX * 64):
        p = a[:, k0:k0 + K_MAX * 64].astype(np.int64) @ b[k0:k0 + K_MAX * 64].astype(np.int64)
        want = emu.rf18(emu.rf18(want) + emu.rf18(p.astype(np.float32)))
    return want


@pytest.mark.parametrize("backend", ["ref", "fsim", "tlm", "rtl"])
def test_k_split_as_the_guide_writes_it(backend):
    rng = np.random.default_rng(11)
    ins = {"a_2d": rng.integers(-20, 21, (M, K_BLOCKS * 64)).astype(np.int8),
           "b_2d": rng.integers(-20, 21, (K_BLOCKS * 64, N_BLOCKS * 64)).astype(np.int8)}
    b = runtime.compile(KSplit)
    res = runtime.run(b, backend=backend, inputs=ins)
    np.testing.assert_array_equal(res.outputs["c_2d"], _k_split_reference(ins["a_2d"], ins["b_2d"]))


N_TILES, ROWS, KB, NB = 4, 64, 4, 2
W = np.random.default_rng(12).integers(-4, 5, (KB * 64, NB * 64)).astype(np.int8)


def pipelined(drain):
    """§12: y = x @ W over N_TILES tiles; the stages gated by where= on the pipeline step."""

    @A.ir_module
    class Pipelined:
        @A.prim_func
        def main(x: A.Buffer((N_TILES * ROWS, KB), "int8x64", scope=A.DDR)):
            n_tiles = N_TILES
            w = A.alloc_constant(W.ravel().tolist(), "int8x64", scope=A.DDR, shape=(KB * 64, NB))
            imc = axol.atomic.load_imc(w)
            x_l1 = A.alloc_buffer((2, ROWS, KB), "int8x64", scope=A.L1)  # one slot per in-flight step
            y_l1 = A.alloc_buffer((2, ROWS, NB), "float32x64", scope=A.L1)
            y = A.alloc_buffer((N_TILES * ROWS, NB), "float32x64", scope=A.DDR)
            with A.tiles(n_tiles, drain=drain) as t:
                is_load, is_compute, is_store = t.is_load, t.is_compute, t.is_store
                load, compute, store = t.stage(0), t.stage(1), t.stage(2)
                axol.atomic.copy(x.tile(A.Ramp(load.base * ROWS, 1, load.lanes * ROWS), dim=0),
                                 output=x_l1[load.slot()], id="load", where=is_load)
                axol.atomic.matmul(x_l1[compute.slot()], imc, output=y_l1[compute.slot()], id="compute",
                                   where=is_compute)
                axol.atomic.copy(y_l1[store.slot()], output=y.tile(A.Ramp(store.base * ROWS, 1, store.lanes * ROWS),
                                                                   dim=0), id="store", where=is_store)
                with A.when(is_load): A.waits("load")  # noqa: E701 - the guide's one-line form
                with A.when(is_compute): A.waits("compute")  # noqa: E701
                with A.when(is_store): A.waits("store")  # noqa: E701
            A.output(y)

    return Pipelined


@pytest.fixture(scope="module")
def pipeline_bundles():
    """drain=2 compiles clean (werror); with drain=0 the stages of one step depend on each other and
    are waited only at its end: the compiler orders them and says so (the §14 wait hazard)."""
    with pytest.warns(HazardWarning, match="no A.sync waits for"):
        unpipelined = runtime.compile(pipelined(0))
    return {2: runtime.compile(pipelined(2), werror=True), 0: unpipelined}


@pytest.mark.parametrize("backend", ["ref", "fsim", "tlm", "rtl"])
def test_pipeline_as_the_guide_writes_it(backend, pipeline_bundles):
    x = np.random.default_rng(13).integers(-30, 31, (N_TILES * ROWS, KB * 64)).astype(np.int8)
    want = emu.rf18((x.astype(np.int64) @ W.astype(np.int64)).astype(np.float32))
    cycles = {}
    for drain, b in pipeline_bundles.items():
        assert [n["op"] for n in b.graph].count("linear") == N_TILES  # one compute per tile, gated per step
        res = runtime.run(b, backend=backend, inputs={"x": x})
        np.testing.assert_array_equal(res.outputs["y"], want)
        cycles[drain] = res.cycles
    if backend in ("tlm", "rtl"):  # the stages overlap: fewer device cycles than one after the other
        print(f"{backend}: drain=2 {cycles[2]} cycles, drain=0 {cycles[0]}")
        assert 0 < cycles[2] < cycles[0]


def _refused(make):
    with pytest.raises(CompileError) as e:
        runtime.compile(make())
    return e.value


def test_a_device_time_where_is_refused_at_its_line():
    def make():
        @A.ir_module
        class DeviceWhere:
            @A.prim_func
            def main(x: A.Buffer((4, 1), "float32x64", scope=A.DDR)):
                acc = A.alloc_buffer((4, 1), "float32x64", scope=A.L1)
                axol.atomic.full((4, 1), 0.0, output=acc)
                for i in A.serial(4):
                    axol.atomic.add(acc, x, output=acc, where=i == 0)  # the line refused
                A.output(acc)
        return DeviceWhere
    e = _refused(make)
    assert "device-time predicate" in str(e) and "t.is_load" in str(e)
    assert "axol.atomic.add(acc, x" in e.text


def test_a_device_time_when_at_the_top_level_is_refused_at_its_line():
    def make():
        @A.ir_module
        class DeviceWhen:
            @A.prim_func
            def main(x: A.Buffer((4, 1), "float32x64", scope=A.DDR)):
                for i in A.serial(4):
                    with A.when(i == 0):  # the line refused
                        A.output(axol.atomic.mul(x, 2.0))
        return DeviceWhen
    e = _refused(make)
    assert "decides such a predicate at build time" in str(e)
    assert "with A.when(i == 0)" in e.text
