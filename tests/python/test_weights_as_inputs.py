"""Weights as inputs and K passes (issue 24): aten.linear / aten.convolution with the weight a
runtime buffer (PyTorch's layouts repacked on the device through A.vtrsp; the guide's blocked
(C_out/64, KH, KW, C_in) layout loaded as it is), and a convolution whose window exceeds one IMC
residency (float18 partial sums). Every case against an independent NumPy computation, on every
backend."""
import numpy as np
import pytest

import axcore.script as A
from axcore import axol, runtime
from axcore.compiler.interpreter import emulation as emu
from axcore.script import CompileError

BACKENDS = ["ref", "fsim", "tlm", "rtl"]


def f18(x):
    """float64 -> float18 (11 significant bits, ties to even), no float32 in between."""
    m, e = np.frexp(np.asarray(x, dtype=np.float64))
    return np.ldexp(np.rint(np.ldexp(m, 11)), e - 11)


def _run(mod, ins, backend):
    b = runtime.compile(mod)
    res = runtime.run(b, backend=backend, inputs=ins)
    return res.outputs[b.outputs[0].name]


def _conv_hwio(x, w_hwio, stride, kh_range=None):
    """int sums of a valid convolution, x (H, W, C), w (KH, KW, C, O), over kernel rows kh_range."""
    kh, kw, _, _ = w_hwio.shape
    sh, sw = stride
    oh, ow = (x.shape[0] - kh) // sh + 1, (x.shape[1] - kw) // sw + 1
    out = np.zeros((oh, ow, w_hwio.shape[3]))
    for y in kh_range if kh_range is not None else range(kh):
        for z in range(kw):
            win = x[y:y + sh * (oh - 1) + 1:sh, z:z + sw * (ow - 1) + 1:sw, :].astype(np.float64)
            out += win @ w_hwio[y, z].astype(np.float64)
    return out


@A.ir_module
class LinearInputWeight:
    @A.prim_func
    def main(x: A.Buffer((8, 2), "int8x64", scope=A.DDR),        # (M, K) = (8, 128)
             w: A.Buffer((192, 2), "int8x64", scope=A.DDR)):     # PyTorch's (out, in) = (192, 128)
        A.output(axol.aten.linear(x, w))


@pytest.mark.parametrize("backend", BACKENDS)
def test_aten_linear_input_weight(backend):
    rng = np.random.default_rng(1)
    ins = {"x": rng.integers(-128, 128, (8, 128)).astype(np.int8),
           "w": rng.integers(-128, 128, (192, 128)).astype(np.int8)}
    want = emu.rf18((ins["x"].astype(np.int64) @ ins["w"].astype(np.int64).T).astype(np.float32))  # |acc| < 2^24
    np.testing.assert_array_equal(_run(LinearInputWeight, ins, backend), want)


@A.ir_module
class MatmulPartial:
    @A.prim_func
    def main(x: A.Buffer((4, 4), "int8x64", scope=A.DDR),       # (M, K) = (4, 256)
             w: A.Buffer((256, 2), "int8x64", scope=A.DDR)):    # (K, N) = (256, 128), an input
        imc0 = axol.atomic.load_imc(axol.atomic.slice_tensor(w, dim=0, start=0, end=128))    # K tile 0 resident
        s0 = axol.atomic.matmul(axol.atomic.slice_tensor(x, dim=1, start=0, end=128), imc0)
        imc1 = axol.atomic.load_imc(axol.atomic.slice_tensor(w, dim=0, start=128, end=256))  # then K tile 1 (§11.2)
        s1 = axol.atomic.matmul(axol.atomic.slice_tensor(x, dim=1, start=128, end=256), imc1, partial=s0)
        A.output(s1)


@pytest.mark.parametrize("backend", BACKENDS)
def test_atomic_matmul_partial(backend):
    """The guide's partial= (§11.2): each K tile's product added onto the sum of the ones before,
    in float18, the weight an input made resident one K tile at a time."""
    rng = np.random.default_rng(5)
    ins = {"x": rng.integers(-128, 128, (4, 256)).astype(np.int8),
           "w": rng.integers(-128, 128, (256, 128)).astype(np.int8)}
    x, w = ins["x"].astype(np.float64), ins["w"].astype(np.float64)
    want = f18(f18(x[:, 128:] @ w[128:]) + f18(x[:, :128] @ w[:128]))
    np.testing.assert_array_equal(_run(MatmulPartial, ins, backend), want.astype(np.float32))


@A.ir_module
class ConvOhwiInputWeight:
    @A.prim_func
    def main(x: A.Buffer((6, 6, 1), "int8x64", scope=A.DDR),            # NHWC without N, C_in 64
             w: A.Buffer((128, 3, 3, 1), "int8x64", scope=A.DDR)):      # OHWI, C_out 128
        A.output(axol.aten.convolution(x, w, stride=(1, 1), padding=(0, 0), dilation=(1, 1)))


@pytest.mark.parametrize("backend", BACKENDS)
def test_aten_convolution_ohwi_input_weight(backend):
    rng = np.random.default_rng(2)
    ins = {"x": rng.integers(-128, 128, (6, 6, 64)).astype(np.int8),
           "w": rng.integers(-128, 128, (128, 3, 3, 64)).astype(np.int8)}
    want = f18(_conv_hwio(ins["x"], np.transpose(ins["w"], (1, 2, 3, 0)), (1, 1)))
    np.testing.assert_array_equal(_run(ConvOhwiInputWeight, ins, backend), want.astype(np.float32))


# The guide's blocked layout, N = 1 input, and a window of 4 x 4 x 576 = 144 IMC tiles: more than
# one residency (128), so two K passes of 3 and 1 kernel rows, with a bias in pass 0.
KB = 9


