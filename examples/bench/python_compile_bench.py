"""Compile time of the guide's programs from Python against the C++ builder's, in one run.

For each program, the C++ builder's build + compile (axc_guide_bench, a child process of this run)
and the Python front end's parse + build (``@A.ir_module``) + ``runtime.compile`` of the same
program, median of N runs each; then the ratio Python / C++. The two must build the same IR: the
module dumps are compared, and a program whose dumps differ is reported and fails the run (a
comparison of different programs means nothing). The "first" columns are the first build and
compile in the process: for Python the decorator's run at import (the file's source parsed, every
expression compiled), for C++ the first call. The C++ side runs before and after the Python
side, and the faster of its two medians is compared (the load of a shared machine drifts). The
Python runs rebuild the decorated class (what the decorator does again); the constants a program
computes with NumPy at module scope, or in the twin's function, are computed once, before, as the
guide's programs do. The C++ kernels make their constants inside the build (a loop over 131072
values for matmul and conv3x3).

    source build/release/python/env.sh
    python3 examples/bench/python_compile_bench.py [--runs N] [--cpp PATH/axc_guide_bench]

A benchmark: it prints figures and asserts only that the programs compared are the same.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "guide"))
sys.path.insert(0, HERE)


def _median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


_DEFINED = re.compile(r"^\s*(?:for\s+(\w+)\s+in\b|(\w+)\s*=\s*A\.|A\.reset_accumulator\((\w+)\))", re.M)


def canonical(ir):
    """A module dump with its names replaced by n0, n1, ... in the order they are defined: the
    Python front end names a stream after its variable ("ifd") where C++ gets a fresh one ("s1"),
    and fresh-name counters run on through a process. What remains is the program."""
    ir = re.sub(r"^class \w+:", "class M:", ir, flags=re.M)
    names = {}
    for m in _DEFINED.finditer(ir):
        name = next(g for g in m.groups() if g)
        names.setdefault(name, f"n{len(names)}")
    return re.sub(r"\b\w+\b", lambda m: names.get(m.group(0), m.group(0)), ir)


def _cpp_tool(given):
    if given:
        return given
    from axcore import _paths
    return os.path.join(os.path.dirname(_paths.AXC), "axc_guide_bench")


def _programs():
    """name -> (module, first): the module as its file (or twin function) built it, and (build ms,
    compile ms) of that first build, the first in this process."""
    from axcore import runtime

    import dpu_cast_op
    import guide_twins as tw
    import scale
    import scale_op
    mods = {"scale": scale.Scale, "scale_op": scale_op.Scale, "dpu_cast_op": dpu_cast_op.DpuCastProgram,
            "matmul_bias": tw.matmul(16, 2, 2, True), "matmul": tw.matmul(64, 8, 4, False),
            "conv3x3": tw.conv3x3(6, 6, 2, 2)}
    out = {}
    for name, mod in mods.items():
        t = time.perf_counter()
        runtime.compile(mod)
        out[name] = (mod, (mod.build_ms, (time.perf_counter() - t) * 1e3))
    return out


def _cpp_run(args):
    """name -> (build, compile, total, first ms, IR dump) of one run of axc_guide_bench."""
    with tempfile.TemporaryDirectory() as tmp:
        r = subprocess.run([_cpp_tool(args.cpp), "--runs", str(args.runs), "--dump", tmp], check=True,
                           capture_output=True, text=True)
        out = {}
        for line in r.stdout.splitlines()[1:]:
            name, b, c, t, f = line.split("\t")
            with open(os.path.join(tmp, name + ".ir")) as fh:
                out[name] = (float(b), float(c), float(t), float(f), fh.read())
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--cpp", default="", help="the axc_guide_bench executable (default: next to this build's axc)")
    args = ap.parse_args()

    # Python first: the "first" figures must be this process's first builds.
    progs = _programs()
    import axcore.script as A
    from axcore import runtime

    # The C++ side before and after the Python runs (the load of a shared machine drifts); the
    # faster of its two medians counts.
    cpp_before = _cpp_run(args)

    py = {}
    for name, (first_mod, first) in progs.items():
        build, comp, total = [], [], []
        for _ in range(args.runs):
            # The previous run's module and bundle are freed here, outside the timed regions, as the
            # C++ side frees its module and bundle at the end of each run.
            mod = bundle = None
            t0 = time.perf_counter()
            mod = A.ir_module(first_mod.cls)  # what the decorator does: parse + build
            t1 = time.perf_counter()
            bundle = runtime.compile(mod)
            t2 = time.perf_counter()
            build.append((t1 - t0) * 1e3)
            comp.append((t2 - t1) * 1e3)
            total.append((t2 - t0) * 1e3)
        py[name] = (_median(build), _median(comp), _median(total), sum(first), mod.dump())
    cpp_after = _cpp_run(args)
    cpp = {n: min(cpp_before[n], cpp_after[n], key=lambda c: c[2]) for n in cpp_before}

    print(f"compile time, C++ builder vs Python front end (ms, median of {args.runs}; first = first in the process)")
    head = ("program", "C++ build", "C++ compile", "C++ total", "Py build", "Py compile", "Py total", "Py/C++",
            "C++ first", "Py first", "same IR")
    print("%-12s %10s %12s %10s %9s %11s %9s %7s %10s %9s %8s" % head)
    same_all = True
    for name, p in py.items():
        c = cpp[name]
        same = canonical(p[4]) == canonical(c[4])
        same_all = same_all and same
        print("%-12s %10.3f %12.3f %10.3f %9.3f %11.3f %9.3f %7.2f %10.3f %9.3f %8s" % (
            name, c[0], c[1], c[2], p[0], p[1], p[2], p[2] / c[2], c[3], p[3], "yes" if same else "NO"))
    if not same_all:
        print("a Python program and its C++ twin build different IR: their times are not comparable", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
