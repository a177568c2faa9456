"""A remote bot's seat: the policy the match driver asks, answered over a Play stream.

The match runs in a worker thread; the bot's stream lives on the server's event loop.
:class:`RemotePolicy` sends a ``DecisionRequest`` through its connection's ``send``
(thread-safe: it hands messages over with ``loop.call_soon_threadsafe``), then waits on a
:class:`queue.Queue` for the stream's ``ActionReply`` with that request id
(:meth:`RemotePolicy.offer`, called from the event loop).

The driver gives each decision a :class:`~arena.match.Deadline` (the decision's own
time, then the seat's time bank); a seat whose connection broke waits its grace period
for the bot to reconnect, then flees.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from itertools import count
from typing import Any, Final, cast

from google.protobuf import struct_pb2

from arena import metrics
from arena._proto.arena.v1 import arena_pb2
from arena.cards import card_names
from arena.errors import ParseError
from arena.games.base import NOBODY, Action, Event, Observation
from arena.log import get_logger
from arena.match import Conduct, Deadline, MatchAborted, SeatGone
from arena.protocol import MAX_ATTEMPTS, action_from_proto, action_to_proto

__all__ = [
    "RemotePolicy",
    "event_to_proto",
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
        raise ValueError(f"cannot send {value!r} ({type(value).__name__}) in a Struct")


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


def observation_to_proto(observation: Observation, seq: int) -> arena_pb2.Observation:
    """A seat's observation for a DecisionRequest: events left out (sent as EventBatch)."""
    return arena_pb2.Observation(
        game=observation.game,
        seat=_seat(observation.seat),
        phase=observation.phase,
        to_act=_seat(observation.to_act),
        hand=card_names(observation.hand),
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
"""Queued when the seat is left for good (Leave{now}, the grace period over)."""
_WAKE: Final = object()
"""Queued when the connection changes (lost or taken back), to re-check the waits."""
_Reply = tuple[str, arena_pb2.Action, float, Action | None]
"""A queued reply: its request id, the action as sent, its arrival, the action if
accepted on arrival."""


class RemotePolicy:
    """One seat of a remote bot: asks over the seat's current connection, waits for the reply.

    The match thread holds ``busy`` except while it waits here for a reply, so the event
    loop may read the match (to resume a seat) while a bot thinks. A seat whose connection
    broke keeps waiting for ``grace`` seconds (the clock keeps running); a connection that
    takes the seat back (:meth:`attach`) gets the open request again.
    ``seq`` gives the seq of the last public event sent (the observation's ``seq``);
    ``before_request(carry)`` is called before each DecisionRequest: it sends the events
    not sent yet, or with ``carry`` returns them to go inside the request (the connection
    said ``Hello.events_in_requests``).
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
        busy: threading.Lock | None = None,
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
        self._busy = busy
        self._before_request = before_request
        self._now = now
        self._request_numbers = request_numbers if request_numbers is not None else count(1)
        """Numbers of the request ids: shared by every seat of a server, so an id names
        one request on a connection, whatever match it played before."""
        self._lock = threading.Lock()
        self._replies: queue.Queue[object] = queue.Queue()
        self._send: Send | None = None
        self._carry = False
        """The connection takes the events inside its decision requests."""
        self._lost_at: float | None = None
        self._open: str | None = None
        self._request_message: arena_pb2.DecisionRequest | None = None
        self._legal: Sequence[Action] = ()
        """The open request's legal actions when the list is complete (else empty)."""
        self._accepted: str | None = None
        """The open request, once a reply to it was accepted on arrival."""
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

    # -- the seat's connection (any thread) -----------------------------------------

    def attach(self, send: Send, events_in_requests: bool = False) -> None:
        """A connection takes the seat (at the start, or back within the grace period)."""
        with self._lock:
            self._send = send
            self._carry = events_in_requests
            self._lost_at = None
        self._replies.put(_WAKE)

    def detach(self) -> None:
        """The connection broke: the seat waits ``grace`` seconds for its bot."""
        with self._lock:
            self._send = None
            self._lost_at = self._now()
        self._replies.put(_WAKE)

    def leave(self) -> None:
        """The bot left the seat for good: it flees at its decision."""
        with self._lock:
            self.gone = True
            self._send = None
        self._replies.put(_GONE)

    def abort(self, reason: str) -> None:
        """Stop the match at this seat's next (or current) decision."""
        with self._lock:
            self._abort = reason
        self._replies.put(_WAKE)

    @property
    def connected(self) -> bool:
        return self._send is not None

    def send(self, message: arena_pb2.ServerMessage) -> None:
        """To the seat's connection; dropped while there is none (a resume sends the state)."""
        send = self._send
        if send is not None:
            send(message)

    def resend_open(self) -> None:
        """Send the open DecisionRequest again (after a Resume), with the time left."""
        with self._lock:
            request = self._request_message
            if self._open is None or request is None:
                return
            again = arena_pb2.DecisionRequest()
            again.CopyFrom(request)
        self._fill_times(again)
        self.send(arena_pb2.ServerMessage(decision=again))

    # -- called from the event loop ------------------------------------------------

    def offer(self, request_id: str, action: arena_pb2.Action) -> None:
        """An ActionReply from the stream: queued, with its arrival time, if it answers
        the open request, else refused at once as STALE (nothing changes).

        A reply in time that names one of a complete list of legal actions is accepted
        at once (the engine cannot refuse it): ACCEPTED goes out before the match thread
        applies it, and so before anything that follows from it."""
        arrived = self._now()
        with self._lock:
            if request_id != self._open or self.gone:
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
                return
            self._attempts += 1
            if self._attempts > MAX_ATTEMPTS:
                self._result(
                    request_id,
                    arena_pb2.ACTION_STATUS_TOO_MANY_ATTEMPTS,
                    reason=f"more than {MAX_ATTEMPTS} replies to request {request_id!r}",
                )
                return
            accepted = self._accept_on_arrival(action, arrived)
            if accepted is not None:
                self._accepted = request_id
                self._result(
                    request_id, arena_pb2.ACTION_STATUS_ACCEPTED, action=action_to_proto(accepted)
                )
            self._replies.put((request_id, action, arrived, accepted))

    def _accept_on_arrival(self, reply: arena_pb2.Action, arrived: float) -> Action | None:
        """The reply's action if it can be accepted on arrival: in time, the first such
        reply, and one of a complete list of legal actions."""
        if not self._legal or self._accepted is not None or arrived >= self._deadline.final:
            return None
        try:
            action = action_from_proto(reply)
        except ParseError:
            return None
        return action if action in self._legal else None

    # -- called from the match's worker thread -------------------------------------

    def act(self, observation: Observation) -> Action:
        """Without a clock: wait as long as it takes (the seat's grace still applies)."""
        action = self.act_by(observation, Deadline(float("inf"), float("inf")))
        assert action is not None  # without a deadline it waits for an answer
        return action

    def act_by(self, observation: Observation, deadline: Deadline) -> Action | None:
        """Ask the bot and wait for a reply that arrives before ``deadline.final``; None
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
                    with self._lock:
                        self.gone = True
                    continue
                until = min(until, lost_at + self.grace)
            if now >= deadline.final and self._accepted is None:
                return None
            item = self._wait(until - now)
            if item is None or item is _WAKE or item is _GONE:
                continue
            request_id, reply, arrived, parsed = cast(_Reply, item)
            if request_id != self._open or arrived >= deadline.final:
                continue  # an answer after the deadline is no answer
            if parsed is None:
                try:
                    parsed = action_from_proto(reply)
                except ParseError as err:
                    self.conduct.malformed += 1
                    self._retry(request_id, arena_pb2.ACTION_STATUS_MALFORMED, str(err), reply)
                    continue
            self._unconfirmed = (request_id, parsed)
            return parsed

    def timed_out(self, fallback: Action | None) -> None:
        """The answer came too late: ``fallback`` was played (``None``: the seat fled)."""
        self._unconfirmed = None
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
        """The last answer was applied (the driver moved on): ACCEPTED closes its request."""
        answered, self._unconfirmed = self._unconfirmed, None
        if answered is not None:
            metrics.record_decision(self.variant, self.bot, time.perf_counter() - self._sent_at)
            told = self._accepted == answered[0]  # accepted on arrival already
            self._close()
            if not told:
                self._result(
                    answered[0],
                    arena_pb2.ACTION_STATUS_ACCEPTED,
                    action=action_to_proto(answered[1]),
                )

    # -- helpers -------------------------------------------------------------------

    def _wait(self, seconds: float) -> object:
        """The next queued item within ``seconds`` (None if none), ``busy`` released."""
        if self._busy is not None:
            self._busy.release()
        try:
            return self._replies.get(timeout=min(seconds, threading.TIMEOUT_MAX))
        except queue.Empty:
            return None
        finally:
            if self._busy is not None:
                self._busy.acquire()

    def _request(self, observation: Observation, deadline: Deadline) -> None:
        carried = self._before_request(self._carry)
        request = arena_pb2.DecisionRequest(
            request_id=f"r-{next(self._request_numbers)}",
            match_id=self.match_id,
            deal=self._deal(),
            observation=observation_to_proto(observation, self._seq()),
        )
        request.observation.events.extend(carried)
        with self._lock:
            self._open = request.request_id
            self._request_message = request
            self._legal = observation.legal_actions if observation.legal_complete else ()
            self._deadline = deadline
            self._attempts = 0
        self._fill_times(request)
        self._sent_at = time.perf_counter()
        self.send(arena_pb2.ServerMessage(decision=request))

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
        with self._lock:
            self._open = None
            self._request_message = None
            self._legal = ()
            self._accepted = None
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


def _ms(seconds: float) -> int:
    return 0 if seconds == float("inf") else min(int(seconds * 1000), 2**32 - 1)
