"""Wire → engine: the inverse of the server's converters (:mod:`arena.server.remote`).

The server turns engine values into ``arena.v1`` messages; a bot turns them back, so a
bot sees over the wire the same :class:`~arena.games.base.Observation` an in-process
policy gets. Engine → wire converters are the server's own, imported from there.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from google.protobuf import json_format, struct_pb2

from arena._proto.arena.v1 import arena_pb2
from arena.cards import parse_cards
from arena.games.base import NOBODY, Action, Event, Observation, well_formed
from arena.server.remote import action_from_proto, action_to_proto

__all__ = [
    "action_from_proto",
    "action_to_proto",
    "event_from_proto",
    "facts_from_struct",
    "observation_from_proto",
    "reply_action",
]


def _seat(message: Any, field: str) -> int:
    """An ``optional int32`` seat field: unset is the engine's NOBODY."""
    return int(getattr(message, field)) if message.HasField(field) else NOBODY


def _engine_value(value: Any) -> Any:
    """Struct values back in the engine's shape: integral numbers as ints, lists as tuples."""
    if isinstance(value, dict):
        return {k: _engine_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return tuple(_engine_value(v) for v in value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def facts_from_struct(message: struct_pb2.Struct) -> dict[str, Any]:
    """A ``Struct`` of facts as the engine's JSON-like mapping (docs/protocol.md)."""
    data = json_format.MessageToDict(message)
    converted: dict[str, Any] = _engine_value(data)
    return converted


def event_from_proto(message: arena_pb2.Event) -> Event:
    return Event(
        kind=message.kind,
        seat=_seat(message, "seat"),
        cards=parse_cards(" ".join(message.cards)),
        target=_seat(message, "target"),
        value=message.value,
        tag=message.tag,
    )


def observation_from_proto(
    message: arena_pb2.Observation, events: Iterable[Event] = ()
) -> Observation:
    """The engine observation of a DecisionRequest; ``events`` are the deal's events so
    far, kept by the client from the EventBatch messages (the request carries none)."""
    return Observation(
        game=message.game,
        seat=_seat(message, "seat"),
        phase=message.phase,
        to_act=_seat(message, "to_act"),
        hand=parse_cards(" ".join(message.hand)),
        legal_actions=tuple(action_from_proto(a) for a in message.legal.actions),
        events=tuple(events) + tuple(event_from_proto(e) for e in message.events),
        public=facts_from_struct(message.public_facts),
        private=facts_from_struct(message.private_facts),
        legal_complete=message.legal.complete,
        legal_description=message.legal.description,
    )


def reply_action(action: Action | str) -> arena_pb2.Action:
    """A bot's answer on the wire: an :class:`Action` in both forms, text as given.

    Raises :class:`~arena.errors.IllegalActionError` for something that is no action."""
    if isinstance(action, str):
        return arena_pb2.Action(text=action)
    return action_to_proto(well_formed(action))
