"""pytest setup: the guide programs (examples/guide) importable by name."""
import os
import sys

GUIDE = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "guide")
sys.path.insert(0, os.path.abspath(GUIDE))
