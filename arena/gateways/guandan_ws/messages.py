"""The platform's messages to one seat, made from that seat's observation alone.

Every builder here reads one :class:`~arena.games.base.Observation` of the seat (its
hand, its legal actions, the deal's public events and public facts) and nothing else of
the engine, so a message never shows what the observation does not (C-5): the
visibility is decided where the observation is made. The only state is
:class:`PlatformSeat`'s cursor (which events it has already told) and the pending
decision.

Where each field comes from:

=================  ==================================================================
``myPos``          ``observation.seat``
``handCards``      ``observation.hand`` (codes, :func:`~.cards.hand_codes` order)
``curRank``        ``public["level"]`` (the level played, GD-4), a rank letter
``selfRank``       ``public["levels"][team of the seat]``
``oppoRank``       ``public["levels"][the other team]``
``stage`` (act)    ``observation.phase``: ``play``, ``tribute``, ``return`` → ``back``
``actionList``     ``observation.legal_actions``, each by :func:`~.actions.encode`
``indexRange``     ``len(actionList) - 1``
``curPos``         the seat of the trick's last play or pass event (-1 at a lead)
``curAction``      that event as an entry (``None`` at a lead)
``greaterPos``     the seat of the trick's best play event (-1 at a lead)
``greaterAction``  that play as an entry (``None`` at a lead)
``publicInfo``     per seat: ``rest``, its card count (its own: ``len(hand)``; another:
                   ``public["counts"]`` when announced, GD-12, else the 27 dealt (GD-1)
                   less the cards its play events showed), and ``playArea``, its
                   last play or pass in the trick in progress (``None``: none yet)
``result``         ``tribute`` / ``return`` events: ``[giver, receiver, card]``
``antiNum``,       a ``refuse_tribute`` event: its seat, or after a double defeat
``antiPos``        (tag ``double``) the two players who owed tribute
``order``          the deal result's ``details["order"]`` (GD-2)
``restCards``      the seat's own cards left at the end, ``[[myPos, cards]]``; another
                   seat's hand is never shown (C-5)
=================  ==================================================================

A play event carries the reading the engine played it at (``value`` and the kind in
``tag``), so ``curAction`` and ``greaterAction`` name exactly the engine's rank and kind.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from arena.games.base import NOBODY, Action, Event, Observation, Seat, next_seat, team_of
from arena.games.guandan.combos import KIND_BY_LABEL, reading
from arena.gateways.guandan_ws.actions import (
    PASS_ENTRY,
    TYPE_OF_KIND,
    Entry,
    check_index,
    encode_all,
    placed_codes,
    rank_text,
)
from arena.gateways.guandan_ws.cards import code, hand_codes, rank_letter

Message = dict[str, Any]
"""One JSON-ready message of the platform (``json.dumps`` sends it)."""

DEALT: Final = 27
"""GD-1: the cards each player is dealt."""
SEATS: Final = 4
STAGE_OF_PHASE: Final[Mapping[str, str]] = {"play": "play", "tribute": "tribute", "return": "back"}
"""The ``stage`` of an ``act`` message for each decision phase of our engine."""


# ---------------------------------------------------------------- stateless builders


def ranks(observation: Observation) -> dict[str, str]:
    """``curRank``, ``selfRank`` and ``oppoRank`` of the seat's observation."""
    public = observation.public
    levels = public["levels"]
    team = team_of(observation.seat)
    return {
        "curRank": rank_letter(public["level"]),
        "selfRank": rank_letter(levels[team]),
        "oppoRank": rank_letter(levels[1 - team]),
    }


def beginning(observation: Observation) -> Message:
    """``beginning``: the seat's hand as dealt (give it the observation at the deal's
    start, before any tribute) and its position; the ranks beside them."""
    return {
        "type": "notify",
        "stage": "beginning",
        "handCards": hand_codes(observation.hand, observation.public["level"]),
        "myPos": observation.seat,
        **ranks(observation),
    }


