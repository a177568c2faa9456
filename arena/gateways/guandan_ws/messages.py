"""The platform's messages to one seat, made from that seat's observation alone.

Every builder here reads one :class:`~arena.games.base.Observation` of the seat (its
hand, its legal actions, the deal's public events and public facts) and nothing else of
the engine, so a message never shows what the observation does not (C-5): the
visibility is decided where the observation is made. The only state is
:class:`PlatformSeat`'s cursor (which events of the deal it has already told, its last
observed hand) and the pending decision.

Where each field comes from:

=================  ==================================================================
``myPos``          ``observation.seat``
``handCards``      ``observation.hand`` (codes, :func:`~.cards.hand_codes` order); in
                   ``beginning`` the hand as dealt (:func:`dealt_hand`)
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
                   ``public["counts"]`` once announced, GD-12, else the 27 dealt (GD-1)
                   less the cards its play, tribute and return events took from it,
                   plus those they gave it), and ``playArea``, its last play or pass
                   in the trick in progress (``None``: none yet)
``result``         ``tribute`` / ``return`` events: ``[giver, receiver, card]``
``antiNum``,       a ``refuse_tribute`` event: its seat, or after a double defeat
``antiPos``        (tag ``double``) the two players who owed tribute: the team that
                   is not ``public["level_team"]`` (GD-4: that team won the deal)
``order``          the deal result's ``details["order"]`` (GD-2)
``restCards``      the seat's own cards left at the end, ``[[myPos, cards]]`` (its last
                   observed hand less its plays since); another seat's hand is never
                   shown (C-5)
=================  ==================================================================

An observation may come over the arena's own wire (an SDK bot's, whose public facts and
result details may hold whole numbers as floats, a protobuf ``Struct``'s): numbers are
read as ints. A play event carries the reading the engine played it at (``value`` and the kind in
``tag``), so ``curAction`` and ``greaterAction`` name exactly the engine's rank and kind.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any, Final

from arena.cards import Card, parse_card
from arena.games.base import Action, Event, Observation, Seat, next_seat, team_of
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
        "curRank": rank_letter(int(public["level"])),
        "selfRank": rank_letter(int(levels[team])),
        "oppoRank": rank_letter(int(levels[1 - team])),
    }


def beginning(observation: Observation) -> Message:
    """``beginning``: the seat's hand as dealt (:func:`dealt_hand`: from any observation
    of the deal) and its position; the ranks beside them."""
    return {
        "type": "notify",
        "stage": "beginning",
        "handCards": hand_codes(dealt_hand(observation), int(observation.public["level"])),
        "myPos": observation.seat,
        **ranks(observation),
    }


def dealt_hand(observation: Observation) -> list[Card]:
    """The seat's hand as dealt: its hand now with its own plays, tributes and returns
    put back (the events and its private ``return_given``; cards it held, C-5)."""
    seat = observation.seat
    hand = Counter(observation.hand)
    given = observation.private.get("return_given")
    if given is not None:
        hand[parse_card(given)] += 1
    for event in observation.events:
        if event.kind in ("play", "tribute", "return") and event.seat == seat:
            hand.update(event.cards)
        if event.kind in ("tribute", "return") and event.target == seat:
            hand.subtract(event.cards)
    return sorted(hand.elements())


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
    level = int(observation.public["level"])
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
    rests = [DEALT] * SEATS
    for event in observation.events:
        if event.kind in ("play", "tribute", "return"):
            rests[event.seat] -= len(event.cards)
        if event.kind in ("tribute", "return"):
            rests[event.target] += len(event.cards)
    rests[observation.seat] = len(observation.hand)
    return [
        {"rest": rests[s] if counts[s] is None else int(counts[s]), "playArea": trick.areas[s]}
        for s in range(SEATS)
    ]


def notifications(
    events: Sequence[Event], start: int, level: int, level_team: int
) -> list[Message]:
    """The ``notify`` messages of ``events[start:]`` (the events before are context: the
    trick in progress). ``level_team`` (``public["level_team"]``, GD-4: the team that won
    the last deal) names the losers of a double defeat who refuse tribute together."""
    messages: list[Message] = []
    trick = Trick(events, start, level)
    index = start
    while index < len(events):
        event = events[index]
        kind = event.kind
        if trick.take(event):
            messages.append(trick.notice())
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
            double = event.tag == "double"
            losers = [1 - level_team, 3 - level_team]
            messages.append(
                {
                    "type": "notify",
                    "stage": "anti-tribute",
                    "antiNum": 2 if double else 1,
                    "antiPos": losers if double else [event.seat],
                }
            )
        index += 1
    return messages


def episode_over(
    events: Sequence[Event], details: Mapping[str, Any], seat: Seat, hand: Sequence[Card]
) -> Message:
    """``episodeOver``: the finishing order, the level played, the seat's own cards left
    (``hand``). A deal ended by a flight (``details["forfeit"]``, no order) lists the
    players out, then the others in turn from the seat that fled."""
    order = details.get("order")
    if order is None:
        order = [e.seat for e in events if e.kind == "out"]
        at = int(details.get("forfeit", 0))
        for _ in range(SEATS):
            if at not in order:
                order.append(at)
            at = next_seat(at)
    level = next(e.value for e in events if e.kind == "deal")
    return {
        "type": "notify",
        "stage": "episodeOver",
        "order": [int(seat) for seat in order],
        "curRank": rank_letter(level),
        "restCards": [[seat, hand_codes(hand, level)]] if hand else [],
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
    seat's last action in it (``playArea``), as entries; :meth:`take` follows it on."""

    def __init__(self, events: Sequence[Event], stop: int, level: int) -> None:
        self.level = level
        self._clear()
        start = stop
        while start > 0 and events[start - 1].kind != "lead":
            start -= 1
        for event in events[start:stop]:
            self.take(event)

    def _clear(self) -> None:
        self.cur_pos: Seat = -1
        self.cur_action: Entry | None = None
        self.greater_pos: Seat = -1
        self.greater_action: Entry | None = None
        self.areas: list[Entry | None] = [None] * SEATS

    def take(self, event: Event) -> bool:
        """Follow one more event of the deal; whether it was a play or a pass."""
        if event.kind == "pass":
            entry: Entry = list(PASS_ENTRY)
        elif event.kind == "play":
            entry = play_entry(event, self.level)
            self.greater_pos, self.greater_action = event.seat, entry
        else:
            if event.kind == "lead":
                self._clear()
            return False
        self.cur_pos, self.cur_action = event.seat, entry
        self.areas[event.seat] = entry
        return True

    def notice(self) -> Message:
        """``notify`` ``play`` of the trick's last action."""
        return {
            "type": "notify",
            "stage": "play",
            "curPos": self.cur_pos,
            "curAction": self.cur_action,
            "greaterPos": self.greater_pos,
            "greaterAction": self.greater_action,
        }


