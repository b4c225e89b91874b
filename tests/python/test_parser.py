"""The parser's caches and loops: a rebuild of a class builds the same IR as its first build (the
compiled expressions and located bodies are reused), and the loop forms of §4.4 / §6.2 build."""
import textwrap

import pytest

import axcore.script as A


def _load(tmp_path, body, name):
    import importlib.util
    p = tmp_path / f"{name}.py"
    p.write_text(textwrap.dedent(body))
    spec = importlib.util.spec_from_file_location(name, p)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


PROGRAM = '''
import axcore.script as A

FLAG = True
ROWS = 4

def pick(a, b):
    return a if FLAG and ROWS > 2 else b        # a build-time helper (§4.1)

@A.ir_module
class M:
    @A.prim_func
    def main(inp: A.Buffer((ROWS, 2), "float32x64", scope=A.DDR)):
        out = A.alloc_buffer((ROWS, 2), "float32x64", scope=A.DDR)
        for i in A.grid(ROWS):
            with A.Datapath():
                s = A.decl_stream("float32x64")
                d = A.decl_stream("float32x64")
                for j in A.serial(2):
                    with A.IFD(num=0):
                        s.push(inp[i, pick(j, 0) if 0 < ROWS <= 8 else 0])
                with A.DPU():
                    for j in A.serial(2):
                        d.push(A.cast(s.pop(), "float32x64"))
                for j in A.serial(0, 2):
                    with A.ODR():
                        out[i, j] = d.pop()
        A.output(out)
'''


def _canonical(ir):
    import re
    return re.sub(r"\b([a-z]+)\d+\b", r"\1", ir)  # fresh-name counters run on through a process


def test_rebuild_is_the_same_module(tmp_path):
    mod = _load(tmp_path, PROGRAM, "rebuild")
    first = mod.M.dump()
    again = A.ir_module(mod.M.cls)
    assert _canonical(again.dump()) == _canonical(first)
    assert "A.serial(2)" in first and first.count("A.serial(") == 3  # A.serial(n) and A.serial(a, b)


def test_conditional_expression_is_rewritten_once(tmp_path):
    """and / chained comparisons / x if c else y are rewritten on a copy: the cached tree keeps the
    original expression, so a rebuild reads the same source."""
    import ast
    mod = _load(tmp_path, PROGRAM, "rewrite")
    A.ir_module(mod.M.cls)
    from axcore.script import _parser as P
    tree = P.file_tree(str(tmp_path / "rewrite.py"))
    assert not any(isinstance(n, ast.Lambda) for n in ast.walk(tree))
    assert any(isinstance(n, ast.IfExp) for n in ast.walk(tree))


def test_edited_file_is_parsed_again(tmp_path):
    """A file rewritten with the same number of lines and run again builds what it now says."""
    first = _load(tmp_path, PROGRAM, "edited").M.dump()
    again = _load(tmp_path, PROGRAM.replace("A.grid(ROWS):", "A.grid(ROWS - 1):"), "edited").M.dump()
    assert "A.grid(4)" in first and "A.grid(3)" in again


OPERATOR_THEN_ERROR = '''
import axcore.script as A
from dpu_cast_op import dpu_cast


@A.ir_module
class M:
    @A.prim_func
    def main(inp: A.Buffer((4, 2), "float32x64", scope=A.DDR)):
        out = A.alloc_buffer((4, 2), "float32x64", scope=A.DDR)
        out[0, 0] = dpu_cast(inp)[0, 0, 0]
        A.output(out)
'''


def test_error_after_an_operator_call_is_at_the_callers_line(tmp_path):
    """The operator's with A.script(): block is a nested region: when it ends, the builder's
    location is the calling statement again, so what that statement builds after the call (here a
    load outside any unit, refused by the lowering) is reported at its line, not at the
    operator's last line."""
    from axcore import runtime
    mod = _load(tmp_path, OPERATOR_THEN_ERROR, "after_op")
    with pytest.raises(A.CompileError) as err:
        runtime.compile(mod.M)
    assert err.value.filename == str(tmp_path / "after_op.py")
    assert err.value.lineno == 11


def test_script_block_of_pass_only(tmp_path):
    """with A.script(): holding only `pass` builds nothing and lets the method go on (the trace
    that skips a block's Python run has no line to fire on there)."""
    body = '''
    import axcore.script as A


    class Helper:
        def build(self):
            with A.script():
                pass
            return "after"
    '''
    mod = _load(tmp_path, body, "pass_only")
    assert mod.Helper().build() == "after"


def test_multi_item_with_and_if_then_else(tmp_path):
    """`with A.Datapath(), A.IFD(num=0):` opens both, inner in outer, and `with A.If(c):` holding
    A.Then / A.Else builds the predicated branches (both read the item's index, which the block's
    kind had shadowed: a TypeError before)."""
    body = '''
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
                        s.push(inp[i, 0])
                    with A.DPU():
                        with A.If(i < 4):
                            with A.Then():
                                d.push(s.pop())
                            with A.Else():
                                d.push(A.cast(A.cast(s.pop(), "float18x64") * A.cast(inp[0, 0], "float18x64"),
                                              "float32x64"))
                    with A.ODR():
                        out[i, 0] = d.pop()
            for i in A.grid(2):
                with A.Datapath(), A.IFD(num=0):
                    pass
            A.output(out)
    '''
    ir = _load(tmp_path, body, "if_then_else").M.dump()
    assert "with A.If((i" in ir and "with A.Then():" in ir and "with A.Else():" in ir
    assert "with A.Datapath():\n        with A.IFD(num=0):\n          pass" in ir
