"""The compiler's authoring surface for operators (guide §4.3): ``op_registry`` (ScriptOp, Arg,
BufferInfo, register_op), ``dtypes`` (Int8x64[tir.Buffer, "..."]), ``device`` (DatapathKind),
``interpreter.emulation`` (emu.rf18)."""
