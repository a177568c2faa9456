"""A remote bot's seat: the policy the match driver asks, answered over a Play stream.

The match runs in a worker thread; the bot's stream lives on the server's event loop.
:class:`RemotePolicy` sends a ``DecisionRequest`` through ``send`` (which must be
thread-safe: the Play servicer hands it ``loop.call_soon_threadsafe``), then waits on a
:class:`queue.Queue` for the stream's ``ActionReply`` with that request id
(:meth:`RemotePolicy.offer`, called from the event loop).

Simplifications of this slice: there is no time bank (``time_bank_ms`` is 0) and no
grace period: a broken connection makes the seat flee at its next decision.
"""

from __future__ import annotations

import itertools
import queue
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, Final

from google.protobuf import struct_pb2

from arena._proto.arena.v1 import arena_pb2
from arena.cards import format_cards, parse_cards
from arena.errors import ParseError
from arena.games.base import NOBODY, Action, Event, Observation
from arena.match import SeatGone

__all__ = [
    "MAX_ATTEMPTS",
    "RemotePolicy",
    "action_from_proto",
    "action_to_proto",
    "event_to_proto",
    "observation_to_proto",
    "struct",
]

MAX_ATTEMPTS: Final = 10
"""Limits.max_attempts_per_request."""
_LATE_MARGIN: Final = 0.002
"""Seconds past the limit a timed-out decision returns, so the driver sees it as late."""

Send = Callable[[arena_pb2.ServerMessage], None]


# ---------------------------------------------------------------------------
# Conversions


def _jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [_jsonable(v) for v in value]
    return value


def struct(value: Mapping[str, Any]) -> struct_pb2.Struct:
    message = struct_pb2.Struct()
    message.update(_jsonable(value))
    return message


def _seat(seat: int) -> int | None:
    return None if seat == NOBODY else seat


def action_to_proto(action: Action) -> arena_pb2.Action:
    return arena_pb2.Action(
        verb=action.verb,
        cards=format_cards(action.cards).split(),
        tag=action.tag,
        text=str(action),
    )


def action_from_proto(message: arena_pb2.Action) -> Action:
    """The engine action a reply names; ParseError if malformed or the two forms disagree."""
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


def event_to_proto(event: Event, seq: int, deal: int, description: str) -> arena_pb2.Event:
    """A public engine event (``State.events``: never a hidden card) on the wire."""
    return arena_pb2.Event(
        seq=seq,
        deal=deal,
        kind=event.kind,
        seat=_seat(event.seat),
        cards=format_cards(event.cards).split(),
        target=_seat(event.target),
        value=event.value,
        tag=event.tag,
        description=description,
    )


def observation_to_proto(observation: Observation, seq: int) -> arena_pb2.Observation:
    """A seat's observation for a DecisionRequest: events left out (sent as EventBatch)."""
    return arena_pb2.Observation(
        game=observation.game,
        seat=_seat(observation.seat),
        phase=observation.phase,
        to_act=_seat(observation.to_act),
        hand=format_cards(observation.hand).split(),
        public_facts=struct(observation.public),
        private_facts=struct(observation.private),
        legal=arena_pb2.LegalActions(
            actions=[action_to_proto(a) for a in observation.legal_actions],
            complete=observation.legal_complete,
            description=observation.legal_description,
        ),
        seq=seq,
    )


# ---------------------------------------------------------------------------
# The policy


_GONE: Final = object()
_request_numbers = itertools.count(1)


