"""Device enums an operator's arguments use."""

from enum import Enum


class DatapathKind(str, Enum):
    """A datapath's kind (§2, §6): the matrix multiply, or the depthwise / elementwise one."""

    DP_MVMEXE = "DP_MVMEXE"
    DP_DWPU = "DP_DWPU"
