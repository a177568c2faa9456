"""The error raised by the rating package on bad input."""

from __future__ import annotations

from arena.errors import ArenaError


class RatingError(ArenaError, ValueError):
    """A rating input out of range: a score outside [0, 1], an empty team, a bad setting."""
