"""Checks shared by the games' options: whole numbers and seconds within bounds.

A value out of its range (or of another type, or not finite) is a
:class:`~arena.errors.ConfigError` naming the option, its range and the value given.
"""

from __future__ import annotations

from arena.errors import ConfigError

__all__ = ["seconds", "whole_number"]


def whole_number(name: str, value: object, low: int, high: int, note: str = "") -> int:
    """``value`` as a whole number from ``low`` to ``high``; ``note`` explains (what 0 means)."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ConfigError(
            f"{name} must be a whole number from {low} to {high:,}{note}, got {value!r}"
        )
    return value


def seconds(name: str, value: object, high: float) -> float:
    """``value`` as a number of seconds above 0 and at most ``high`` (NaN and ∞ refused)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= high:
        raise ConfigError(
            f"{name} must be a number of seconds above 0, at most {high:g}, got {value!r}"
        )
    return value
