"""The guide's @A.ir_module programs (examples/guide) against an independent NumPy computation
of what the guide says they compute, on ref (fsim for a datapath-only program), TLM and RTL."""
import os
import subprocess

import numpy as np
import pytest

from axcore import _paths, runtime
from axcore.compiler.interpreter import emulation as emu


def _scale_inputs(seed):
    return {"inp": np.random.default_rng(seed).uniform(-100, 100, (8, 64)).astype(np.float32)}


@pytest.mark.parametrize("backend", ["fsim", "tlm", "rtl"])
def test_scale_datapath(backend):
    import scale
    ins = _scale_inputs(1)
    res = runtime.run(runtime.compile(scale.Scale), backend=backend, inputs=ins)
    np.testing.assert_array_equal(res.outputs["out"], emu.rf18(emu.rf18(ins["inp"]) * 2.0))
    if backend != "fsim":
        assert res.cycles > 0


@pytest.mark.parametrize("backend", ["ref", "tlm", "rtl"])
def test_scale_operator(backend):
    import scale_op
    ins = _scale_inputs(2)
    b = runtime.compile(scale_op.Scale)
    res = runtime.run(b, backend=backend, inputs=ins)
    np.testing.assert_array_equal(res.outputs[b.outputs[0].name], emu.rf18(emu.rf18(ins["inp"]) * 2.0))


@pytest.mark.parametrize("backend", ["ref", "tlm", "rtl"])
def test_depthwise_conv3x3(backend):
    """§6.3 as written: the filter is an input in the guide's (C_BLOCKS, KH, KW, 1) layout."""
    import depthwise_conv3x3 as d
    rng = np.random.default_rng(3)
    ins = {"inp": rng.integers(-128, 128, (d.IN_H, d.IN_W, d.C_BLOCKS * 64)).astype(np.int8),
           "flt": rng.integers(-128, 128, (d.C_BLOCKS, d.KH, d.KW, 64)).astype(np.int8)}
    res = runtime.run(runtime.compile(d.DepthwiseConv3x3), backend=backend, inputs=ins)
    np.testing.assert_array_equal(res.outputs["out"], d.reference(ins)["out"])


@pytest.fixture(scope="module")
def vit_bundle():
    import vit_patch_embed as v
    return v, runtime.compile(v.ViTPatchEmbed)


@pytest.mark.parametrize("backend", ["ref", "tlm", "rtl"])
def test_vit_patch_embed(backend, vit_bundle):
    """§13 as written: the NCHW image, w_conv and w_mean inputs at the guide's shapes (K = 16 384,
    two K passes), against the program's NumPy reference; every image channel random here (the
    guide's zero padding would leave 61 of the 64 channels' weights untested)."""
    v, b = vit_bundle
    rng = np.random.default_rng(7)
    ins = v.inputs(8)
    ins["arg0"] = rng.integers(-128, 128, ins["arg0"].shape).astype(np.int8)
    res = runtime.run(b, backend=backend, inputs=ins)
    got = res.outputs[b.outputs[0].name]
    assert got.shape == (1, v.N_PATCHES, v.HIDDEN_BLOCKS * 64)
    np.testing.assert_array_equal(got, v.reference(ins))
    if backend != "ref":
        assert res.cycles > 0


@pytest.mark.parametrize("backend", ["ref", "tlm", "rtl"])
def test_scriptop_dpu_cast(backend):
    """§4.3's AtomicDpuCast registers and runs; on ref its NumPy emulate is the reference."""
    import dpu_cast_op as d
    x = np.random.default_rng(5).uniform(-50, 50, (4, 128)).astype(np.float32)
    b = runtime.compile(d.DpuCastProgram)
    assert [n["op"] for n in b.graph] == ["py:atomic.dpu_cast"]
    res = runtime.run(b, backend=backend, inputs={"inp": x})
    np.testing.assert_array_equal(res.outputs[b.outputs[0].name], emu.rf18(x))


@pytest.mark.parametrize("backend", ["fsim", "tlm", "rtl"])
def test_matmul_section_6_2(backend):
    """§6.2's matrix multiply as the guide writes it (A.serial reductions in the IFD and the
    MatMul block), on its worked instance: inp 4 x 128 @ W 128 x 64, float32 out (through the DPU's
    float18)."""
    import guide_twins as tw
    mod = tw.matmul(4, 2, 1, False)
    w = tw.int8_values(128 * 64, 1).reshape(128, 64)  # (K, N_BLOCKS) PWORDs of 64 lanes: K x N
    x = np.random.default_rng(6).integers(-8, 8, (4, 128)).astype(np.int8)
    res = runtime.run(runtime.compile(mod), backend=backend, inputs={"inp": x})
    acc = (x.astype(np.int64) @ w.astype(np.int64)).astype(np.float32)  # exact: |acc| < 2^24
    np.testing.assert_array_equal(res.outputs["out"], emu.rf18(acc))   # the DPU's cast goes through float18 (§7)


_GUIDE = os.path.join(_paths.SOURCE_DIR, "examples", "guide")
_PROGRAMS = sorted(f[:-3] for f in os.listdir(_GUIDE) if f.endswith(".py") and not f.startswith("_"))


@pytest.mark.parametrize("program", _PROGRAMS)
def test_axc_compile_then_axrun_tlm_as_typed(program, tmp_path):
    """`axc compile examples/guide/P.py -o x.axb && axrun x.axb --backend tlm`, as typed: the inputs
    not given are seeded random data axrun names on stderr and writes to x.out/inputs/, the outputs
    go to x.out/. The scale programs' outputs are checked against NumPy on the data axrun made."""
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(runtime.__file__)))
    c = subprocess.run([_paths.AXC, "compile", os.path.join(_GUIDE, program + ".py"), "-o", "x.axb"], cwd=tmp_path,
                       env=env, capture_output=True, text=True)
    assert c.returncode == 0, c.stdout + c.stderr
    r = subprocess.run([_paths.AXRUN, "x.axb", "--backend", "tlm", "-q"], cwd=tmp_path, capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    inputs = runtime.load(tmp_path / "x.axb").inputs
    for b in inputs:
        assert f"axrun: input '{b.name}' not given: seeded random" in r.stderr
        assert f"pass --input {b.name}=FILE.npy" in r.stderr
    outs = sorted(f for f in os.listdir(tmp_path / "x.out") if f.endswith(".npy"))
    assert outs, r.stdout
    if program in ("scale", "scale_op"):
        x = np.load(tmp_path / "x.out" / "inputs" / "inp.npy")
        np.testing.assert_array_equal(np.load(tmp_path / "x.out" / outs[0]), emu.rf18(emu.rf18(x) * 2.0))
