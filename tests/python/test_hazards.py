"""The language guide's §14 hazards from Python source: a HazardWarning at the line that goes wrong
(naming the other statement's line and what to write instead), a CompileError with
``compile(..., werror=True)`` and with ``axc compile --Werror=hazard``; a region of a buffer is
refused as an operator operand (the sub-region hazard cannot be written)."""
import os
import subprocess
import textwrap
import warnings

import pytest

from axcore import _paths, runtime
from axcore.runtime import HazardWarning
from axcore.script import CompileError

# One MVMEXE datapath (a loop sunk into it): {out}[m, {nb}] = {src}[m, kt:kt + k] · {imc}[:, {nb}].
MM = '''
        for {loop}:
            with A.Datapath({args}):  # {marker}
                s = A.decl_stream("int8x64")
                y = A.decl_stream("int32x64")
                for kb in A.serial({k}):
                    with A.IFD(num=0):
                        s.push({src}[m, {kt}kb])
                with A.pseudo.MatMul():
                    acc = A.mvm_accumulator()
                    A.reset_accumulator(acc)
                    for kb in A.serial({k}):
                        acc += A.mvm_1x1(s.pop(), {imc}[kb, {nb}])
                    y.push(acc)
                with A.ODR():
                    {out}[m, {nb}] = y.pop()'''

# main(x) of the programs below, with w a (128, 1) int8x64 constant (K = 128, N = 64).
HEAD = '''
import numpy as np
import axcore.script as A

W = (np.arange(128 * 64) % 7 - 3).astype(np.float64)


@A.ir_module
class M:
    @A.prim_func
    def main(x: A.Buffer((4, 2), "int8x64", scope=A.DDR)):
        w = A.alloc_constant(W, "int8x64", scope=A.DDR, shape=(128, 1))
'''

# The wait hazard: a DWPU datapath (tagged "produce") copies x into t, an MVMEXE datapath (tagged
# "consume", another queue of the core: the hardware does not order it after the first) multiplies
# t by the resident matrix, and the only A.sync is placed after both.
WAIT = HEAD + '''        w_imc = A.alloc_imc((2, 1), name="w_imc")
        t = A.alloc_buffer((4, 2), "int8x64", scope=A.L1)
        out = A.alloc_buffer((4, 1), "int32x64", scope=A.DDR)
        for kb in A.serial(2):
            with A.pseudo.LoadIMC():
                w_imc[kb, 0] = w[kb * 64: kb * 64 + 64, 0]
        for i, j in A.grid(4, 2):
            with A.Datapath(id="produce"):  # PRODUCER
                a = A.decl_stream("int8x64")
                with A.IFD(num=0):
                    a.push(x[i, j])
                with A.ODR():
                    t[i, j] = a.pop()
        {fence}
''' + MM.format(loop="m in A.serial(4)", args='id="consume"', marker="CONSUMER", src="t", imc="w_imc", nb="0",
                out="out", k=2, kt="") + '''
        A.sync(waits={waits})
        A.output(out)
'''

# The IMC reuse hazard: w1 fills the IMC (128 tiles), w2 begins a new residency, w1 is used again.
IMC = '''
import numpy as np
import axcore.script as A

W1 = (np.arange(128 * 64 * 64) % 7 - 3).astype(np.float64)
W2 = (np.arange(64 * 64) % 5 - 2).astype(np.float64)


@A.ir_module
class M:
    @A.prim_func
    def main(x: A.Buffer((4, 2), "int8x64", scope=A.DDR)):
        w1 = A.alloc_constant(W1, "int8x64", scope=A.DDR, shape=(128, 64))
        w2 = A.alloc_constant(W2, "int8x64", scope=A.DDR, shape=(64, 1))
        i1 = A.alloc_imc((2, 64), name="w1_imc")
        i2 = A.alloc_imc((1, 1), name="w2_imc")
        o1 = A.alloc_buffer((4, 64), "int32x64", scope=A.DDR)
        o3 = A.alloc_buffer((4, 64), "int32x64", scope=A.DDR)
        for kb, nb in A.grid(2, 64):
            with A.pseudo.LoadIMC():
                i1[kb, nb] = w1[kb * 64: kb * 64 + 64, nb]''' + MM.format(loop="m, nb in A.grid(4, 64)", args="", marker="FIRST", src="x", imc="i1", nb="nb", out="o1", k=2,
                  kt="") + '''
        with A.pseudo.LoadIMC():  # ENDS
            i2[0, 0] = w2[0:64, 0]
        {reload}''' + MM.format(loop="m, nb in A.grid(4, 64)", args="", marker="REUSE", src="x", imc="i1", nb="nb", out="o3", k=2,
                  kt="") + '''
        A.output(o1)
        A.output(o3)
'''

# K tiles without partial=: K = 128 as two 64-row tiles loaded one after the other into one IMC
# tile, each multiplied into the same out rows (a build-time loop): the second overwrites the first.
KTILES = HEAD + '''        w_tile = A.alloc_imc((1, 1), name="w_tile")
        out = A.alloc_buffer((4, 1), "int32x64", scope=A.DDR)
        for kt in range(2):
            with A.pseudo.LoadIMC():
                w_tile[0, 0] = w[kt * 64: kt * 64 + 64, 0]''' + MM.format(
    loop="m in A.serial(4)", args="", marker="KTILE", src="x", imc="w_tile", nb="0", out="out", k=1,
    kt="kt + ").replace("\n", "\n    ") + '''
        A.output(out)
'''

