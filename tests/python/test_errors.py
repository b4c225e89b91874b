"""The guide's quoted errors, from Python source: the message and the line."""
import textwrap

import pytest

from axcore import runtime
from axcore.script import CompileError


def _build(tmp_path, body, name="prog"):
    src = textwrap.dedent(body)
    p = tmp_path / f"{name}.py"
    p.write_text(src)
    import importlib.util
    spec = importlib.util.spec_from_file_location(name, p)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _line_of(body, marker):
    for k, line in enumerate(textwrap.dedent(body).splitlines(), 1):
        if marker in line:
            return k
    raise AssertionError(marker)


def _assert_last_frame_is(info, filename, lineno):
    """The traceback's last frame is the user's line, not the package's internals."""
    tb = info.tb
    while tb.tb_next is not None:
        tb = tb.tb_next
    assert tb.tb_frame.f_code.co_filename == filename and tb.tb_lineno == lineno, (tb.tb_frame.f_code.co_filename,
                                                                                    tb.tb_lineno)


def assert_refused_at_the_line(tmp_path, name, body, message):
    """Building and compiling `body` (module class M) raises a CompileError holding `message` at the
    line marked `# X`, with the traceback ending there."""
    with pytest.raises(CompileError) as info:
        mod = _build(tmp_path, body, name)
        runtime.compile(mod.M)
    err = info.value
    assert message in err.msg, err.msg
    assert err.lineno == _line_of(body, "# X"), (err.lineno, err.msg)
    _assert_last_frame_is(info, err.filename, err.lineno)


DP = '''
import axcore.script as A

@A.ir_module
class M:
    @A.prim_func
    def main(inp: A.Buffer((8, 1), "float32x64", scope=A.DDR)):
        out = A.alloc_buffer((8, 1), "float32x64", scope=A.DDR)
        for i in A.grid(8):
            with A.Datapath():
                s = A.decl_stream("float32x64")
                d = A.decl_stream("float32x64")
                with A.IFD(num=0):
{ifd}
                with A.DPU():
{dpu}
                with A.ODR():
                    out[i, 0] = d.pop()
        A.output(out)
'''


def _dp(ifd="s.push(inp[i, 0])", dpu='d.push(A.cast(s.pop(), "float32x64"))'):
    ind = " " * 20
    return DP.replace("{ifd}", textwrap.indent(ifd, ind)).replace("{dpu}", textwrap.indent(dpu, ind))


CASES = [
    ("var_read", _dp(dpu='v = A.var("float18x64")\nv = A.cast(s.pop(), "float18x64")\n'
                         'd.push(A.cast(v[0], "float32x64"))  # X'),
     "Cannot index v with [0]: it is a var (a.k.a. single element buffer)", False),
    ("var_store", _dp(dpu='v = A.var("float18x64")\nv[0] = A.cast(s.pop(), "float18x64")  # X\n'
                          'd.push(A.cast(v, "float32x64"))'),
     "Cannot store into v at 0", False),
    ("ifd_let", _dp(ifd="x = inp[i, 0]  # X\ns.push(x)"), "Expected a single StreamPush", False),
    ("dpu_let", _dp(dpu='x = A.cast(s.pop(), "float18x64")\nd.push(A.cast(x, "float32x64"))  # X'),
     "Failed to parse TIR statement", False),
    ("non_affine", _dp(ifd="s.push(inp[(i * 5) % 8, 0])  # X"), "Expected linear index", True),
    ("nested_def", _dp(ifd="def _addr(i):  # X\n    return i\ns.push(inp[i, 0])"),
     "a nested function is refused", False),
    ("while", _dp(ifd="while True:  # X\n    pass\ns.push(inp[i, 0])"), "a while loop is not accepted", False),
    ("dict", _dp(ifd="q = {1: 2}  # X\ns.push(inp[i, 0])"), "a dict literal is not accepted", False),
    ("lambda", _dp(ifd="q = lambda: 1  # X\ns.push(inp[i, 0])"), "a lambda is not accepted", False),
    ("regs_scope", _dp(ifd="r = A.alloc_buffer((4,), \"float18x64\", scope=A.DPU_REGISTERS)  # X\n"
                           "s.push(inp[i, 0])"), "A.alloc_buffer cannot allocate the register scope", False),
    # §14: a data-dependent index (the guide: "with no source line"; here at the line)
    ("data_index", _dp(ifd="s.push(inp[inp[i, 0], 0])  # X"), "Cannot match type handle vs int32", True),
    # §7: a float18x64 value against a direct float32x64 buffer read (the guide: "fails late ... without
    # a source line"; here at the line)
    ("mixed_types", _dp(dpu='d.push(A.cast(s.pop(), "float18x64") * inp[i, 0])  # X'),
     "mismatched types. float32x64 vs. float18x64", True),
]


