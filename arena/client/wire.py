"""Wire → engine: the inverse of the server's converters.

The server turns engine values into ``arena.v1`` messages; a bot turns them back, so a
bot sees over the wire the same :class:`~arena.games.base.Observation` an in-process
policy gets. An action's wire form, both ways, is the protocol's own
(:mod:`arena.protocol`), shared with the server.

A protocol 2 observation is decoded on demand: its facts (JSON text) the first time they
are read, each legal action (a text) when it is taken from the list. A bot that reads
neither costs nothing for them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import lru_cache
from typing import Any, Final, overload

from google.protobuf import struct_pb2

from arena._proto.arena.v1 import arena_pb2
from arena.cards import Card, parse_cards
from arena.errors import ParseError
from arena.games.base import NOBODY, Action, Event, Observation, well_formed
from arena.protocol import action_from_proto, action_to_proto

_MEMO: Final = 8192
"""Conversions remembered (by their wire bytes or text): the same actions and card lists
come back decision after decision."""

__all__ = [
    "JsonFacts",
    "LegalTexts",
    "action_from_proto",
    "action_to_proto",
    "event_from_proto",
    "facts_from_struct",
    "observation_from_proto",
    "reply_action",
    "reply_message",
]


def _seat(message: Any, field: str) -> int:
    """An ``optional int32`` seat field: unset is the engine's NOBODY."""
    return int(getattr(message, field)) if message.HasField(field) else NOBODY


def _engine_value(value: struct_pb2.Value) -> Any:
    """A Struct value in the engine's shape: integral numbers as ints, lists as tuples."""
    kind = value.WhichOneof("kind")
    if kind == "number_value":
        number = value.number_value
        return int(number) if number.is_integer() else number
    if kind == "string_value":
        return value.string_value
    if kind == "bool_value":
        return value.bool_value
    if kind == "struct_value":
        return {k: _engine_value(v) for k, v in value.struct_value.fields.items()}
    if kind == "list_value":
        return tuple(_engine_value(v) for v in value.list_value.values)
    return None


def facts_from_struct(message: struct_pb2.Struct) -> dict[str, Any]:
    """A ``Struct`` of facts as the engine's JSON-like mapping (docs/protocol.md)."""
    return {k: _engine_value(v) for k, v in message.fields.items()}


@lru_cache(maxsize=_MEMO)
def _cards(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


@lru_cache(maxsize=_MEMO)
def _action(verb: str, names: tuple[str, ...], tag: str, text: str) -> Action:
    """:func:`action_from_proto` of an Action's fields. The server's usual form (a text
    that reads exactly as the structured fields written out) is read without parsing the
    text; anything else goes through :func:`action_from_proto` (the same result or error)."""
    if text and verb.isalpha() and verb.islower() and (not tag or tag.split() == [tag]):
        joined = " ".join(names)
        expected = verb
        if joined:
            expected += " " + joined
        if tag:
            expected += " as " + tag
        if text == expected:
            try:
                cards = _cards(joined)
            except ParseError:
                pass
            else:
                return Action(verb, tuple(sorted(cards)), tag)
    return action_from_proto(arena_pb2.Action(verb=verb, cards=names, tag=tag, text=text))


def _tuples(value: Any) -> Any:
    """A decoded JSON value in the engine's shape: lists as tuples."""
    if isinstance(value, list):
        return tuple(_tuples(item) for item in value)
    if isinstance(value, dict):
        return {key: _tuples(item) for key, item in value.items()}
    return value


class JsonFacts(Mapping[str, Any]):
    """Facts sent as a JSON object (protocol 2), decoded the first time they are read;
    equal to the engine's mapping (lists as tuples)."""

    __slots__ = ("_facts", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        self._facts: dict[str, Any] | None = None

    def _decoded(self) -> dict[str, Any]:
        facts = self._facts
        if facts is None:
            try:
                loaded = json.loads(self._text) if self._text else {}
            except ValueError as err:
                raise ParseError(f"bad facts: not JSON ({err})") from None
            if not isinstance(loaded, dict):
                raise ParseError(f"bad facts: a JSON {type(loaded).__name__}, not an object")
            facts = self._facts = _tuples(loaded)
        return facts

    def __getitem__(self, key: str) -> Any:
        return self._decoded()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._decoded())

    def __len__(self) -> int:
        return len(self._decoded())

    def __eq__(self, other: object) -> bool:
        return self._decoded() == other if isinstance(other, Mapping) else NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self._decoded())