RELOAD = '''for kb, nb in A.grid(2, 64):
            with A.pseudo.LoadIMC():
                i1[kb, nb] = w1[kb * 64: kb * 64 + 64, nb]'''


def _write(tmp_path, src, name):
    p = tmp_path / f"{name}.py"
    p.write_text(textwrap.dedent(src))
    return p


def _load(path, name):
    import importlib.util
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _line(path, marker):
    for k, line in enumerate(path.read_text().splitlines(), 1):
        if marker in line:
            return k
    raise AssertionError(marker)


def _compile_warnings(module, **kw):
    with warnings.catch_warnings(record=True) as found:
        warnings.simplefilter("always", HazardWarning)
        runtime.compile(module, **kw)
    return [w for w in found if issubclass(w.category, HazardWarning)]


def test_wait_after_dependent_datapaths_warns_at_the_consumer(tmp_path):
    p = _write(tmp_path, WAIT.replace("{fence}", "").replace("{waits}", '["produce", "consume"]'), "wait_hz")
    ws = _compile_warnings(_load(p, "wait_hz").M)
    assert len(ws) == 1, [str(w.message) for w in ws]
    w = ws[0]
    assert w.filename == str(p) and w.lineno == _line(p, "# CONSUMER")
    h = w.message
    assert 'depends on the launch tagged id="produce"' in h.message
    assert h.related[0] == str(p) and h.related[1] == _line(p, "# PRODUCER")
    assert 'A.sync(waits=["produce"])' in h.hint


def test_wait_on_the_producer_first_is_clean(tmp_path):
    p = _write(tmp_path, WAIT.replace("{fence}", 'A.sync(waits=["produce"])').replace("{waits}", '["consume"]'),
               "wait_ok")
    assert _compile_warnings(_load(p, "wait_ok").M, werror=True) == []


def test_wait_hazard_is_an_error_with_werror(tmp_path):
    p = _write(tmp_path, WAIT.replace("{fence}", "").replace("{waits}", '["produce", "consume"]'), "wait_err")
    with pytest.raises(CompileError) as info:
        runtime.compile(_load(p, "wait_err").M, werror=True)
    assert info.value.filename == str(p) and info.value.lineno == _line(p, "# CONSUMER")
    assert f"{p}:{_line(p, '# PRODUCER')}:" in info.value.message


def test_imc_reuse_warns_at_the_reuse_naming_the_load_that_ended_it(tmp_path):
    p = _write(tmp_path, IMC.replace("{reload}", ""), "imc_hz")
    ws = _compile_warnings(_load(p, "imc_hz").M)
    assert len(ws) == 1, [str(w.message) for w in ws]
    h = ws[0].message
    assert h.filename == str(p) and h.lineno == _line(p, "# REUSE")
    assert "whose residency on core 0 ended when w2_imc was loaded" in h.message
    assert h.related[0] == str(p) and h.related[1] == _line(p, "# ENDS")
    assert "load w1_imc again right before this datapath" in h.hint


def test_imc_reload_before_reuse_is_clean(tmp_path):
    p = _write(tmp_path, IMC.replace("{reload}", RELOAD), "imc_ok")
    assert _compile_warnings(_load(p, "imc_ok").M, werror=True) == []


def test_axc_prints_the_warning_and_werror_refuses(tmp_path):
    p = _write(tmp_path, WAIT.replace("{fence}", "").replace("{waits}", '["produce", "consume"]'), "wait_axc")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(runtime.__file__)))
    ok = subprocess.run([_paths.AXC, "compile", str(p), "-o", str(tmp_path / "w.axb")], env=env,
                        capture_output=True, text=True)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert f"{p}:{_line(p, '# CONSUMER')}:" in ok.stderr and "warning:" in ok.stderr and "[-Whazard]" in ok.stderr
    err = subprocess.run([_paths.AXC, "compile", str(p), "-o", str(tmp_path / "e.axb"), "--Werror=hazard"], env=env,
                         capture_output=True, text=True)
    assert err.returncode == 1, err.stdout + err.stderr
    assert f"{p}:{_line(p, '# CONSUMER')}:" in err.stderr and "error:" in err.stderr


def test_a_buffer_region_is_not_an_operator_operand(tmp_path):
    """§14 "dropping a sub-region operand's offset" cannot be written: an operand is a whole buffer."""
    src = '''
    import axcore.script as A
    from axcore import axol

    @A.ir_module
    class M:
        @A.prim_func
        def main(x: A.Buffer((4, 2), "float32x64", scope=A.DDR)):
            y = axol.atomic.relu(x[0:2, 0])  # REGION
            A.output(y)
    '''
    p = _write(tmp_path, src, "region")
    with pytest.raises(CompileError) as info:
        _load(p, "region")
    assert info.value.lineno == _line(p, "# REGION")
    assert "is not an operator argument" in info.value.message


def test_k_tiles_overwriting_each_other_warn_at_the_datapath(tmp_path):
    p = _write(tmp_path, KTILES, "ktiles")
    ws = _compile_warnings(_load(p, "ktiles").M)
    assert len(ws) == 1, [str(w.message) for w in ws]
    h = ws[0].message
    assert h.filename == str(p) and h.lineno == _line(p, "# KTILE")
    assert "each K tile's product overwrites the one before it" in h.message
    assert h.related[1] == _line(p, "# KTILE")  # the same datapath, one K tile earlier
    assert "core.linear" in h.hint