def act(observation: Observation) -> Message:
    """``act``: the seat's decision. ``actionList`` is our legal list, in order.

    Raises :class:`ValueError` when the seat is not the one to act, or when the list
    is only a sample (never in Guandan, whose lists are complete).
    """
    seat = observation.seat
    if observation.to_act != seat or observation.phase not in STAGE_OF_PHASE:
        raise ValueError(f"seat {seat} has no decision now (seat {observation.to_act} acts)")
    if not observation.legal_complete:
        raise ValueError("the platform's actionList must list every legal action")
    level = observation.public["level"]
    entries = encode_all(observation.legal_actions, level)
    trick = Trick(observation.events, len(observation.events), level)
    return {
        "type": "act",
        "stage": STAGE_OF_PHASE[observation.phase],
        "handCards": hand_codes(observation.hand, level),
        "publicInfo": public_info(observation, trick),
        **ranks(observation),
        "curPos": trick.cur_pos,
        "curAction": trick.cur_action,
        "greaterPos": trick.greater_pos,
        "greaterAction": trick.greater_action,
        "actionList": entries,
        "indexRange": len(entries) - 1,
    }


def public_info(observation: Observation, trick: Trick) -> list[dict[str, Any]]:
    """``publicInfo``: each seat's card count and its action in the trick in progress."""
    counts = observation.public["counts"]
    played = [0] * SEATS
    for event in observation.events:
        if event.kind == "play":
            played[event.seat] += len(event.cards)
    info = []
    for seat in range(SEATS):
        if seat == observation.seat:
            rest = len(observation.hand)
        elif counts[seat] is not None:
            rest = counts[seat]
        else:
            rest = DEALT - played[seat]
        info.append({"rest": rest, "playArea": trick.areas[seat]})
    return info


def notifications(
    events: Sequence[Event], start: int, level: int, previous_order: Sequence[Seat] = ()
) -> list[Message]:
    """The ``notify`` messages of ``events[start:]`` (the events before are context: the
    trick in progress). ``previous_order`` names the losers of a double refusal."""
    messages: list[Message] = []
    index = start
    while index < len(events):
        event = events[index]
        kind = event.kind
        if kind in ("play", "pass"):
            trick = Trick(events, index + 1, level)
            messages.append(
                {
                    "type": "notify",
                    "stage": "play",
                    "curPos": trick.cur_pos,
                    "curAction": trick.cur_action,
                    "greaterPos": trick.greater_pos,
                    "greaterAction": trick.greater_action,
                }
            )
        elif kind in ("tribute", "return"):
            group = [event]
            while index + 1 < len(events) and events[index + 1].kind == kind:
                index += 1
                group.append(events[index])
            messages.append(
                {
                    "type": "notify",
                    "stage": "tribute" if kind == "tribute" else "back",
                    "result": [[e.seat, e.target, code(e.cards[0])] for e in group],
                }
            )
        elif kind == "refuse_tribute":
            refusers = [event.seat] if event.seat != NOBODY else list(previous_order[2:])
            messages.append(
                {
                    "type": "notify",
                    "stage": "anti-tribute",
                    "antiNum": 2 if event.tag == "double" else 1,
                    "antiPos": refusers,
                }
            )
        index += 1
    return messages


def episode_over(observation: Observation, details: Mapping[str, Any]) -> Message:
    """``episodeOver``: the finishing order, the level played and the seat's own cards
    left. A deal ended by a flight (``details["forfeit"]``) lists the players out, then
    the others in turn from the last one out."""
    order = details.get("order")
    if order is None:
        order = list(observation.public["finished"])
        seat = order[-1] if order else details.get("forfeit", 0)
        for _ in range(SEATS):
            seat = next_seat(seat)
            if seat not in order:
                order.append(seat)
    level = observation.public["level"]
    rest = [[observation.seat, hand_codes(observation.hand, level)]] if observation.hand else []
    return {
        "type": "notify",
        "stage": "episodeOver",
        "order": list(order),
        "curRank": rank_letter(level),
        "restCards": rest,
    }


def game_over(cur_times: int, setting_times: int) -> Message:
    """``gameOver``: game (match) ``cur_times`` of the ``setting_times`` of the series."""
    return {
        "type": "notify",
        "stage": "gameOver",
        "curTimes": cur_times,
        "settingTimes": setting_times,
    }


def game_result(victories: Sequence[int], draws: Sequence[int]) -> Message:
    """``gameResult``: per seat, the games won and drawn in the series."""
    return {
        "type": "notify",
        "stage": "gameResult",
        "victoryNum": list(victories),
        "draws": list(draws),
    }


