"""What operators raise: ``UnsupportedError`` refuses bound arguments an op does not support."""


class UnsupportedError(Exception):
    """Raised by an operator's ``validate()``; reported as a CompileError at the call."""
