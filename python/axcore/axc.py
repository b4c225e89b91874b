"""``axc compile PROGRAM.py -o OUT.axb [--module NAME] [--cores N] [--Werror=hazard]`` (what ``axc`` runs for a
.py program): run the program's module-level code (not its ``__main__`` part), take its
``@A.ir_module`` (the one named by ``--module``, else the only one), compile, save.

A §14 hazard the compiler finds is printed as ``file:line:column: warning: ... [-Whazard]`` (with
the other statement's location and what to write instead); ``--Werror=hazard`` makes it an error.
Exit codes as axc: 0 ok, 1 a compile error (printed as file:line:column: error: ...), 2 usage.
"""

from __future__ import annotations

import argparse
import os
import runpy
import sys
import traceback
import warnings
from typing import List, Optional


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="axc compile", description="compile an AxScript program to a bundle")
    ap.add_argument("command", choices=["compile"])
    ap.add_argument("program", help="PROGRAM.py")
    ap.add_argument("-o", "--out", required=True, help="output .axb")
    ap.add_argument("--module", default="", help="the @A.ir_module to compile (default: the only one)")
    ap.add_argument("--cores", type=int, default=1)
    ap.add_argument("--explain", action="store_true", help="print what runs where")
    ap.add_argument("--dump-ir", action="store_true", help="print the module's IR")
    ap.add_argument("--Werror", choices=["hazard"], default=None,
                    help="hazard: a §14 hazard (IMC reuse, a wait after dependent launches, K tiles "
                         "overwriting) is an error, not a warning")
    args = ap.parse_args(argv)
    from . import runtime
    from .script import CompileError, IRModule
    path = os.path.abspath(args.program)
    if not os.path.exists(path):
        print(f"axc: {args.program}: no such file", file=sys.stderr)
        return 2
    sys.path.insert(0, os.path.dirname(path))
    try:
        ns = runpy.run_path(path, run_name="__axc__")
        mods = {k: v for k, v in ns.items() if isinstance(v, IRModule)}
        if args.module:
            if args.module not in mods:
                print(f"axc: {args.program} has no @A.ir_module {args.module} (it has: {', '.join(mods) or 'none'})",
                      file=sys.stderr)
                return 2
            mod = mods[args.module]
        elif len(mods) != 1:
            print(f"axc: {args.program} has {len(mods)} @A.ir_module ({', '.join(mods) or 'none'}): "
                  "name one with --module NAME", file=sys.stderr)
            return 2
        else:
            mod = next(iter(mods.values()))
        if args.dump_ir:
            print(mod.dump())
        with warnings.catch_warnings(record=True) as found:
            warnings.simplefilter("always", runtime.HazardWarning)
            b = runtime.compile(mod, cores=args.cores, explain=args.explain, werror=args.Werror == "hazard")
        for w in found:
            h = w.message
            if isinstance(h, runtime.HazardWarning):
                print(f"{h.filename}:{h.lineno}:{h.offset}: warning: {h.message} [-Whazard]", file=sys.stderr)
                if h.related[3]:
                    print(f"  {h.related[0]}:{h.related[1]}:{h.related[2]}: note: {h.related[3]}", file=sys.stderr)
                if h.hint:
                    print(f"  write instead: {h.hint}", file=sys.stderr)
            else:
                warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    except CompileError as err:
        print(str(err), file=sys.stderr)
        return 1
    except Exception:  # the program itself failed at build time
        traceback.print_exc()
        return 1
    if args.explain:
        print(b.explain)
    b.save(args.out)
    print(f"axc: {mod.name} -> {args.out} ({len(b.data)} bytes, built in {mod.build_ms:.2f} ms, "
          f"compiled in {b.compile_ms:.2f} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
