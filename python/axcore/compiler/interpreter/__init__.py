"""The reference interpreter's NumPy helpers (``emulation``)."""
