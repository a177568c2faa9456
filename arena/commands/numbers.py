"""Numbers as users see them: an unbounded value is ``∞`` or ``−∞`` in text and ``null`` in
JSON (which has no infinity), never a stand-in such as ``1e9``."""

from __future__ import annotations

import math

INFINITY = "∞"
MINUS = "−"


def signed(value: float, digits: int = 1) -> str:
    """``+12.3``, ``−4.0``, ``∞`` or ``−∞``."""
    if math.isinf(value):
        return INFINITY if value > 0 else MINUS + INFINITY
    return f"{value:+.{digits}f}".replace("-", MINUS)


def json_ready(data: object) -> object:
    """``data`` with every infinite or NaN float replaced by None, at any depth."""
    if isinstance(data, float) and not math.isfinite(data):
        return None
    if isinstance(data, dict):
        return {key: json_ready(value) for key, value in data.items()}
    if isinstance(data, list | tuple):
        return [json_ready(value) for value in data]
    return data
