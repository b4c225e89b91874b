"""Target configuration: the hardware generations an operator is registered for."""

from enum import Enum


class HardwareGeneration(str, Enum):
    """The targets this compiler builds for (one: the axcore core of spec/axcore.yaml)."""

    AXCORE = "axcore"
