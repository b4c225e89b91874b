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


class HazardWarning(UserWarning):
    """A hazard of the language guide's §14 the compiler found: the program compiles and runs as
    written, but most likely computes something its author did not mean (stale IMC weights, a K
    tile's product overwritten, a consumer launched before its producer was waited for).

    Issued with ``warnings.warn_explicit`` at the user's line (``filename``, ``lineno``);
    ``compile(..., werror=True)`` or ``warnings.simplefilter("error", HazardWarning)`` makes it
    an error.

    Attributes
    ----------
    message, hint : str
        What goes wrong, and what to write instead.
    filename, lineno, offset : str, int, int
        The statement that goes wrong.
    related : tuple of (str, int, int, str)
        The other statement involved: file, line, column and what it is.
    """

    def __init__(self, message: str, hint: str = "", filename: str = "", lineno: int = 0, offset: int = 0,
                 related: tuple = ("", 0, 0, "")) -> None:
        self.message = message
        self.hint = hint
        self.filename = filename
        self.lineno = lineno
        self.offset = offset
        self.related = related
        text = message
        if related[3]:
            text += f"\n  {related[0]}:{related[1]}:{related[2]}: note: {related[3]}"
        if hint:
            text += f"\n  write instead: {hint}"
        super().__init__(text)

    @classmethod
    def from_native(cls, w: tuple) -> "HazardWarning":
        """From the extension's warning tuple (kind, message, hint, file, line, column, related...)."""
        _kind, message, hint, filename, line, column, rfile, rline, rcol, rwhat = w
        return cls(message, hint, filename, int(line), int(column), (rfile, int(rline), int(rcol), rwhat))


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
