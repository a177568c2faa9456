"""A remote bot's seat: the policy the match driver asks, answered over a Play stream.

The match is a coroutine on the server's event loop, like the bot's stream.
:class:`RemotePolicy` sends a ``DecisionRequest`` through its connection's ``send``, then
awaits the stream's ``ActionReply`` with that request id (:meth:`RemotePolicy.offer`
queues it): no thread waits, no hand-off between threads.

The driver gives each decision a :class:`~arena.match.Deadline` (the decision's own
time, then the seat's time bank); a seat whose connection broke waits its grace period
for the bot to reconnect, then flees.

What a connection is sent depends on its protocol (docs/protocol.md): version 2 gets the
events inside each request, facts as JSON text, legal actions as texts, and no
ActionResult for an accepted answer (the next request names it); version 1 the first
form.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import count
from typing import Any, Final

from google.protobuf import struct_pb2

from arena import metrics
from arena._proto.arena.v1 import arena_pb2
from arena.cards import card_names
from arena.deal_loop import action_text
from arena.errors import ParseError, quoted
from arena.games.base import NOBODY, Action, Event, Observation
from arena.games.views import NO_FACTS
from arena.log import get_logger
from arena.match import Conduct, Deadline, MatchAborted, SeatGone
from arena.protocol import MAX_ATTEMPTS, action_of_reply, action_to_proto

__all__ = [
    "RemotePolicy",
    "Wire",
    "event_to_proto",
    "facts_json",
    "observation_to_proto",
    "struct",
]

Send = Callable[[arena_pb2.ServerMessage], None]


# ---------------------------------------------------------------------------
# Conversions


def _set(target: struct_pb2.Value, value: Any) -> None:
    """Fill a Struct value from JSON-like data (mappings, sequences, scalars, None)."""
    if value is None:
        target.null_value = struct_pb2.NULL_VALUE
    elif isinstance(value, bool):
        target.bool_value = value
    elif isinstance(value, int | float):
        target.number_value = value
    elif isinstance(value, str):
        target.string_value = value
    elif isinstance(value, Mapping):
        target.struct_value.SetInParent()  # set even when empty
        fields = target.struct_value.fields
        for key, item in value.items():
            _set(fields[str(key)], item)
    elif isinstance(value, tuple | list):
        target.list_value.SetInParent()
        values = target.list_value.values
        for item in value:
            _set(values.add(), item)
    else:
        raise ValueError(f"cannot send {quoted(value)} ({type(value).__name__}) in a Struct")


def struct(value: Mapping[str, Any]) -> struct_pb2.Struct:
    """The facts as a protobuf Struct (keys as text, tuples as lists)."""
    message = struct_pb2.Struct()
    fields = message.fields
    for key, item in value.items():
        _set(fields[str(key)], item)
    return message


def _seat(seat: int) -> int | None:
    return None if seat == NOBODY else seat


def event_to_proto(event: Event, seq: int, deal: int, description: str) -> arena_pb2.Event:
    """A public engine event (``State.events``: never a hidden card) on the wire."""
    return arena_pb2.Event(
        seq=seq,
        deal=deal,
        kind=event.kind,
        seat=_seat(event.seat),
        cards=card_names(event.cards),
        target=_seat(event.target),
        value=event.value,
        tag=event.tag,
        description=description,
    )


def facts_json(facts: Mapping[str, Any]) -> str:
    """Facts as one JSON object (protocol 2's ``public_json`` / ``private_json``)."""
    if facts is NO_FACTS or not facts:
        return "{}"
    return json.dumps(dict(facts), separators=(",", ":"), ensure_ascii=False)


def observation_to_proto(
    observation: Observation, seq: int, *, compact: bool = False
) -> arena_pb2.Observation:
    """A seat's observation for a DecisionRequest (events left out: the caller adds those
    not sent yet). ``compact`` (protocol 2): facts as JSON text, legal actions as texts."""
    message = arena_pb2.Observation()
    fill_observation(message, observation, seq, compact=compact)
    return message


def fill_observation(
    message: arena_pb2.Observation, observation: Observation, seq: int, *, compact: bool
) -> None:
    """:func:`observation_to_proto` written into ``message`` (a request's own: no copy)."""
    message.game = observation.game
    if observation.seat != NOBODY:
        message.seat = observation.seat
    message.phase = observation.phase
    if observation.to_act != NOBODY:
        message.to_act = observation.to_act
    message.hand.extend(card_names(observation.hand))
    message.seq = seq
    legal = message.legal
    legal.complete = observation.legal_complete
    legal.description = observation.legal_description
    if compact:
        message.public_json = facts_json(observation.public)
        message.private_json = facts_json(observation.private)
        legal.texts.extend([action_text(a) for a in observation.legal_actions])
    else:
        message.public_facts.CopyFrom(struct(observation.public))
        message.private_facts.CopyFrom(struct(observation.private))
        message.public_facts.SetInParent()  # set even when empty
        message.private_facts.SetInParent()
        legal.actions.extend([action_to_proto(a) for a in observation.legal_actions])


# ---------------------------------------------------------------------------
# The policy


@dataclass(frozen=True)
class Wire:
    """What a connection takes (its Hello): protocol 2 carries the events inside the
    requests, sends compact observations and no ActionResult for an accepted answer;
    protocol 1 carries the events inside the requests only with ``events_in_requests``."""

    protocol: int = 2
    events_in_requests: bool = True

    @property
    def carry(self) -> bool:
        """The events not sent yet go inside the decision request."""
        return self.events_in_requests or self.protocol >= 2

    @property
    def compact(self) -> bool:
        """Facts as JSON, legal actions as texts, acceptance in the next request."""
        return self.protocol >= 2


_GONE: Final = object()
"""Queued when the seat is left for good (Leave{now}, the grace period over)."""
_WAKE: Final = object()
"""Queued when the connection changes (lost or taken back), to re-check the waits."""


@dataclass(frozen=True)
class _Reply:
    """A queued reply: its request id, the action it names (or why it names none), its
    arrival, and its action as sent (to quote in a refusal)."""

    request_id: str
    action: Action | None
    problem: str
    arrived: float
    sent: arena_pb2.Action | None


class RemotePolicy:
    """One seat of a remote bot: asks over the seat's current connection, awaits the reply.

    Everything runs on the event loop: the match's coroutine awaits here while the bot
    thinks, so the loop may read the match in between (to resume a seat, to catch a
    spectator up). A seat whose connection broke keeps waiting for ``grace`` seconds (the
    clock keeps running); a connection that takes the seat back (:meth:`attach`) gets the
    open request again.
    ``seq`` gives the seq of the last public event sent (the observation's ``seq``);
    ``before_request(carry)`` is called before each DecisionRequest: it sends the events
    not sent yet, or with ``carry`` returns them to go inside the request.
    """

    def __init__(
        self,
        match_id: str,
        *,
        variant: str = "",
        bot: str = "",
        player: int | None = None,
        seq: Callable[[], int],
        deal: Callable[[], int],
        grace: float,
        before_request: Callable[[bool], Sequence[arena_pb2.Event]] = lambda carry: (),
        now: Callable[[], float] = time.monotonic,
        request_numbers: Iterator[int] | None = None,
    ) -> None:
        self.match_id = match_id
        self.variant = variant
        self.bot = bot
        self.grace = grace
        self._log = get_logger(__name__, match_id=match_id, variant=variant, bot=bot, player=player)
        self._sent_at = 0.0
        self._seq = seq
        self._deal = deal
        self._before_request = before_request
        self._now = now
        self._request_numbers = request_numbers if request_numbers is not None else count(1)
        """Numbers of the request ids: shared by every seat of a server, so an id names
        one request on a connection, whatever match it played before."""
        self._replies: deque[object] = deque()
        self._waiter: asyncio.Future[object] | None = None
        """The match's wait for the next reply or change (:meth:`_wait`), if it waits."""
        self._record_decision = metrics.decision_recorder(variant, bot)
        self._send: Send | None = None
        self._wire = Wire()
        self._lost_at: float | None = None
        self._open: str | None = None
        self._request_message: arena_pb2.DecisionRequest | None = None
        self._observation: Observation | None = None
        """The open request's observation: its legal actions as listed (what a reply's
        index names), its form for another protocol."""
        self._accepted: str | None = None
        """The open request, once a reply to it was accepted on arrival (protocol 1)."""
        self._last_accepted = ""
        """The request whose answer was applied last, to name in the next request
        (protocol 2)."""
        self._deadline = Deadline(0.0, 0.0)
        self._attempts = 0
        self._unconfirmed: tuple[str, Action] | None = None
        self._abort: str | None = None
        self.gone = False
        self.conduct = Conduct()
        """The answers this seat had refused and the decisions it let run out (kept
        with the stored match)."""
        if variant and bot:
            metrics.bot_seated(variant, bot)

    # -- the seat's connection -----------------------------------------------------

    def attach(self, send: Send, wire: Wire = Wire()) -> None:
        """A connection takes the seat (at the start, or back within the grace period)."""
        self._send = send
        self._wire = wire
        self._lost_at = None
        self._queue(_WAKE)

    def detach(self) -> None:
        """The connection broke: the seat waits ``grace`` seconds for its bot."""
        self._send = None
        self._lost_at = self._now()
        self._queue(_WAKE)

    def leave(self) -> None:
        """The bot left the seat for good: it flees at its decision."""
        self.gone = True
        self._send = None
        self._queue(_GONE)

    def abort(self, reason: str) -> None:
        """Stop the match at this seat's next (or current) decision."""
        self._abort = reason
        self._queue(_WAKE)

    def _queue(self, item: object) -> None:
        """Hand ``item`` (a reply, or a change to re-check) to the match's wait."""
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(item)
        else:
            self._replies.append(item)

    @property
    def open_decision(self) -> tuple[str, Observation] | None:
        """The open request's id and the observation it was made of (None: none is open)."""
        if self._open is None or self._observation is None:
            return None
        return self._open, self._observation

    @property
    def connected(self) -> bool:
        return self._send is not None

    def send(self, message: arena_pb2.ServerMessage) -> None:
        """To the seat's connection; dropped while there is none (a resume sends the state)."""
        send = self._send
        if send is not None:
            send(message)

    def resend_open(self) -> None:
        """Send the open DecisionRequest again (after a Resume), with the time left, its
        observation in the form of the connection's protocol (a bot may come back
        speaking the other one) and without events: the Resume brought every event of
        the deal, and each event reaches a connection once."""
        request, observation = self._request_message, self._observation
        if self._open is None or request is None:
            return
        message = arena_pb2.ServerMessage()
        again = message.decision
        again.CopyFrom(request)
        del again.observation.events[:]
        compact = self._wire.compact
        if observation is not None and bool(request.observation.public_json) != compact:
            again.observation.Clear()
            fill_observation(
                again.observation, observation, request.observation.seq, compact=compact
            )
        self._fill_times(again)
        self.send(message)

    def offer(self, request_id: str, reply: arena_pb2.ActionReply) -> None:
        """An ActionReply from the stream: queued, with its arrival time, if it answers
        the open request, else refused at once as STALE (nothing changes).

        Protocol 1: a reply in time that names one of a complete list of legal actions
        is accepted at once (the engine cannot refuse it): ACCEPTED goes out before the
        match applies it, and so before anything that follows from it."""
        arrived = self._now()
        if request_id != self._open or self.gone:
            reason = (
                "no decision is open on this connection"
                if self._open is None
                else f"request {quoted(request_id)} is not the open request"
            )
            self._result(
                request_id,
                arena_pb2.ACTION_STATUS_STALE,
                reason=f"unknown, closed or expired request id {quoted(request_id)}: {reason}",
            )
            return
        self._attempts += 1
        if self._attempts > MAX_ATTEMPTS:
            self._result(
                request_id,
                arena_pb2.ACTION_STATUS_TOO_MANY_ATTEMPTS,
                reason=f"more than {MAX_ATTEMPTS} replies to request {quoted(request_id)}",
            )
            return
        sent = reply.action if reply.HasField("action") else None
        asked = self._observation
        listed = asked.legal_actions if asked is not None else ()
        try:
            action: Action | None = action_of_reply(reply, listed)
            problem = ""
        except ParseError as err:
            action, problem = None, str(err)
        if (
            action is not None
            and not self._wire.compact
            and asked is not None
            and asked.legal_complete
            and self._accepted is None
            and arrived < self._deadline.final
            and action in listed
        ):
            self._accepted = request_id
            self._result(
                request_id, arena_pb2.ACTION_STATUS_ACCEPTED, action=action_to_proto(action)
            )
        self._queue(_Reply(request_id, action, problem, arrived, sent))

    # -- asked by the match's driver -----------------------------------------------

    async def act_async(self, observation: Observation) -> Action:
        """Without a clock: wait as long as it takes (the seat's grace still applies)."""
        action = await self.act_by_async(observation, Deadline(float("inf"), float("inf")))
        assert action is not None  # without a deadline it waits for an answer
        return action

    async def act_by_async(self, observation: Observation, deadline: Deadline) -> Action | None:
        """Ask the bot and await a reply that arrives before ``deadline.final``; None
        when none did (the driver plays the fallback and calls :meth:`timed_out`)."""
        self.confirm()
        if self._open is None:
            self._request(observation, deadline)
        while True:
            if self._abort is not None:
                raise MatchAborted(self._abort)
            if self.gone and self._accepted is None:
                self._close()
                raise SeatGone(f"seat {observation.seat} left")
            now = self._now()
            until = deadline.final
            lost_at = self._lost_at
            if lost_at is not None:
                if now >= lost_at + self.grace:
                    self.gone = True
                    continue
                until = min(until, lost_at + self.grace)
            if now >= deadline.final and self._accepted is None:
                return None
            item = await self._wait(until - now)
            if not isinstance(item, _Reply):
                continue
            if item.request_id != self._open or item.arrived >= deadline.final:
                continue  # an answer after the deadline is no answer
            if item.action is None:
                self.conduct.malformed += 1
                self._retry(
                    item.request_id, arena_pb2.ACTION_STATUS_MALFORMED, item.problem, item.sent
                )
                continue
            self._unconfirmed = (item.request_id, item.action)
            return item.action

    def timed_out(self, fallback: Action | None) -> None:
        """The answer came too late: ``fallback`` was played (``None``: the seat fled)."""
        self._unconfirmed = None
        self._last_accepted = ""
        request_id = self._open
        if fallback is None:
            metrics.record_forfeit(self.variant, self.bot)
            self._log.warning("forfeit", request_id=request_id, connected=self.connected)
        else:
            self.conduct.timeouts += 1
            metrics.record_timeout(self.variant, self.bot)
            self._log.warning("decision_timeout", request_id=request_id, connected=self.connected)
        self._close()
        if request_id is not None:
            self._result(
                request_id,
                arena_pb2.ACTION_STATUS_TIMED_OUT,
                reason="" if fallback is not None else "the seat has fled",
                action=action_to_proto(fallback) if fallback is not None else None,
            )

    def rejected(self, action: Action | str, reason: str) -> None:
        """The engine refused the last answer: tell the bot why; the request stays open."""
        self.conduct.illegal += 1
        metrics.record_illegal_action(self.variant, self.bot)
        self._log.info("illegal_action", request_id=self._open, action=str(action), reason=reason)
        self._refused(action, reason, arena_pb2.ACTION_STATUS_ILLEGAL)

    def malformed(self, action: Action | str, reason: str) -> None:
        """The last answer is no action of the game (an unknown verb or kind, a wrong
        number of cards): MALFORMED; the request stays open."""
        self.conduct.malformed += 1
        self._log.info("malformed_action", request_id=self._open, action=str(action), reason=reason)
        self._refused(action, reason, arena_pb2.ACTION_STATUS_MALFORMED)

    def _refused(self, action: Action | str, reason: str, status: int) -> None:
        self._unconfirmed = None
        shown = action_to_proto(action) if isinstance(action, Action) else None
        if self._open is not None:
            self._retry(self._open, status, reason, shown)

    def confirm(self) -> None:
        """The last answer was applied (the driver moved on): its request is closed
        (protocol 1: with ACCEPTED; 2: named in the next request)."""
        answered, self._unconfirmed = self._unconfirmed, None
        if answered is None:
            return
        self._record_decision(time.perf_counter() - self._sent_at)
        told = self._accepted == answered[0]  # accepted on arrival already
        self._close()
        if self._wire.compact:
            self._last_accepted = answered[0]
        elif not told:
            self._result(
                answered[0], arena_pb2.ACTION_STATUS_ACCEPTED, action=action_to_proto(answered[1])
            )

    # -- helpers -------------------------------------------------------------------

    async def _wait(self, seconds: float) -> object:
        """The next queued item within ``seconds`` (None if none)."""
        if self._replies:
            return self._replies.popleft()
        loop = asyncio.get_running_loop()
        waiter = self._waiter = loop.create_future()
        timer = None
        if seconds != float("inf"):
            timer = loop.call_later(max(seconds, 0.0), _expire, waiter)
        try:
            return await waiter
        finally:
            self._waiter = None
            if timer is not None:
                timer.cancel()

    def _request(self, observation: Observation, deadline: Deadline) -> None:
        wire = self._wire
        carried = self._before_request(wire.carry)
        message = arena_pb2.ServerMessage()
        request = message.decision  # written in place: no copy of the request
        request.request_id = f"r-{next(self._request_numbers)}"
        request.match_id = self.match_id
        request.deal = self._deal()
        fill_observation(request.observation, observation, self._seq(), compact=wire.compact)
        request.accepted = self._last_accepted
        self._last_accepted = ""
        if carried:
            request.observation.events.extend(carried)
        self._open = request.request_id
        self._request_message = request
        self._observation = observation
        self._deadline = deadline
        self._attempts = 0
        self._fill_times(request)
        self._sent_at = time.perf_counter()
        self.send(message)

    def _fill_times(self, request: arena_pb2.DecisionRequest) -> None:
        decision, bank = self._time_left()
        request.decision_ms = decision
        request.time_bank_ms = bank
        left = self._deadline.final - self._now()
        if left != float("inf"):
            request.deadline.FromNanoseconds(int((time.time() + max(left, 0.0)) * 1e9))

    def _time_left(self) -> tuple[int, int]:
        """The open decision's own time and the bank left, in whole milliseconds."""
        now = self._now()
        decision, final = self._deadline
        own = max(0.0, decision - now)
        bank = max(0.0, final - max(decision, now))
        return _ms(own), _ms(bank)

    def _close(self) -> None:
        """The open request is closed: later replies naming it are stale."""
        self._open = None
        self._request_message = None
        self._observation = None
        self._accepted = None
        self._attempts = 0
        stale = list(self._replies)
        self._replies.clear()
        for item in stale:
            if item is _GONE:
                self._queue(_GONE)
            elif isinstance(item, _Reply):
                self._result(
                    item.request_id,
                    arena_pb2.ACTION_STATUS_STALE,
                    reason=f"request {quoted(item.request_id)} is already closed",
                )

    def _retry(
        self, request_id: str, status: int, reason: str, action: arena_pb2.Action | None
    ) -> None:
        decision, bank = self._time_left()
        self._result(
            request_id,
            status,
            reason=reason,
            action=action,
            decision_ms=decision,
            time_bank_ms=bank,
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
        time_bank_ms: int = 0,
        attempts_left: int = 0,
    ) -> None:
        self.send(
            arena_pb2.ServerMessage(
                action_result=arena_pb2.ActionResult(
                    request_id=request_id,
                    match_id=self.match_id,
                    status=status,  # type: ignore[arg-type]
                    reason=reason,
                    action=action,
                    decision_ms=decision_ms,
                    time_bank_ms=time_bank_ms,
                    attempts_left=attempts_left,
                )
            )
        )


def _expire(waiter: asyncio.Future[object]) -> None:
    if not waiter.done():
        waiter.set_result(None)


def _ms(seconds: float) -> int:
    return 0 if seconds == float("inf") else min(int(seconds * 1000), 2**32 - 1)