@A.ir_module
class ConvBlockedSplitK:
    @A.prim_func
    def main(x: A.Buffer((1, 9, 9, KB), "int8x64", scope=A.DDR),
             w: A.Buffer((2, 4, 4, KB * 64), "int8x64", scope=A.DDR)):   # (C_out/64, KH, KW, C_in)
        bias = A.alloc_constant(np.linspace(-300, 300, 128).reshape(2, 64), "float32x64", scope=A.DDR, shape=(2,))
        A.output(axol.aten.convolution(x, w, bias=bias, stride=(2, 2), padding=(0, 0), dilation=(1, 1)))


@pytest.mark.parametrize("backend", BACKENDS)
def test_convolution_blocked_input_weight_in_k_passes(backend):
    rng = np.random.default_rng(3)
    ins = {"x": rng.integers(-128, 128, (1, 9, 9, KB * 64)).astype(np.int8),
           "w": rng.integers(-128, 128, (2, 4, 4, KB * 64 * 64)).astype(np.int8)}
    w = np.transpose(ins["w"].reshape(2, 4, 4, KB * 64, 64), (1, 2, 3, 0, 4)).reshape(4, 4, KB * 64, 128)
    rows = runtime.IMC_TILES // (4 * KB)
    assert rows == 3  # the case is two passes (3 + 1 kernel rows): the split is what this tests
    bias = f18(np.linspace(-300, 300, 128).astype(np.float32).astype(np.float64))
    acc = f18(f18(_conv_hwio(ins["x"][0], w, (2, 2), range(0, rows))) + bias)
    acc = f18(f18(_conv_hwio(ins["x"][0], w, (2, 2), range(rows, 4))) + acc)
    got = _run(ConvBlockedSplitK, ins, backend)
    assert got.shape == (1, 3, 3, 128)
    np.testing.assert_array_equal(got[0], acc.astype(np.float32))


@A.ir_module
class ConvInputBeyondL1:
    @A.prim_func
    def main(x: A.Buffer((96, 96, 2), "int8x64", scope=A.DDR),            # 1.18 MB: more than L1
             w: A.Buffer((2, 4, 4, 128), "int8x64", scope=A.DDR)):        # blocked, 32 tiles per block
        A.output(axol.aten.convolution(x, w, stride=(4, 4), padding=(0, 0), dilation=(1, 1)))


@pytest.mark.parametrize("backend", BACKENDS)
def test_convolution_input_beyond_l1_in_bands(backend):
    """The input streamed in bands of output rows, one pass, both output blocks in one residency."""
    rng = np.random.default_rng(4)
    ins = {"x": rng.integers(-128, 128, (96, 96, 128)).astype(np.int8),
           "w": rng.integers(-128, 128, (2, 4, 4, 128 * 64)).astype(np.int8)}
    w = np.transpose(ins["w"].reshape(2, 4, 4, 128, 64), (1, 2, 3, 0, 4)).reshape(4, 4, 128, 128)
    want = f18(_conv_hwio(ins["x"], w, (4, 4)))
    np.testing.assert_array_equal(_run(ConvInputBeyondL1, ins, backend), want.astype(np.float32))


@A.ir_module
class VitPatchEmbedOhwi:
    """§13 at the guide's shapes with w_conv an input in PyTorch's OHWI layout (6.3 MB): repacked
    on the device in bands of kernel rows (A.vtrsp), then as the guide's program."""
    @A.prim_func
    def main(arg0: A.Buffer((1, 64, 224, 4), "int8x64", scope=A.DDR),
             w_conv: A.Buffer((384, 16, 16, 1), "int8x64", scope=A.DDR),
             w_mean: A.Buffer((1, 1, 6), "float32x64", scope=A.DDR)):
        b0 = axol.aten.permute(arg0, dims=(0, 2, 3, 1))
        b1 = axol.aten.slice_tensor(b0, dim=2, end=224)
        b2 = axol.aten.convolution(b1, w_conv, stride=(16, 16), padding=(0, 0), dilation=(1, 1))
        A.output(axol.aten.sub_tensor(axol.aten.reshape(b2, shape=(1, 196, 6)), w_mean))


@pytest.mark.parametrize("backend", ["ref", "tlm"])  # 1.7 M cycles: the RTL runs the small OHWI case above
def test_vit_patch_embed_ohwi_input_weight(backend):
    import vit_patch_embed as v
    ins = v.inputs(21)
    ins["arg0"] = np.random.default_rng(3).integers(-128, 128, ins["arg0"].shape).astype(np.int8)
    want = v.reference(ins)
    ins["w_conv"] = ins["w_conv"].reshape(6, 16, 16, 64, 64).transpose(0, 4, 1, 2, 3).reshape(384, 16, 16, 64)
    np.testing.assert_array_equal(_run(VitPatchEmbedOhwi, ins, backend), want)


@pytest.mark.parametrize("xs, ws, act, pad, match", [
    ((9, 9, KB), (2, 4, 4, KB * 64), "relu", (0, 0), "only a bias distributes over the partial sums"),
    ((9, 9, KB), (2, 4, 4, KB * 64), "none", (1, 1), "K passes, which take no padding"),
    ((9, 9, 2), (2, 4, 4, 3), "none", (0, 0), "PWORDs on its last axis"),
])
def test_convolution_refusals(xs, ws, act, pad, match):
    with pytest.raises(CompileError, match=match):
        @A.ir_module
        class Refused:
            @A.prim_func
            def main(x: A.Buffer(xs, "int8x64", scope=A.DDR), w: A.Buffer(ws, "int8x64", scope=A.DDR)):
                A.output(axol.aten.convolution(x, w, padding=pad, activation=act))
        runtime.compile(Refused)
