"""Query parameters the site reads itself (the match list's filters are the viewer's,
:meth:`arena.web.viewer.MatchQuery.parse`): each one checked, a refusal naming it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from arena.web.errors import BadParameter

__all__ = ["MAX_ID_LENGTH", "choice", "identifier"]

MAX_ID_LENGTH: Final = 200
"""Longest id, name or search text the site takes in a query parameter."""


def choice(params: Mapping[str, str], name: str, allowed: Sequence[str], default: str) -> str:
    """The value of ``name``, one of ``allowed`` (absent or empty: ``default``)."""
    value = params.get(name) or default
    if value not in allowed:
        shown = ", ".join(allowed)
        raise BadParameter(name, value, f"must be one of {shown}", "choice", allowed=shown)
    return value


def identifier(params: Mapping[str, str], name: str) -> str | None:
    """An id or a name given in ``name`` (absent or empty: None), of sane length and
    printable."""
    value = params.get(name) or None
    if value is None:
        return None
    if len(value) > MAX_ID_LENGTH or not value.isprintable():
        raise BadParameter(
            name,
            value,
            f"must be printable text of at most {MAX_ID_LENGTH} characters",
            "text",
            most=MAX_ID_LENGTH,
        )
    return value
