"""pytest setup: the guide programs (examples/guide) and the benchmark twins of the guide's larger
kernels (examples/bench/guide_twins.py) importable by name."""
import os
import sys

GUIDE = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "guide")
BENCH = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "bench")  # guide_twins.py
sys.path.insert(0, os.path.abspath(GUIDE))
sys.path.insert(0, os.path.abspath(BENCH))
