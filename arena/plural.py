"""A count and its noun in English output: "1 match", "0 matches", "2 matches".

Every line the program prints or serves that counts something names the count's noun
through this module: :func:`counted` in code, and in the web's catalogs a word chosen by a
field, ``{total} {total:match|matches}`` (:func:`fill`; table.js and seat.js read the
same form). English takes the singular for a count of exactly one (``+1 level``,
``-1 point``) and the plural for every other (``0 matches``, ``1.5 seconds``).
"""

from __future__ import annotations

import string
from typing import Any


def noun(count: float, singular: str, plural: str | None = None) -> str:
    """``singular`` for a count of one (either sign), else ``plural`` (by default the
    singular with ``s``, or ``es`` after s, x, z, ch and sh)."""
    if abs(count) == 1:  # NaN: never
        return singular
    if plural is not None:
        return plural
    return singular + ("es" if singular.endswith(("s", "x", "z", "ch", "sh")) else "s")


def counted(count: float, singular: str, plural: str | None = None, spec: str = "") -> str:
    """The count (formatted by ``spec``, e.g. ``","``) and its noun: ``1 match``,
    ``1,200 deals``."""
    return f"{count:{spec}} {noun(count, singular, plural)}"


class _Words(string.Formatter):
    """``str.format`` where a field's spec ``one|other`` writes the word its count takes
    instead of the count."""

    def format_field(self, value: Any, format_spec: str) -> str:
        if "|" in format_spec:
            singular, plural = format_spec.split("|", 1)
            return noun(count_of(value), singular, plural)
        return str(super().format_field(value, format_spec))


def count_of(value: object) -> float:
    """A field's count: a number, or a number written out (``"1,000"``); anything else
    (``"—"``) counts as many."""
    if isinstance(value, int | float):
        return value
    try:
        return float(str(value).replace(",", ""))
    except ValueError:
        return float("nan")


_WORDS = _Words()


def fill(text: str, /, **fields: object) -> str:
    """``text.format(**fields)``, a field written ``{n:one|other}`` giving the word ``n``
    takes: ``fill("{n} {n:match|matches}", n=1) == "1 match"``."""
    return _WORDS.format(text, **fields)
