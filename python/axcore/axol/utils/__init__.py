"""Helpers of the operator library the guide names (``axol.utils.lut_chain``, §7)."""
