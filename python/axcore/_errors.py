"""CompileError, and raising it so that a traceback ends on the user's line.

A compile error found in C++ (the builder, the passes, the lowering) carries the location the
front end gave the builder: the user's file, line and column. It becomes a
:class:`CompileError` (a ``SyntaxError``), raised from a frame that sits at that line of the
user's file, with the package's own frames taken out of the traceback.
"""

from __future__ import annotations

import os
import types
from typing import NoReturn, Optional

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


class CompileError(SyntaxError):
    """An AxScript program the compiler refuses, at the line responsible.

    Attributes
    ----------
    message : str
        The error text (the guide's text where the guide quotes one).
    hint : str
        What to write instead ("" when there is nothing to say).
    filename, lineno, offset, text
        Where: the user's file, 1-based line and column, and the source line.
    """

    def __init__(self, message: str, hint: str = "", filename: str = "", lineno: int = 0,
                 offset: int = 0) -> None:
        text = _source_line(filename, lineno)
        full = message + (f"\n  write instead: {hint}" if hint else "")
        super().__init__(full, (filename or None, lineno or None, offset or None, text))
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        where = f"{self.filename}:{self.lineno}:{self.offset or 0}: " if self.lineno else ""
        return f"{where}error: {self.msg}"

    @classmethod
    def from_native(cls, err: BaseException) -> "CompileError":
        """The Python form of the extension's ``NativeCompileError``."""
        message, hint, filename, line, column, _text = err.args
        return cls(message, hint, filename, int(line), int(column))


def _source_line(filename: str, lineno: int) -> Optional[str]:
    if not filename or not lineno:
        return None
    import linecache
    line = linecache.getline(filename, lineno)
    return line if line else None


def is_internal(filename: str) -> bool:
    """Whether a traceback frame belongs to this package (and so is taken out)."""
    return os.path.abspath(filename).startswith(_PACKAGE_DIR + os.sep)


def user_traceback(tb: Optional[types.TracebackType]) -> Optional[types.TracebackType]:
    """``tb`` without the package's frames (the user's own frames, in order)."""
    frames = []
    while tb is not None:
        if not is_internal(tb.tb_frame.f_code.co_filename):
            frames.append(tb)
        tb = tb.tb_next
    out = None
    for t in reversed(frames):
        out = types.TracebackType(out, t.tb_frame, t.tb_lasti, t.tb_lineno)
    return out


def at_user_line(err: CompileError) -> CompileError:
    """Attach a traceback whose last frame is the user's line ``err.lineno``."""
    if not err.filename or not err.lineno:
        return err
    code = compile("\n" * (err.lineno - 1) + "raise __axcore_error__", err.filename, "exec")
    try:
        exec(code, {"__axcore_error__": err, "__name__": "axcore-script"})
    except CompileError as raised:
        tb = raised.__traceback__
        while tb is not None and tb.tb_next is not None:
            tb = tb.tb_next
        return raised.with_traceback(tb)
    return err  # pragma: no cover - exec always raises


def reraise(exc: BaseException) -> NoReturn:
    """Raise ``exc`` for the user: a native compile error as CompileError at its line, anything
    else with the package's frames removed from its traceback."""
    from ._native import NativeCompileError
    if isinstance(exc, NativeCompileError):
        raise at_user_line(CompileError.from_native(exc)) from None
    if isinstance(exc, CompileError) and exc.__traceback__ is not None:
        tb = user_traceback(exc.__traceback__)
        raise exc.with_traceback(tb if tb is not None else at_user_line(exc).__traceback__) from None
    raise exc.with_traceback(user_traceback(exc.__traceback__))
