"""The installed Python package: python_check.py PREFIX GUIDE_DIR BUNDLE BACKEND...

Imports `axcore` (PYTHONPATH points at the prefix's package folder), checks it is the installed
one, compiles the guide's Scale (GUIDE_DIR/scale.py, examples/guide) with the installed
extension, and runs it and BUNDLE (written by the installed `axc`) on every BACKEND (fsim through
the installed axcore-fsim, tlm/rtl through the installed axrun), each compared bit for bit with
its reference.
"""
import os
import sys

import numpy as np

import axcore
from axcore import runtime
from axcore.compiler.interpreter import emulation as emu


def main() -> int:
    prefix, guide, bundle_file, backends = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    where = os.path.realpath(axcore.__file__)
    if not where.startswith(os.path.realpath(prefix) + os.sep):
        print(f"python_check: imported axcore from {where}, not from {prefix}", file=sys.stderr)
        return 1
    sys.path.insert(0, guide)
    from scale import Scale  # noqa: E402 - the guide's folder is known only now
    x = np.random.default_rng(1).uniform(-100, 100, (8, 64)).astype(np.float32)
    inputs = {"inp": x}  # both programs: one input "inp" of (8, 1) float32x64
    # Scale's reference: what the guide says it computes (every element times 2 in float18); the
    # axc bundle (scale_op, built from an operator) has its operator graph, run by the ref backend.
    runs = [("Scale", runtime.compile(Scale), {"out": emu.rf18(emu.rf18(x) * 2.0)}),
            (os.path.basename(bundle_file), bundle_file, runtime.run(bundle_file, backend="ref", inputs=inputs).outputs)]
    for name, bundle, want in runs:
        for be in backends:
            got = runtime.run(bundle, backend=be, inputs=inputs).outputs
            for k, v in want.items():
                v = np.asarray(v, np.float32).reshape(got[k].shape) if k in got else v
                if k not in got or got[k].tobytes() != v.tobytes() or not np.any(v):
                    print(f"python_check: {name} on {be}: output {k} differs from the reference", file=sys.stderr)
                    return 1
            print(f"python_check: {name} on {be} matches the reference")
    return 0


if __name__ == "__main__":
    sys.exit(main())
