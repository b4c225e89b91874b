# The guide's §4.3: a complete atomic op, a DPU cast (int8x64 <-> float*x64), authored as a ScriptOp.
# As the guide prints it, with the import lines changed (axelera.compiler.alto -> axcore; the two
# imports outside alto, axelera.config and tvm, -> axcore.config and axcore.tir) and the guide's
# placeholder <target-generation> filled in with this compiler's one target. The module and the
# __main__ part below the op are not the guide's.
from axcore.compiler.op_registry import Arg, BufferInfo, ScriptOp, register_op
from axcore.compiler.dtypes import Float16x64, Float32x64, Int8x64
from axcore.compiler.device import DatapathKind
from axcore.axol.common import UnsupportedError
from axcore.compiler.interpreter import emulation as emu
from axcore.config import HardwareGeneration
import axcore.script as A
import numpy as np
from axcore import tir

class AtomicDpuCast(ScriptOp):
    CAST_TYPES = (Int8x64[tir.Buffer, "..."] | Float16x64[tir.Buffer, "..."]
                  | Float32x64[tir.Buffer, "..."])

    data   = Arg(CAST_TYPES, description="Input tensor.")
    output = Arg(CAST_TYPES | BufferInfo, default=None, is_output=True,
                 description="Output; None → auto-infer (matches data).")
    datapath_kind = Arg(DatapathKind | None, default=None, kw=True, description="Optional datapath kind.")
    core          = Arg(int | None,          default=None, kw=True, description="Optional core.")

    def validate(self) -> None:
        # dtype is a STRING in validate / infer_outputs / implementation — the lane count is part
        # of it ("int8x64"). Compare against strings here; see emulate() below, where they read differently.
        if self.data.dtype not in {"int8x64", "float16x64", "float32x64"}:
            raise UnsupportedError("Unsupported input dtype")

    def infer_outputs(self) -> dict[str, BufferInfo]:
        return {"output": BufferInfo(shape=tuple(self.data.shape),
                                     dtype=self.data.dtype, scope=self.data.scope())}

    def implementation(self) -> None:
        with A.script():
            for loop_vars in A.grid(*self.data.shape, always_tuple=True):
                with A.Datapath(kind=self.datapath_kind, core=self.core):
                    ifd_stream = A.decl_stream(self.data.dtype)
                    dpu_stream = A.decl_stream(self.output.dtype)
                    with A.IFD(num=0):
                        ifd_stream.push(self.data[loop_vars])
                    with A.DPU():
                        dpu_stream.push(A.cast(ifd_stream.pop(), self.output.dtype))
                    with A.ODR():
                        self.output[loop_vars] = dpu_stream.pop()

    def emulate(self) -> None:
        # Here every operand is a NumPy array, so the SAME attributes read differently:
        #   .dtype  is a NumPy dtype  — np.int8, NOT "int8x64"  (note the contrast with validate)
        #   .shape  carries the lane axis — a buffer of (M, K_BLOCKS) int8x64 arrives as
        #           (M, K_BLOCKS, 64), so shape[-1] == 64 and negative axis indices shift by one
        # emu.rf18 rounds a float32 array to the DPU's native float18 precision. Apply it
        # whenever the op computes with the DPU's numerics — without it the reference is
        # too precise and the comparison fails (§7).
        x = emu.rf18(self.data.astype(np.float32))
        x = np.clip(np.round(x), -128, 127) if self.output.dtype == np.int8 else x
        np.copyto(self.output, x.astype(self.output.dtype))

dpu_cast = register_op(AtomicDpuCast, "axol.atomic.dpu_cast",
                       generation=HardwareGeneration.AXCORE, atomic=True)


@A.ir_module
class DpuCastProgram:  # not the guide's: a module calling the op
    @A.prim_func
    def main(inp: A.Buffer((4, 2), "float32x64", scope=A.DDR)):
        A.output(dpu_cast(inp))


if __name__ == "__main__":
    import sys

    from _run import main
    x = np.random.default_rng(5).uniform(-50, 50, (4, 128)).astype(np.float32)
    sys.exit(main(DpuCastProgram, {"inp": x}, lambda i: emu.rf18(i["inp"])))
