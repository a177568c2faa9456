"""Errors shared by the whole project.

Two families, as in python-chess: input that cannot be parsed at all
(:class:`ParseError`) and input that parses but is not allowed in the position
(:class:`IllegalActionError`). Both are :class:`ValueError`, and both carry a
message that quotes the offending input.
"""

from __future__ import annotations

from arena.plural import counted


class ArenaError(Exception):
    """Base class of every error the project raises on purpose."""


class ParseError(ArenaError, ValueError):
    """Text that is not a card, a list of cards or an action."""


class IllegalActionError(ArenaError, ValueError):
    """A well-formed action that the rules do not allow in this state."""


class ConfigError(ArenaError, ValueError):
    """An unknown game, an unknown option or an option value out of range."""


QUOTE_LIMIT = 60
"""Characters of a piece of input quoted in any message (gRPC status, HTTP page, CLI, log)."""


def quoted(value: object, limit: int = QUOTE_LIMIT) -> str:
    """``value``'s text quoted for a message, cut to a bounded prefix when long.

    Every message that quotes input quotes it through this function, so that no
    input, however long, makes a message long (gRPC carries a status's details in
    metadata, whose size is limited): ``'abc'``, or ``'abcdef…' (20000 characters)``.
    """
    text = value if isinstance(value, str) else str(value)
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}… ({counted(len(text), 'character')})"