class Trick:
    """The trick in progress after ``events[:stop]``: last action, best play, and each
    seat's last action in it (``playArea``), as entries."""

    def __init__(self, events: Sequence[Event], stop: int, level: int) -> None:
        self.cur_pos: Seat = -1
        self.cur_action: Entry | None = None
        self.greater_pos: Seat = -1
        self.greater_action: Entry | None = None
        self.areas: list[Entry | None] = [None] * SEATS
        start = stop
        while start > 0 and events[start - 1].kind != "lead":
            start -= 1
        for event in events[start:stop]:
            if event.kind == "pass":
                entry: Entry = list(PASS_ENTRY)
            elif event.kind == "play":
                entry = play_entry(event, level)
                self.greater_pos, self.greater_action = event.seat, entry
            else:
                continue
            self.cur_pos, self.cur_action = event.seat, entry
            self.areas[event.seat] = entry


def play_entry(event: Event, level: int) -> Entry:
    """A ``play`` event as an entry, at the reading the engine played it at."""
    played = reading(KIND_BY_LABEL[event.tag], event.value, len(event.cards))
    return [
        TYPE_OF_KIND[played.kind],
        rank_text(played, level),
        placed_codes(event.cards, played, level),
    ]


# --------------------------------------------------------------------- one seat


class PlatformSeat:
    """One seat's stream of platform messages, fed that seat's observations.

    Call :meth:`start_deal` with the observation at the start of each deal (before any
    tribute), :meth:`update` with each later observation (after events, at the seat's
    decisions), :meth:`end_deal` with the last one and the deal's result details; send
    each returned list in order. :meth:`action_for` reads the answer to the pending
    ``act``. A seat that comes back mid-deal gets a new ``PlatformSeat`` and
    :meth:`start_deal` with the observation of that moment: its current hand, then
    every event of the deal so far, as the platform's bots rebuild their state from.
    """

    def __init__(self, seat: Seat) -> None:
        self.seat = seat
        self._seen = 0
        self._level = 0
        self._previous_order: tuple[Seat, ...] = ()
        self._pending: Sequence[Action] | None = None
        self._asked_at = -1
        self._act: Message | None = None

    def start_deal(
        self, observation: Observation, previous_order: Sequence[Seat] | None = None
    ) -> list[Message]:
        """``beginning``, then what :meth:`update` sends. ``previous_order`` is the last
        deal's finishing order (remembered from :meth:`end_deal` when not given)."""
        self._check(observation)
        if previous_order is not None:
            self._previous_order = tuple(previous_order)
        self._seen, self._pending, self._asked_at, self._act = 0, None, -1, None
        self._level = observation.public["level"]
        return [beginning(observation), *self.update(observation)]

    def update(self, observation: Observation) -> list[Message]:
        """A ``notify`` for each public event not yet told, then an ``act`` when the
        seat has a decision not yet asked."""
        self._check(observation)
        events = observation.events
        if len(events) < self._seen:
            raise ValueError(
                f"seat {self.seat}: {len(events)} events after {self._seen}: a new deal "
                "starts with start_deal"
            )
        messages = notifications(events, self._seen, self._level, self._previous_order)
        self._seen = len(events)
        if observation.to_act == self.seat and self._asked_at != len(events):
            self._act = act(observation)
            self._pending, self._asked_at = observation.legal_actions, len(events)
            messages.append(self._act)
        elif observation.to_act != self.seat:
            self._pending = self._act = None
        return messages

    def end_deal(self, observation: Observation, details: Mapping[str, Any]) -> list[Message]:
        """The last events' ``notify`` messages, then ``episodeOver``."""
        messages = self.update(observation)
        over = episode_over(observation, details)
        self._previous_order = tuple(over["order"])
        self._pending = self._act = None
        return [*messages, over]

    @property
    def pending_act(self) -> Message | None:
        """The ``act`` awaiting an answer (to send again after a refused one), if any."""
        return self._act

    def action_for(self, act_index: object) -> Action:
        """Our legal action at ``act_index`` of the pending ``act``: the very action of
        the engine's list. :class:`~arena.errors.ParseError` quoting an index that is no
        whole number in ``0 .. indexRange``; :class:`ValueError` with no ``act`` pending."""
        pending = self._pending
        if pending is None:
            raise ValueError(f"seat {self.seat} has no decision pending")
        return pending[check_index(act_index, len(pending))]

    def _check(self, observation: Observation) -> None:
        if observation.seat != self.seat:
            raise ValueError(f"seat {self.seat} was given seat {observation.seat}'s observation")
