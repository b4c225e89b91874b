# The guide's Part II §2: the same work as Part II §1, as one operator call.
# Below the imports, the program as the guide prints it; the __main__ part runs it (not the guide's).
import numpy as np

from axcore import axol          # alto's operator library (§4.3)
import axcore.script as A

@A.ir_module
class Scale:
    @A.prim_func
    def main(inp: A.Buffer((8, 1), "float32x64", scope=A.DDR)):
        A.output(axol.atomic.mul(inp, 2.0))


if __name__ == "__main__":
    import sys

    from _run import main
    from axcore.compiler.interpreter import emulation as emu
    rng = np.random.default_rng(2)
    x = rng.uniform(-100, 100, (8, 64)).astype(np.float32)
    sys.exit(main(Scale, {"inp": x}, lambda i: emu.rf18(emu.rf18(i["inp"]) * 2.0)))