@pytest.mark.parametrize("name,body,message,at_compile", CASES, ids=[c[0] for c in CASES])
def test_guide_error(tmp_path, name, body, message, at_compile):
    with pytest.raises(CompileError) as info:
        mod = _build(tmp_path, body, name)
        if at_compile:
            runtime.compile(mod.M)
    err = info.value
    assert message in err.msg, err.msg
    assert err.lineno == _line_of(body, "# X"), (err.lineno, err.msg)
    assert err.filename == str(tmp_path / f"{name}.py")
    _assert_last_frame_is(info, err.filename, err.lineno)


def test_pep563_points_at_def(tmp_path):
    body = '''
    from __future__ import annotations
    import axcore.script as A

    def make(seq_len):
        @A.ir_module
        class M:
            @A.prim_func
            def main(x: A.Buffer((1, seq_len, 1), "float32x64")):  # X
                A.output(x)
        return M

    M = make(4)
    '''
    with pytest.raises(CompileError) as info:
        _build(tmp_path, body, "pep563")
    assert "expected Object but got str" in info.value.msg
    assert info.value.lineno == _line_of(body, "# X")


def test_none_binding(tmp_path):
    body = _dp(ifd="bias = None  # X\ns.push(inp[i, 0])")
    with pytest.raises(CompileError) as info:
        _build(tmp_path, body, "none")
    assert "None" in info.value.msg and info.value.lineno == _line_of(body, "# X")


ACC = '''
import axcore.script as A

@A.ir_module
class M:
    @A.prim_func
    def main(inp: A.Buffer((1, 1), "int8x64", scope=A.DDR)):
        out = A.alloc_buffer((1, 1), "int32x64", scope=A.DDR)
        w_imc = A.alloc_imc((1, 1), name="imc")
        with A.Datapath(kind=A.DP_MVMEXE):
            ifd = A.decl_stream("int8x64")
            mvm = A.decl_stream("int32x64")
            with A.IFD(num=0):
                ifd.push(inp[0, 0])
            with A.pseudo.MatMul():
                acc = A.mvm_accumulator()
                A.reset_accumulator(acc)
{matmul}
                mvm.push(acc)
            with A.ODR():
                out[0, 0] = mvm.pop()
        A.output(out)
'''


@pytest.mark.parametrize("stmt,message", [
    ("acc[0] = A.mvm_1x1(ifd.pop(), w_imc[0, 0])  # X", "Cannot store into acc"),
    ("acc += A.mvm_1x1(ifd.pop(), w_imc[0, 0]) + acc[0]  # X", "Cannot index acc"),
], ids=["store", "read"])
def test_accumulator_index_refused(tmp_path, stmt, message):
    """The accumulator takes no index (the builder's check_register_index): `acc[0] = x` is refused at
    the user's line with the guide's text, a store said as a store."""
    body = ACC.replace("{matmul}", " " * 16 + stmt)
    with pytest.raises(CompileError) as info:
        _build(tmp_path, body, "acc_index")
    err = info.value
    assert message in err.msg and "the MVM accumulator is a register, read and written without an index" in err.msg, \
        err.msg
    assert err.lineno == _line_of(body, "# X"), (err.lineno, err.msg)
    _assert_last_frame_is(info, err.filename, err.lineno)


OP = '''
import axcore.script as A
from axcore import tir
from axcore.compiler.device import DatapathKind
from axcore.compiler.dtypes import Float32x64
from axcore.axol.common import UnsupportedError
from axcore.compiler.op_registry import Arg, BufferInfo, ScriptOp, register_op


class Copy(ScriptOp):
    data = Arg(Float32x64[tir.Buffer, "..."])
    output = Arg(Float32x64[tir.Buffer, "..."] | BufferInfo, default=None, is_output=True)
    datapath_kind = Arg(DatapathKind | None, default=None, kw=True)

    def validate(self):
        if self.datapath_kind == "DP_MVMEXE":
            raise UnsupportedError("a copy runs on the DWPU datapath")

    def infer_outputs(self):
        return {"output": BufferInfo(shape=tuple(self.data.shape), dtype=self.data.dtype, scope=self.data.scope())}

    def implementation(self):
        with A.script():
            for i in A.grid(*self.data.shape, always_tuple=True):
                with A.Datapath(kind=self.datapath_kind):
                    s = A.decl_stream(self.data.dtype)
                    d = A.decl_stream(self.output.dtype)
                    with A.IFD(num=0):
                        s.push(self.data[i])
                    with A.DPU():
                        d.push(A.cast(s.pop(), self.output.dtype))
                    with A.ODR():
                        self.output[i] = d.pop()


copy = register_op(Copy, "axol.atomic.{name}")
{outside}

@A.ir_module
class M:
    @A.prim_func
    def main(inp: A.Buffer((2, 1), "float32x64", scope=A.DDR)):
        out = {call}  # X
        A.output(out)
'''

