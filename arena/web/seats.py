"""A person's seat at a table: the same seat as a remote bot's, reached from a browser.

A table is a match the server plays like any other (:class:`~arena.server.session.
MatchSession` through :class:`~arena.server.play.PlayService`): a person's seat is a
:class:`~arena.server.remote.RemotePolicy` whose connection is a :class:`BrowserSeat`
rather than a gRPC stream. So the driver, the clock and time bank, automatic play when
time runs out, the grace period, the hidden-information rules and the stored record are
a bot's, unchanged.

The browser reads its seat as server-sent events (:func:`seat_events`): ``seat`` (who
sits where), ``hand`` (its own cards, whenever they change), ``decision`` (the request:
its phase, the legal actions as texts, its time), ``refused`` (an answer the rules or the
parser refused, with the reason), ``timed_out`` (the automatic play), ``deal`` (a deal's
result) and ``over`` (the match's result). It answers by POSTing the action's text with
the request's id; a reload opens a new stream, which takes the seat back as a bot's
reconnection does (:meth:`MatchSession.resume`), and a stream that ends starts the
seat's grace period (:meth:`MatchSession.lost`).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any, Final

from google.protobuf import json_format

from arena._proto.arena.v1 import arena_pb2
from arena.cards import parse_cards
from arena.games.base import State
from arena.server.connection import Connection
from arena.web.table_hands import held_cards, held_order, taken_kitty

__all__ = ["LOOK_AGAIN", "SEND_QUEUE_LIMIT", "BrowserSeat", "held_event", "seat_events"]

SEND_QUEUE_LIMIT: Final = 2_000
"""Messages a browser may leave unread before its stream is cut (it resumes on reload)."""
LOOK_AGAIN: Final = arena_pb2.ServerMessage()
"""Queued when the table changed in public: the seat's stream looks at its hand again."""
STATUS_NAMES: Final = {
    arena_pb2.ACTION_STATUS_MALFORMED: "malformed",
    arena_pb2.ACTION_STATUS_ILLEGAL: "illegal",
    arena_pb2.ACTION_STATUS_STALE: "stale",
    arena_pb2.ACTION_STATUS_TOO_MANY_ATTEMPTS: "too_many_attempts",
    arena_pb2.ACTION_STATUS_TIMED_OUT: "timed_out",
    arena_pb2.ACTION_STATUS_ACCEPTED: "accepted",
}

Event = tuple[str, dict[str, Any]]


class BrowserSeat(Connection):
    """The connection of a person's seat: the server's messages wait in the outbox for
    the browser's stream (:meth:`messages`)."""

    def __init__(self, player: str, loop: asyncio.AbstractEventLoop, number: int) -> None:
        super().__init__(
            player,
            None,
            loop,
            number=number,
            queue_limit=SEND_QUEUE_LIMIT,
            messages_per_second=0.0,  # answers are limited per person (arena.web.people)
        )

    def look_again(self) -> None:
        """The table changed in public: the stream checks the seat's own cards."""
        self.send(LOOK_AGAIN)

    async def messages(self) -> AsyncIterator[arena_pb2.ServerMessage]:
        """The messages as they come, until the stream is ended or cut."""
        while not self.closed or not self.outbox.empty():
            message = await self.outbox.get()
            if message is None:
                return
            yield message


def _observation_facts(observation: arena_pb2.Observation) -> dict[str, Any]:
    """What a decision shows the person: phase, own hand, legal texts, public facts."""
    legal = observation.legal
    return {
        "seat": observation.seat,
        "phase": observation.phase,
        "hand": list(observation.hand),
        "legal": list(legal.texts),
        "complete": legal.complete,
        "legal_note": legal.description,
        "public": json.loads(observation.public_json) if observation.public_json else {},
        "private": json.loads(observation.private_json) if observation.private_json else {},
    }


def _dict(message: Any) -> dict[str, Any]:
    found: dict[str, Any] = json_format.MessageToDict(message, preserving_proto_field_name=True)
    return found


def seat_events(message: arena_pb2.ServerMessage) -> list[Event]:
    """The browser's events for one of the seat's messages (none for what the drawn
    table shows already: the public events come through the match's own stream)."""
    kind = message.WhichOneof("body")
    if kind == "seat_assigned":
        return [("seat", _dict(message.seat_assigned))]
    if kind == "deal_started":
        started = message.deal_started
        return [("hand", {"deal": started.deal, "seat": started.seat, "hand": list(started.hand)})]
    if kind == "decision":
        request = message.decision
        decision = _observation_facts(request.observation)
        decision.update(
            request_id=request.request_id,
            deal=request.deal,
            decision_ms=request.decision_ms,
            time_bank_ms=request.time_bank_ms,
        )
        return [
            ("hand", {"deal": request.deal, "seat": decision["seat"], "hand": decision["hand"]}),
            ("decision", decision),
        ]
    if kind == "action_result":
        result = message.action_result
        status = STATUS_NAMES.get(result.status, "unknown")
        data = {
            "request_id": result.request_id,
            "status": status,
            "reason": result.reason,
            "action": result.action.text,
        }
        return [("timed_out" if status == "timed_out" else "refused", data)]
    if kind == "resume":
        resume = message.resume
        events: list[Event] = [("seat", _dict(resume.seat))]
        if resume.HasField("observation"):
            seat, hand = resume.observation.seat, list(resume.observation.hand)
            events.append(("hand", {"deal": resume.deal.deal, "seat": seat, "hand": hand}))
        return events
    if kind == "deal_result":
        return [("deal", _dict(message.deal_result))]
    if kind == "match_result":
        return [("over", _dict(message.match_result))]
    if kind == "error":
        return [("problem", _dict(message.error))]
    if kind == "draining":
        return [("problem", {"message": message.draining.reason or "the server is stopping"})]
    return []


def held_event(event: Event, state: State | None) -> Event:
    """A ``hand`` or ``decision`` event with its cards as a player holds them in the
    deal being played (:func:`~arena.web.table_hands.held_order`, the felt's order),
    each card's group beside them (``groups``: a new suit, or the trumps, starts a new
    group) and, for the Shengji dealer, the kitty they took up (``kitty``); other
    events, and any between deals, as they are."""
    name, data = event
    if state is None or name not in ("hand", "decision"):
        return event
    hand = held_cards(state, data["hand"])
    key = held_order(state)
    shengji = state.game_name == "shengji"
    groups = [key(card)[0] for card in parse_cards(" ".join(hand))] if shengji else []
    kitty = taken_kitty(state, data["seat"]) if "seat" in data else []
    return name, {**data, "hand": hand, "groups": groups, "kitty": kitty}
