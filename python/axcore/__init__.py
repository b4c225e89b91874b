"""axcore: the AxScript language of the language guide, in Python.

``import axcore.script as A`` is the guide's ``A`` namespace, ``from axcore import axol`` the
operator library, ``axcore.runtime`` compiles a module to a bundle and runs it on a backend.
The semantics live in the C++ compiler (the extension ``axcore._axcore``); this package reads
the guide's Python syntax and calls it. See docs/python.md.
"""

__all__ = ["script", "axol", "runtime"]
__version__ = "0.1.0"