OP_CALLS = [
    # The guide's rule (§4.3): positional arguments bind in declaration order (data, then output);
    # datapath_kind is keyword-only.
    ("op_positional", "copy(inp, DatapathKind.DP_DWPU)",
     "atomic.op_positional: argument 'output': takes tensor, got a string"),
    ("op_too_many", "copy(inp, None, DatapathKind.DP_DWPU)", "atomic.op_too_many takes 2 positional arguments, got 3"),
    ("op_twice", "copy(inp, data=inp)", "atomic.op_twice: argument 'data' is given twice"),
    ("op_output", "copy(inp, output=inp)", "atomic.op_output: argument 'output': inp is an input of the function"),
    ("op_where", "copy(inp, where=inp[0, 0] > 0)",
     "atomic.op_where: argument 'where': a device-time predicate; where= gates the call at build time and this one "
     "is known only at device time"),
    ("op_dtype", 'copy(A.alloc_buffer((2, 1), "int8x64", scope=A.DDR))',
     "axol.atomic.op_dtype: argument 'data': dtype int8x64 is not one of float32x64"),
    ("op_unsupported", "copy(inp, datapath_kind=DatapathKind.DP_MVMEXE)",
     "axol.atomic.op_unsupported: a copy runs on the DWPU datapath"),
]


@pytest.mark.parametrize("name,call,message", OP_CALLS, ids=[c[0] for c in OP_CALLS])
def test_script_op_call_refused(tmp_path, name, call, message):
    """A ScriptOp's call refused at the user's line: its binding (the extension's), an argument of a dtype the
    Arg does not admit, validate() raising UnsupportedError."""
    body = OP.replace("{name}", name).replace("{call}", call).replace("{outside}", "")
    with pytest.raises(CompileError) as info:
        _build(tmp_path, body, name)
    err = info.value
    assert message in err.msg, err.msg
    if name in ("op_positional", "op_too_many"):
        assert "pass datapath_kind by name (keyword-only)" in err.hint, err.hint
    assert err.lineno == _line_of(body, "# X"), (err.lineno, err.msg)
    _assert_last_frame_is(info, err.filename, err.lineno)


def test_script_op_call_by_name_and_enum(tmp_path):
    """A keyword-only Enum argument passes by its value; the output is named after the variable."""
    body = OP.replace("{name}", "op_enum").replace("{outside}", "").replace(
        "{call}", "copy(inp, datapath_kind=DatapathKind.DP_DWPU, output=None)")
    mod = _build(tmp_path, body, "op_enum")
    ir = mod.M.dump()
    assert "DP_DWPU" in ir and "out" in ir, ir


def test_script_op_called_outside_a_region(tmp_path):
    """Called at module scope, the op says where it belongs; the traceback ends at the call."""
    body = OP.replace("{name}", "op_outside").replace("{call}", "copy(inp)").replace("{outside}", "copy(None)  # O")
    with pytest.raises(Exception, match=r"axol\.atomic\.op_outside\(\.\.\.\) is called outside a parsed region") as info:
        _build(tmp_path, body, "op_outside")
    _assert_last_frame_is(info, str(tmp_path / "op_outside.py"), _line_of(body, "# O"))


def test_grid_extent_must_be_build_time(tmp_path):
    """A.grid (the extension's) hands an extent that is not a Python int to the build-time check."""
    body = DP.replace("for i in A.grid(8):", "for i in A.grid(inp[0, 0]):  # X").replace(
        "{ifd}", " " * 20 + "s.push(inp[i, 0])").replace("{dpu}", " " * 20 + 'd.push(A.cast(s.pop(), "float32x64"))')
    with pytest.raises(CompileError) as info:
        _build(tmp_path, body, "grid_extent")
    assert "an A.grid extent must be a build-time integer, got Value" in info.value.msg, info.value.msg
    assert info.value.lineno == _line_of(body, "# X")
