"""What both ends of the ``arena.v1`` protocol agree on: its version, its limits, its
defaults, and an action's wire form (docs/protocol.md).

The server (:mod:`arena.server`) and the bot SDK (:mod:`arena.client`) both import this
module; it imports neither, so the SDK never depends on the server.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Final

from arena._proto.arena.v1 import arena_pb2
from arena.cards import card_names, parse_cards
from arena.errors import ParseError
from arena.games.base import MAX_DEAL_CARDS, Action
from arena.plural import counted

__all__ = [
    "ADMIN_TOKEN_ENV",
    "BOT_NAME",
    "DEFAULT_FILL_BOT",
    "DEFAULT_PORT",
    "DEFAULT_SERVER",
    "MAX_ATTEMPTS",
    "PROTOCOL",
    "PROTOCOLS",
    "action_from_proto",
    "action_of_reply",
    "action_to_proto",
]

BOT_NAME: Final = re.compile(r"[A-Za-z0-9._-]{1,40}")
"""A registered bot's name (``RegisterRequest.name``): 1 to 40 letters, digits, '-', '_' or
'.'."""

PROTOCOL: Final = 2
"""The protocol version of this release: one server message per decision, observations
in compact form, replies by index (docs/protocol.md)."""

PROTOCOLS: Final = (1, 2)
"""The versions a server speaks (``Hello.protocol``; ``Welcome.protocol`` repeats it)."""

MAX_ATTEMPTS: Final = 10
"""Replies allowed per decision request (``Limits.max_attempts_per_request``)."""

DEFAULT_FILL_BOT: Final = "random"
"""The built-in bot that fills empty seats when ``Join.fill_bot`` is empty."""

DEFAULT_PORT: Final = 50051
"""The port a server listens on unless told otherwise."""

DEFAULT_SERVER: Final = f"127.0.0.1:{DEFAULT_PORT}"
"""Where bots and operators look for a server unless told otherwise."""

ADMIN_TOKEN_ENV: Final = "ARENA_ADMIN_TOKEN"
"""The environment variable holding the admin token (the server's and an operator's)."""


@functools.lru_cache(maxsize=16384)
def action_to_proto(action: Action) -> arena_pb2.Action:
    """The wire form of an action (remembered: the same plays come up again and again).
    Never change the message returned: messages that take it copy it."""
    return arena_pb2.Action(
        verb=action.verb,
        cards=card_names(action.cards),
        tag=action.tag,
        text=str(action),
    )


MAX_ACTION_TEXT: Final = 1024
"""The longest ``Action.text`` read: the text of any action of any game is shorter."""
MAX_ACTION_WORD: Final = 40
"""The longest ``Action.verb``, ``Action.tag`` or card string read."""


def _check_size(message: arena_pb2.Action) -> None:
    """ParseError for an action larger than any action is (its fields are then not
    quoted in full)."""
    if len(message.text) > MAX_ACTION_TEXT:
        raise ParseError(
            f"bad action: its text is {counted(len(message.text), 'character')} long, longer than "
            f"any action ({MAX_ACTION_TEXT} at most)"
        )
    if len(message.cards) > MAX_DEAL_CARDS:
        raise ParseError(
            f"bad action: {counted(len(message.cards), 'card')}, more than any deal holds "
            f"({MAX_DEAL_CARDS})"
        )
    words = [("verb", message.verb), ("tag", message.tag)]
    for field, word in words + [("card", card) for card in message.cards]:
        if len(word) > MAX_ACTION_WORD:
            raise ParseError(
                f"bad action: its {field} {word[:20]!r}… is {counted(len(word), 'character')} long "
                f"({MAX_ACTION_WORD} at most)"
            )


def action_from_proto(message: arena_pb2.Action) -> Action:
    """The engine action a message names; ParseError if malformed or the two forms disagree."""
    _check_size(message)
    structured: Action | None = None
    if message.verb or message.cards or message.tag:
        if not message.verb:
            raise ParseError("bad action: cards or tag without a verb")
        try:
            cards = parse_cards(" ".join(message.cards))
        except ParseError as err:
            raise ParseError(f"bad action cards {list(message.cards)!r}: {err}") from None
        structured = Action.make(message.verb, cards, message.tag)
        if not message.verb.isalpha() or not message.verb.islower():
            raise ParseError(f"bad action: {message.verb!r} is not a verb")
    if message.text:
        action = Action.from_str(message.text)
        if structured is not None and structured != action:
            raise ParseError(
                f"bad action: text {message.text!r} and structured form "
                f"{str(structured)!r} disagree"
            )
        return action
    if structured is None:
        raise ParseError("empty action: expected a verb such as 'pass' or 'play 3s 3d'")
    return structured


def action_of_reply(reply: arena_pb2.ActionReply, legal: Sequence[Action]) -> Action:
    """The action an ActionReply names: by its ``index`` in ``legal`` (the request's listed
    legal actions) or by its ``action``; ParseError if malformed, both or neither given."""
    if reply.HasField("index"):
        if reply.HasField("action"):
            raise ParseError("bad reply: give either an action or an index, not both")
        index = reply.index
        if index >= len(legal):
            listed = f"0 to {len(legal) - 1}" if legal else "none"
            raise ParseError(
                f"bad reply: index {index} names no legal action of the request "
                f"(it lists {len(legal)}: {listed})"
            )
        return legal[index]
    return action_from_proto(reply.action)
