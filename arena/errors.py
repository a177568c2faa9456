"""Errors shared by the whole project.

Two families, as in python-chess: input that cannot be parsed at all
(:class:`ParseError`) and input that parses but is not allowed in the position
(:class:`IllegalActionError`). Both are :class:`ValueError`, and both carry a
message that quotes the offending input.
"""

from __future__ import annotations


class ArenaError(Exception):
    """Base class of every error the project raises on purpose."""


class ParseError(ArenaError, ValueError):
    """Text that is not a card, a list of cards or an action."""


class IllegalActionError(ArenaError, ValueError):
    """A well-formed action that the rules do not allow in this state."""


class ConfigError(ArenaError, ValueError):
    """An unknown game, an unknown option or an option value out of range."""
