#!/usr/bin/env python3
"""Seeded random .npy inputs for every input buffer of a bundle, from `axrun BUNDLE --describe`
(lines `NAME input DTYPE(d0, d1, ...) ...`). The same seed and shapes give the same files, so a
model compiled for two configurations gets the same inputs. Standard library only.
usage: axrun B.axb --describe | npy_inputs.py SEED OUT_DIR   (prints NAME=FILE per input)"""
import random
import re
import struct
import sys
from pathlib import Path

KINDS = {"INT8": ("|i1", "b"), "INT32": ("<i4", "i"), "FLOAT32": ("<f4", "f"), "FLOAT16": ("<f2", "e")}

def write_npy(path, descr, shape, fmt, values):
    dims = ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "")
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr, dims)
    pad = 64 - (10 + len(header) + 1) % 64
    header += " " * (pad % 64) + "\n"
    data = struct.pack("<%d%s" % (len(values), fmt), *values)
    path.write_bytes(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + data)

def main():
    seed, out = int(sys.argv[1]), Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    found = 0
    for line in sys.stdin:
        m = re.match(r"\s+(\w+) input (\w+)\(([\d, ]*)\)", line)
        if not m:
            continue
        name, dtype, shape = m.group(1), m.group(2), [int(d) for d in m.group(3).replace(" ", "").split(",") if d]
        if dtype not in KINDS:
            sys.exit(f"npy_inputs: input '{name}' has dtype {dtype}, which this script does not generate")
        rng = random.Random(f"{seed}:{name}")
        n = 1
        for d in shape:
            n *= d
        descr, fmt = KINDS[dtype]
        if fmt in "bi":
            values = [rng.randint(-128, 127) for _ in range(n)]
        else:
            values = [rng.randint(-64, 64) / 16.0 for _ in range(n)]
        path = out / f"{name}.npy"
        write_npy(path, descr, shape, fmt, values)
        print(f"{name}={path}")
        found += 1
    if not found:
        sys.exit("npy_inputs: no input buffer in the description")

if __name__ == "__main__":
    main()
