# The guide's §13: the first five operators of ViT-S/16 (the patch-embed stem), composed in a prim_func.
# Below the imports, the program as the guide prints it; the part after it (a NumPy reference, seeded
# inputs, the __main__ run) is not the guide's.
from axcore import axol       # the operator library (§4.3)
import axcore.script as A

IMG_C, IMG_H, IMG_W = 64, 224, 224   # 3 image channels zero-padded to one PWORD (§5)
IMG_W_BLOCKS  = 4                    # W padded 224 → 256, packed while C is not yet innermost
PATCH_H, PATCH_W = 16, 16
HIDDEN_BLOCKS = 6                    # hidden dim 384 = 6 PWORDs
N_PATCHES     = (IMG_H // PATCH_H) * (IMG_W // PATCH_W)   # 14 * 14 = 196

@A.ir_module
class ViTPatchEmbed:                        # first 5 ops of ViT-S/16 (patch-embed stem)
    @A.prim_func
    def main(
        arg0:   A.Buffer((1, IMG_C, IMG_H, IMG_W_BLOCKS), "int8x64", scope=A.DDR),          # image (NCHW; W packed on the way in)
        w_conv: A.Buffer((HIDDEN_BLOCKS, PATCH_H, PATCH_W, IMG_C), "int8x64", scope=A.DDR), # patch-embed conv weight
        w_mean: A.Buffer((1, 1, HIDDEN_BLOCKS), "float32x64", scope=A.DDR),                 # per-channel mean
    ):
        b0 = axol.aten.permute(arg0, dims=(0, 2, 3, 1))                   # NCHW → NHWC; C becomes the packed axis
        b1 = axol.aten.slice_tensor(b0, dim=2, end=IMG_W)                 # trim padding column (256 → 224)
        b2 = axol.aten.convolution(b1, w_conv, stride=(PATCH_H, PATCH_W), # 16×16 stride-16 patch embedding
                                   padding=(0, 0), dilation=(1, 1))
        b3 = axol.aten.reshape(b2, shape=(1, N_PATCHES, HIDDEN_BLOCKS))   # (1,14,14,6) → (1,196,6)
        b4 = axol.aten.sub_tensor(b3, w_mean)                            # per-channel normalization
        A.output(b4)


def f18(x):
    """float64 values rounded to the DPU's float18 (1 sign, 7 exponent bits, 10 fraction bits;
    round to nearest even), straight from the exact value (no float32 in between: the int32 sums
    here reach 2^27, where rounding through float32 first could round twice)."""
    import numpy as np
    m, e = np.frexp(np.asarray(x, dtype=np.float64))      # x = m * 2^e, 0.5 <= |m| < 1
    return np.ldexp(np.rint(np.ldexp(m, 11)), e - 11)     # 11 significant bits, ties to even


def reference(inputs):
    """What §13 says it computes, in NumPy: the NCHW image permuted to NHWC, the padding columns
    trimmed, the 16x16 stride-16 patch embedding (int8 x int8, integer sums, exact in float64),
    flattened to 196 patches, minus the per-channel mean (float18 in the DPU, float32 out).
    w_conv[hb, kh, kw, c] is a PWORD of the 64 output channels hb*64 .. hb*64+63 of input channel c.

    The window (K = 16 * 16 * 64 = 16 384) is twice one IMC residency: the device sums it in K
    passes of whole kernel rows (imc_tiles / (PATCH_W * IMG_C / 64) rows each, one output block per
    residency), each pass's int32 sum rounded to float18 and added to the running float18 sum
    (docs/compiler_ops.md). The reference sums the same passes."""
    import numpy as np
    from axcore import runtime
    x = np.transpose(inputs["arg0"].astype(np.float64), (0, 2, 3, 1))[0, :, :IMG_W, :]   # (224, 224, 64) NHWC
    w = inputs["w_conv"].astype(np.float64).reshape(HIDDEN_BLOCKS, PATCH_H, PATCH_W, IMG_C, 64)
    w = np.transpose(w, (1, 2, 3, 0, 4)).reshape(PATCH_H, PATCH_W, IMG_C, HIDDEN_BLOCKS * 64)  # (kh, kw, c, o)
    patches = x.reshape(IMG_H // PATCH_H, PATCH_H, IMG_W // PATCH_W, PATCH_W, IMG_C)          # (oh, kh, ow, kw, c)
    rows = runtime.IMC_TILES // (PATCH_W * IMG_C // 64)                                     # kernel rows per pass
    b2 = None
    for kh0 in range(0, PATCH_H, rows):
        acc = np.einsum("ahbwc,hwco->abo", patches[:, kh0:kh0 + rows], w[kh0:kh0 + rows], optimize=True)
        b2 = f18(acc) if b2 is None else f18(f18(acc) + b2)
    b3 = b2.reshape(1, N_PATCHES, HIDDEN_BLOCKS * 64)
    b4 = f18(b3 - f18(inputs["w_mean"].astype(np.float64)))
    return b4.astype(np.float32)


def inputs(seed=13):
    """Seeded inputs: an image of 3 channels in -128..127, zero-padded to 64 channels and W 256
    (as the guide's comments say); weights -4..3; a per-channel mean -16..16."""
    import numpy as np
    rng = np.random.default_rng(seed)
    img = np.zeros((1, IMG_C, IMG_H, IMG_W_BLOCKS * 64), np.int8)
    img[:, :3, :, :IMG_W] = rng.integers(-128, 128, (1, 3, IMG_H, IMG_W))
    return {"arg0": img,
            "w_conv": rng.integers(-4, 4, (HIDDEN_BLOCKS, PATCH_H, PATCH_W, IMG_C * 64)).astype(np.int8),
            "w_mean": rng.uniform(-16, 16, (1, 1, HIDDEN_BLOCKS * 64)).astype(np.float32)}


if __name__ == "__main__":
    import sys

    from _run import main
    sys.exit(main(ViTPatchEmbed, inputs(), reference))