class RemotePolicy:
    """One seat of a remote bot: ``act`` asks over the stream and waits for the reply.

    ``seq`` gives the seq of the last public event sent (the observation's ``seq``);
    ``before_request`` is called before each DecisionRequest (to flush pending events).
    """

    def __init__(
        self,
        send: Send,
        match_id: str,
        limit: float,
        *,
        seq: Callable[[], int],
        deal: Callable[[], int],
        before_request: Callable[[], None] = lambda: None,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        self._send = send
        self.match_id = match_id
        self.limit = limit
        self._seq = seq
        self._deal = deal
        self._before_request = before_request
        self._now = now
        self._lock = threading.Lock()
        self._replies: queue.Queue[object] = queue.Queue()
        self._open: str | None = None
        self._started = 0.0
        self._attempts = 0
        self._unconfirmed: tuple[str, Action] | None = None
        self.gone = False

    # -- called from the event loop ------------------------------------------------

    def offer(self, request_id: str, action: arena_pb2.Action) -> None:
        """An ActionReply from the stream: queued if it answers the open request, else
        refused at once as STALE (nothing changes)."""
        with self._lock:
            if request_id == self._open and not self.gone:
                self._attempts += 1
                if self._attempts > MAX_ATTEMPTS:
                    self._result(
                        request_id,
                        arena_pb2.ACTION_STATUS_TOO_MANY_ATTEMPTS,
                        reason=f"more than {MAX_ATTEMPTS} replies to request {request_id!r}",
                    )
                    return
                self._replies.put((request_id, action))
                return
        reason = (
            "no decision is open on this connection"
            if self._open is None
            else f"request {request_id!r} is not the open request"
        )
        self._result(
            request_id,
            arena_pb2.ACTION_STATUS_STALE,
            reason=f"unknown, closed or expired request id {request_id!r}: {reason}",
        )

    def leave(self) -> None:
        """The connection is gone: the seat flees at its next decision (no grace period)."""
        with self._lock:
            self.gone = True
        self._replies.put(_GONE)

    # -- called from the match's worker thread -------------------------------------

    def act(self, observation: Observation) -> Action:
        self.confirm()
        if self.gone:
            raise SeatGone(f"seat {observation.seat} left")
        if self._open is None:
            self._request(observation)
        assert self._open is not None
        request_id = self._open
        while True:
            left = self._started + self.limit - self._now()
            try:
                item = self._replies.get(timeout=max(left, 0.0)) if left > 0 else None
            except queue.Empty:
                item = None
            if item is _GONE:
                self._close()
                raise SeatGone(f"seat {observation.seat} left")
            if item is None:  # out of time: automatic play (the driver's fallback)
                fallback = observation.legal_actions[0]
                self._close()
                self._result(
                    request_id,
                    arena_pb2.ACTION_STATUS_TIMED_OUT,
                    action=action_to_proto(fallback),
                )
                late = self._started + self.limit + _LATE_MARGIN - self._now()
                if late > 0:
                    time.sleep(late)
                return fallback
            assert isinstance(item, tuple)
            reply: arena_pb2.Action = item[1]
            try:
                action = action_from_proto(reply)
            except ParseError as err:
                self._retry(request_id, arena_pb2.ACTION_STATUS_MALFORMED, str(err), reply)
                continue
            self._unconfirmed = (request_id, action)
            return action

    def rejected(self, action: Action | str, reason: str) -> None:
        """The engine refused the last answer: tell the bot why; the request stays open."""
        self._unconfirmed = None
        shown = action_to_proto(action) if isinstance(action, Action) else None
        assert self._open is not None
        self._retry(self._open, arena_pb2.ACTION_STATUS_ILLEGAL, reason, shown)

    def confirm(self) -> None:
        """The last answer was applied (the driver moved on): ACCEPTED closes its request."""
        answered, self._unconfirmed = self._unconfirmed, None
        if answered is not None:
            self._close()
            self._result(
                answered[0], arena_pb2.ACTION_STATUS_ACCEPTED, action=action_to_proto(answered[1])
            )

    # -- helpers -------------------------------------------------------------------

    def _request(self, observation: Observation) -> None:
        self._before_request()
        request_id = f"r-{next(_request_numbers)}"
        with self._lock:
            self._open = request_id
            self._attempts = 0
            self._started = self._now()
        self._send(
            arena_pb2.ServerMessage(
                decision=arena_pb2.DecisionRequest(
                    request_id=request_id,
                    match_id=self.match_id,
                    deal=self._deal(),
                    observation=observation_to_proto(observation, self._seq()),
                    decision_ms=int(self.limit * 1000),
                    time_bank_ms=0,
                )
            )
        )

    def _close(self) -> None:
        """The open request is closed: later replies naming it are stale."""
        with self._lock:
            self._open = None
            self._attempts = 0
            stale: list[object] = []
            while True:
                try:
                    stale.append(self._replies.get_nowait())
                except queue.Empty:
                    break
        for item in stale:
            if item is _GONE:
                self._replies.put(_GONE)
            elif isinstance(item, tuple):
                self._result(
                    item[0],
                    arena_pb2.ACTION_STATUS_STALE,
                    reason=f"request {item[0]!r} is already closed",
                )

    def _retry(
        self, request_id: str, status: int, reason: str, action: arena_pb2.Action | None
    ) -> None:
        left = max(0.0, self._started + self.limit - self._now())
        self._result(
            request_id,
            status,
            reason=reason,
            action=action,
            decision_ms=int(left * 1000),
            attempts_left=max(0, MAX_ATTEMPTS - self._attempts),
        )

    def _result(
        self,
        request_id: str,
        status: int,
        *,
        reason: str = "",
        action: arena_pb2.Action | None = None,
        decision_ms: int = 0,
        attempts_left: int = 0,
    ) -> None:
        self._send(
            arena_pb2.ServerMessage(
                action_result=arena_pb2.ActionResult(
                    request_id=request_id,
                    match_id=self.match_id,
                    status=status,  # type: ignore[arg-type]
                    reason=reason,
                    action=action,
                    decision_ms=decision_ms,
                    attempts_left=attempts_left,
                )
            )
        )
