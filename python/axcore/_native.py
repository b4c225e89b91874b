"""The C++ extension, with a message saying how to build it when it is missing."""

try:
    from . import _axcore as native  # noqa: F401  (the extension, next to this file)
except ImportError as err:  # pragma: no cover - only without a build
    raise ImportError(
        "axcore: the C++ extension axcore._axcore is not built here; build the CMake target "
        "axcore_python and `source <build>/python/env.sh` (docs/python.md)") from err

script = native.script
ops = native.ops
runtime = native.runtime
NativeCompileError = native.NativeCompileError
NativeBundleError = native.NativeBundleError