@lru_cache(maxsize=_MEMO)
def _from_text(text: str) -> Action:
    return Action.from_str(text)


class LegalTexts(Sequence[Action]):
    """The legal actions of a protocol 2 request, sent as texts: each read when taken
    (then remembered); a tuple of actions equal to the engine's list. :meth:`position`
    finds an answer's index for the reply."""

    __slots__ = ("_texts",)

    def __init__(self, texts: Iterable[str]) -> None:
        self._texts = list(texts)

    @overload
    def __getitem__(self, index: int) -> Action: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[Action, ...]: ...
    def __getitem__(self, index: int | slice) -> Action | tuple[Action, ...]:
        if isinstance(index, slice):
            return tuple(_from_text(text) for text in self._texts[index])
        return _from_text(self._texts[index])

    def __len__(self) -> int:
        return len(self._texts)

    def __contains__(self, action: object) -> bool:
        return self.position(action) is not None  # type: ignore[arg-type]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return tuple(self) == tuple(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"LegalTexts({list(self._texts)!r})"

    def position(self, answer: Action | str) -> int | None:
        """The index of ``answer`` (an action or its text) in the list, or None."""
        text = answer if isinstance(answer, str) else str(answer)
        try:
            return self._texts.index(text)
        except ValueError:
            return None


def _legal(actions: Iterable[arena_pb2.Action]) -> tuple[Action, ...]:
    """The legal actions of a request (each converted once, then remembered)."""
    return tuple(_action(a.verb, tuple(a.cards), a.tag, a.text) for a in actions)


def event_from_proto(message: arena_pb2.Event) -> Event:
    return Event(
        kind=message.kind,
        seat=_seat(message, "seat"),
        cards=_cards(" ".join(message.cards)),
        target=_seat(message, "target"),
        value=message.value,
        tag=message.tag,
    )


def observation_from_proto(
    message: arena_pb2.Observation, events: Iterable[Event] = (), *, kept: bool = False
) -> Observation:
    """The engine observation of a DecisionRequest; ``events`` are the deal's events so
    far, kept by the client from the EventBatch messages, the request's own after them;
    with ``kept``, ``events`` holds the request's already (a view of the client's list)."""
    if kept and isinstance(events, Sequence):
        seen: Sequence[Event] = events
    else:
        seen = tuple(events) + tuple(event_from_proto(e) for e in message.events)
    legal: Sequence[Action]
    public: Mapping[str, Any]
    private: Mapping[str, Any]
    if message.public_json:  # protocol 2: decoded on demand
        legal = LegalTexts(message.legal.texts)
        public, private = JsonFacts(message.public_json), JsonFacts(message.private_json)
    else:
        legal = _legal(message.legal.actions)
        public = facts_from_struct(message.public_facts)
        private = facts_from_struct(message.private_facts)
    return Observation(
        game=message.game,
        seat=_seat(message, "seat"),
        phase=message.phase,
        to_act=_seat(message, "to_act"),
        hand=_cards(" ".join(message.hand)),
        legal_actions=legal,
        events=seen,
        public=public,
        private=private,
        legal_complete=message.legal.complete,
        legal_description=message.legal.description,
    )


def reply_message(
    request_id: str, answer: Action | str, legal: Sequence[Action]
) -> arena_pb2.ClientMessage:
    """A bot's answer as the ClientMessage to send: by its index when ``legal`` is a
    protocol 2 list holding it, else the action itself (:func:`reply_action`)."""
    message = arena_pb2.ClientMessage()
    reply = message.action  # written in place: no copy
    reply.request_id = request_id
    index = legal.position(answer) if isinstance(legal, LegalTexts) else None
    if index is not None:
        reply.index = index
    else:
        reply.action.CopyFrom(reply_action(answer))
    return message


def reply_action(action: Action | str) -> arena_pb2.Action:
    """A bot's answer on the wire: an :class:`Action` in both forms, text as given.

    Raises :class:`~arena.errors.IllegalActionError` for something that is no action."""
    if isinstance(action, str):
        return arena_pb2.Action(text=action)
    return action_to_proto(well_formed(action))
