"""What the guide programs' ``__main__`` parts share: compile a module, run it on a backend
(``--backend``, default ref where the bundle has an operator graph, else fsim), compare with the
program's NumPy computation of what the guide says it computes, print the result.

Not part of the guide: the programs above their ``if __name__ == "__main__":`` line are the
guide's text (only the import lines changed, see README.md).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, Callable, Dict

import numpy as np


def main(module: Any, inputs: Dict[str, np.ndarray], expect: Callable[[Dict[str, np.ndarray]], Dict[str, np.ndarray]],
         atol: float = 0.0) -> int:
    from axcore import runtime
    ap = argparse.ArgumentParser(description=f"compile and run the guide's {module.name}")
    ap.add_argument("--backend", default="", help="ref, fsim, tlm or rtl (default: ref, or fsim without a graph)")
    args = ap.parse_args()
    bundle = runtime.compile(module)
    backend = args.backend or ("ref" if bundle.graph else "fsim")
    res = runtime.run(bundle, backend=backend, inputs=inputs)
    want = expect(inputs)
    if not isinstance(want, dict):  # one array: the module's only output
        want = {bundle.outputs[0].name: want}
    ok = True
    for name, w in want.items():
        got = res.outputs[name]
        err = float(np.max(np.abs(got.astype(np.float64) - w.astype(np.float64)))) if got.size else 0.0
        good = got.shape == w.shape and err <= atol
        ok = ok and good
        print(f"{module.name} on {backend}: {name} {got.shape} {got.dtype}, max |error| {err:g} "
              f"(tolerance {atol:g}) -> {'OK' if good else 'MISMATCH'}")
        print(np.array2string(got.reshape(-1)[:8], precision=3), "...")
    if res.cycles:
        print(f"  {res.cycles} cycles")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit("run one of the guide programs instead")
