# The guide's §6.3: a 3x3 depthwise convolution over two channel blocks, through the operator library.
# Below the imports, the program as the guide prints it; the __main__ part runs it (not the guide's).
from axcore import axol
import axcore.script as A

KH, KW = 3, 3
C_BLOCKS = 2                                 # 128 channels
OUT_H, OUT_W = 8, 16
IN_H, IN_W = OUT_H + KH - 1, OUT_W + KW - 1  # the input the window reads

@A.ir_module
class DepthwiseConv3x3:
    @A.prim_func
    def main(
        inp: A.Buffer((IN_H, IN_W, C_BLOCKS), "int8x64", scope=A.DDR),
        flt: A.Buffer((C_BLOCKS, KH, KW, 1), "int8x64", scope=A.DDR),   # per-channel taps
    ):
        out = axol.core.dw_convolution_2d(inp, flt, stride=(1, 1), dilation=(1, 1),
                                          padding=(0, 0))
        A.output(out)


def reference(inputs):
    """What §6.3 says it computes: per channel c, out[y, x, c] = sum over the 3x3 window of
    inp[y + kh, x + kw, c] * flt[c, kh, kw] (int8 data, float32 result; the DPU's cast of the int32
    sum goes through float18, §7)."""
    import numpy as np
    from axcore.compiler.interpreter import emulation as emu
    x = inputs["inp"].astype(np.float64).reshape(IN_H, IN_W, C_BLOCKS * 64)
    w = inputs["flt"].astype(np.float64).reshape(C_BLOCKS, KH, KW, 64)       # (C_BLOCKS, KH, KW, lanes)
    w = np.moveaxis(w, 0, 2).reshape(KH, KW, C_BLOCKS * 64)                  # channel c = block * 64 + lane
    out = np.zeros((OUT_H, OUT_W, C_BLOCKS * 64))
    for kh in range(KH):
        for kw in range(KW):
            out += x[kh:kh + OUT_H, kw:kw + OUT_W, :] * w[kh, kw]
    return {"out": emu.rf18(out.astype(np.float32))}  # exact in float32: |sum| <= 9 * 128 * 128 < 2^24


if __name__ == "__main__":
    import sys

    import numpy as np

    from _run import main
    rng = np.random.default_rng(3)
    ins = {"inp": rng.integers(-128, 128, (IN_H, IN_W, C_BLOCKS * 64)).astype(np.int8),
           "flt": rng.integers(-128, 128, (C_BLOCKS, KH, KW, 64)).astype(np.int8)}
    sys.exit(main(DepthwiseConv3x3, ins, reference))