def play_entry(event: Event, level: int) -> Entry:
    """A ``play`` event as an entry, at the reading the engine played it at."""
    kind, rank, codes = _event_entry(event.cards, event.tag, event.value, level)
    return [kind, rank, list(codes)]


@lru_cache(maxsize=1 << 12)
def _event_entry(
    cards: tuple[Card, ...], tag: str, value: int, level: int
) -> tuple[str, str, tuple[str, ...]]:
    played = reading(KIND_BY_LABEL[tag], value, len(cards))
    return (
        TYPE_OF_KIND[played.kind],
        rank_text(played, level),
        tuple(placed_codes(cards, played, level)),
    )


# --------------------------------------------------------------------- one seat


class PlatformSeat:
    """One seat's stream of platform messages, fed that seat's observations.

    Give :meth:`update` each observation of the seat (at its decisions, and whenever
    else it is made) and :meth:`end_deal` each deal's last events and result details;
    send each returned list in order. The first observation of a deal (any, even one
    taken after the tribute) opens it with ``beginning`` (the hand as dealt) and the
    ``notify`` of every event so far, so a seat that comes back mid-deal is told the
    whole deal, as the platform's bots rebuild their state from. :meth:`action_for`
    reads the answer to the pending ``act``; :attr:`pending_act` is that ``act``, to send
    again when an answer was refused.
    """

    def __init__(self, seat: Seat) -> None:
        self.seat = seat
        self._open = False
        self._seen = 0
        self._level = 0
        self._level_team = 0
        self._hand: tuple[Card, ...] = ()
        self._hand_at = 0
        self._pending: Sequence[Action] | None = None
        self._asked_at = -1
        self._act: Message | None = None

    def update(self, observation: Observation) -> list[Message]:
        """``beginning`` when a deal opens; a ``notify`` for each public event not yet
        told; an ``act`` when the seat has a decision not yet asked."""
        if observation.seat != self.seat:
            raise ValueError(f"seat {self.seat} was given seat {observation.seat}'s observation")
        events = observation.events
        messages: list[Message] = []
        if not self._open or len(events) < self._seen:
            public = observation.public
            self._open, self._seen, self._asked_at = True, 0, -1
            self._level, self._level_team = int(public["level"]), int(public["level_team"])
            messages.append(beginning(observation))
        messages += notifications(events, self._seen, self._level, self._level_team)
        self._seen = len(events)
        self._hand, self._hand_at = observation.hand, len(events)
        if observation.to_act != self.seat:
            self._pending = self._act = None
        elif self._asked_at != len(events):
            self._act = act(observation)
            self._pending, self._asked_at = observation.legal_actions, len(events)
            messages.append(self._act)
        return messages

    def end_deal(self, events: Sequence[Event], details: Mapping[str, Any]) -> list[Message]:
        """The ``notify`` of the events not yet told, then ``episodeOver``; the next
        observation opens a new deal. ``details`` is the deal result's
        (:attr:`~arena.games.base.Outcome.details`)."""
        if not self._open:
            raise ValueError(f"seat {self.seat}: end_deal before any observation of the deal")
        messages = notifications(events, self._seen, self._level, self._level_team)
        left = Counter(self._hand)
        for event in events[self._hand_at :]:
            if event.kind == "play" and event.seat == self.seat:
                left.subtract(event.cards)
        messages.append(episode_over(events, details, self.seat, sorted(left.elements())))
        self._open, self._pending, self._act = False, None, None
        return messages

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
