# The guide's first program (Part II §1): a module with one datapath that scales its input by 2.
# Below the imports, the program as the guide prints it; the __main__ part runs it (not the guide's).
import numpy as np

import axcore.script as A

SCALE = np.full((1, 64), 2.0, np.float32)                       # the multiplier, 2.0 in every lane

@A.ir_module
class Scale:
    @A.prim_func
    def main(inp: A.Buffer((8, 1), "float32x64", scope=A.DDR)):
        out = A.alloc_buffer((8, 1), "float32x64", scope=A.DDR)
        scale = A.alloc_constant(SCALE, dtype="float32x64", scope=A.DDR)
        for i in A.grid(8):                                     # one datapath per element
            with A.Datapath():                                  # kind inferred (§6)
                ifd = A.decl_stream("float32x64")
                dpu = A.decl_stream("float32x64")
                with A.IFD(num=0):                              # feed
                    ifd.push(inp[i, 0])
                with A.DPU():                                   # compute, in float18 (§7)
                    dpu.push(A.cast(ifd.pop(), "float18x64") * A.cast(scale[0], "float18x64"))
                with A.ODR():                                   # store
                    out[i, 0] = dpu.pop()
        A.output(out)                                           # name the module's result


if __name__ == "__main__":
    import sys

    from _run import main
    rng = np.random.default_rng(1)
    x = rng.uniform(-100, 100, (8, 64)).astype(np.float32)
    # What the guide says it computes: every element times 2, in float18 (§7) -> float32.
    from axcore.compiler.interpreter import emulation as emu
    sys.exit(main(Scale, {"inp": x}, lambda i: {"out": emu.rf18(emu.rf18(i["inp"]) * 2.0)}))
