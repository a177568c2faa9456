"""The fixed observation tensor of each game, field by field.

A seat's tensor is made from its :class:`~arena.games.base.Observation` alone (what the
seat may see, rules/common.md C-5) and the cards it has chosen so far in a factored
decision, so it can never hold another seat's hidden cards. Seats are *relative*: row 0
is the observing seat, 1 the next seat in turn, 2 its partner, 3 the seat before it
(C-2: partners sit opposite). Card vectors have 54 entries, one per card kind
(``rank * 4 + suit``, 52 the small joker, 53 the big joker) and count copies.

Every field is a float32 array; :meth:`Features.vector` concatenates them in the order
listed (the flat tensor), :meth:`Features.fields` gives them by name (the dict form).
``docs/env.md`` lists every game's fields.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from arena.cards import NUM_KINDS, parse_cards
from arena.games.base import NUM_SEATS, Event, Observation

__all__ = ["FEATURES", "Feature", "Features", "View", "features_for"]

Array = npt.NDArray[np.float32]
RANK_COUNT: Final = 13
TRUMPS: Final = ("s", "h", "d", "c", "notrump", "black", "red")
"""Shengji's trump names (``public["trump"]``), in the order of the ``trump`` field."""


class EventTally:
    """The cards each seat (absolute) has shown so far, by kind of event, and where the
    current round began: a deal's events read once each, however often it is observed.

    An environment keeps one per table and resets it with each deal; a view made without
    one reads the observation's events into a new tally.
    """

    KINDS: Final = ("play", "declare", "throw_failed", "turn", "tribute", "return")

    def __init__(self) -> None:
        self.cards = {kind: np.zeros((NUM_SEATS, NUM_KINDS), np.float32) for kind in self.KINDS}
        self.targets: dict[str, list[tuple[int, int]]] = {kind: [] for kind in self.KINDS}
        """Per kind, the (seat, receiver) of each event that names a receiver."""
        self.seen = 0
        self.shown: set[str] = set()
        """The kinds of event that have shown cards so far."""
        self.round: list[Event] | None = None
        """The events since the last lead (``None`` before the first lead)."""

    def reset(self) -> None:
        for table in self.cards.values():
            table[:] = 0
        for pairs in self.targets.values():
            pairs.clear()
        self.seen = 0
        self.shown.clear()
        self.round = None

    def update(self, events: Sequence[Event]) -> None:
        """Read the events appended since the last update."""
        if len(events) < self.seen:
            raise ValueError("the events are another deal's: reset the tally with each deal")
        cards, targets = self.cards, self.targets
        for at in range(self.seen, len(events)):
            event = events[at]
            kind = event.kind
            if kind == "lead":
                self.round = []
                continue
            if self.round is not None:
                self.round.append(event)
            if kind in cards:
                self.shown.add(kind)
                row = cards[kind][event.seat]
                for card in event.cards:
                    row[card] += 1
                if event.target >= 0:
                    targets[kind].append((event.seat, event.target))
        self.seen = len(events)


class View:
    """One seat's observation read once for the fields: relative seats, card lists."""

    def __init__(
        self,
        observation: Observation,
        selected: Sequence[int] = (),
        tally: EventTally | None = None,
    ) -> None:
        self.observation = observation
        self.public: Mapping[str, Any] = observation.public
        self.private: Mapping[str, Any] = observation.private
        self.selected = selected
        self.me = observation.seat
        self.tally = tally if tally is not None else EventTally()
        self.tally.update(observation.events)

    def relative(self, seat: int) -> int:
        """Row of an absolute seat: 0 me, 1 next, 2 partner, 3 previous."""
        return (seat - self.me) % NUM_SEATS

    def add_rows(self, out: Array, table: Array) -> None:
        """Add a table of rows by absolute seat to ``out``, whose rows are by relative
        seat."""
        me = self.me
        out[: NUM_SEATS - me] += table[me:]
        out[NUM_SEATS - me :] += table[:me]

    @property
    def round(self) -> Sequence[Event]:
        """The events since the last lead (climbing games): plays and passes."""
        return self.tally.round or ()

    @property
    def my_team(self) -> int:
        return self.me & 1


def _cards(target: Array, cards: Sequence[int] | str) -> None:
    """Add each card to its count in a 54-vector."""
    for card in parse_cards(cards) if isinstance(cards, str) else cards:
        target[card] += 1


def _one_hot(target: Array, index: int | None) -> None:
    if index is not None and 0 <= index < len(target):
        target[index] = 1


@dataclass(frozen=True, slots=True)
class Feature:
    """One field of a game's tensor: its name, shape, meaning and how it is filled
    (into a zeroed array of its shape)."""

    name: str
    shape: tuple[int, ...]
    meaning: str
    fill: Callable[[View, Array], None]

    @property
    def size(self) -> int:
        return math.prod(self.shape)


# ---------------------------------------------------------------- fields every game has


def _hand(view: View, out: Array) -> None:
    _cards(out, view.observation.hand)


def _selected(view: View, out: Array) -> None:
    _cards(out, view.selected)


def _shown_by(*kinds: str) -> Callable[[View, Array], None]:
    """The cards each seat has shown by events of ``kinds``, by relative seat."""

    def fill(view: View, out: Array) -> None:
        for kind in kinds:
            if kind in view.tally.shown:
                view.add_rows(out, view.tally.cards[kind])

    return fill


def _hand_sizes(view: View, out: Array) -> None:
    counts = view.public.get("counts") or ()
    for seat, count in enumerate(counts):
        if count is not None:
            out[view.relative(seat), 0] = count
            out[view.relative(seat), 1] = 1


def _phase(phases: tuple[str, ...]) -> Callable[[View, Array], None]:
    def fill(view: View, out: Array) -> None:
        phase = view.observation.phase
        _one_hot(out, phases.index(phase) if phase in phases else None)

    return fill


def _common(phases: tuple[str, ...]) -> tuple[Feature, ...]:
    return (
        Feature("hand", (NUM_KINDS,), "my hand: copies of each card kind", _hand),
        Feature(
            "selected",
            (NUM_KINDS,),
            "cards chosen so far in this decision (factored action spaces; else zeros)",
            _selected,
        ),
        Feature(
            "played",
            (NUM_SEATS, NUM_KINDS),
            "cards each seat has played face up",
            _shown_by("play"),
        ),
        Feature(
            "hand_size",
            (NUM_SEATS, 2),
            "each seat's card count where public, and 1 where it is public",
            _hand_sizes,
        ),
        Feature(
            "phase", (len(phases),), f"the phase, one-hot: {', '.join(phases)}", _phase(phases)
        ),
    )


# ---------------------------------------------------------------- climbing games


def _round(view: View, out: Array) -> None:
    for event in view.round:
        if event.kind == "play":
            row = out[view.relative(event.seat)]
            row[:] = 0
            _cards(row, event.cards)


def _round_passed(view: View, out: Array) -> None:
    for event in view.round:
        if event.kind in ("pass", "play"):
            out[view.relative(event.seat)] = event.kind == "pass"


def _table(view: View, out: Array) -> None:
    """The play to beat: the round's last play, while the table holds one."""
    if view.public.get("table") is None:
        return
    for event in reversed(view.round):
        if event.kind == "play":
            _cards(out[:NUM_KINDS], event.cards)
            out[NUM_KINDS + view.relative(event.seat)] = 1
            out[NUM_KINDS + NUM_SEATS] = event.value
            return


def _finished(view: View, out: Array) -> None:
    for place, seat in enumerate(view.public.get("finished") or (), start=1):
        out[view.relative(seat)] = place


def _climbing(kinds: tuple[str, ...]) -> tuple[Feature, ...]:
    def table_kind(view: View, out: Array) -> None:
        table = view.public.get("table")
        if table is not None:
            _one_hot(out, kinds.index(table["kind"]))

    return (
        Feature(
            "round",
            (NUM_SEATS, NUM_KINDS),
            "each seat's last play since the last lead (this round)",
            _round,
        ),
        Feature(
            "round_passed",
            (NUM_SEATS,),
            "1 for a seat whose last word this round was pass",
            _round_passed,
        ),
        Feature(
            "table",
            (NUM_KINDS + NUM_SEATS + 1,),
            "the play to beat: its cards, who played it (one-hot), its rank value",
            _table,
        ),
        Feature("table_kind", (len(kinds),), f"its kind, one-hot: {', '.join(kinds)}", table_kind),
        Feature(
            "finished", (NUM_SEATS,), "each seat's place once out (1 first), else 0", _finished
        ),
    )


def _levels(view: View, out: Array) -> None:
    levels = view.public.get("levels") or (0, 0)
    _one_hot(out[0], levels[view.my_team])
    _one_hot(out[1], levels[1 - view.my_team])


def _level(view: View, out: Array) -> None:
    _one_hot(out, view.public.get("level"))


LEVELS: Final = (
    Feature("level", (RANK_COUNT,), "the level rank played this deal, one-hot (2 … A)", _level),
    Feature(
        "team_levels",
        (2, RANK_COUNT),
        "each team's level, one-hot: row 0 my team, row 1 the other",
        _levels,
    ),
)


# ---------------------------------------------------------------- Guandan


def _level_team(view: View, out: Array) -> None:
    team = view.public.get("level_team")
    if team is not None:
        out[0 if team == view.my_team else 1] = 1


def _given(kind: str) -> Callable[[View, Array], None]:
    def fill(view: View, out: Array) -> None:
        if kind not in view.tally.shown:
            return
        view.add_rows(out[:, :NUM_KINDS], view.tally.cards[kind])
        for seat, receiver in view.tally.targets[kind]:
            out[view.relative(seat), NUM_KINDS + view.relative(receiver)] = 1

    return fill


GUANDAN: Final = (
    *_common(("tribute", "return", "play")),
    *LEVELS,
    Feature(
        "level_team", (2,), "whose level is played: mine (0) or the other team's (1)", _level_team
    ),
    *_climbing(
        (
            "single",
            "pair",
            "triple",
            "full_house",
            "pair_run",
            "triple_run",
            "straight",
            "straight_flush",
            "bomb",
            "joker_bomb",
        )
    ),
    Feature(
        "tribute",
        (NUM_SEATS, NUM_KINDS + NUM_SEATS),
        "the tribute each seat gave this deal (GD-13): the card, then its receiver (one-hot)",
        _given("tribute"),
    ),
    Feature(
        "returned",
        (NUM_SEATS, NUM_KINDS + NUM_SEATS),
        "the card each seat returned this deal, then its receiver (one-hot)",
        _given("return"),
    ),
)


# ---------------------------------------------------------------- Shengji


def _seat_fact(key: str) -> Callable[[View, Array], None]:
    def fill(view: View, out: Array) -> None:
        seat = view.public.get(key)
        if seat is not None and seat >= 0:
            out[view.relative(seat)] = 1

    return fill


def _trump(view: View, out: Array) -> None:
    trump = view.public.get("trump")
    if trump is not None:
        _one_hot(out, TRUMPS.index(trump))


def _trick(view: View, out: Array) -> None:
    """The trick's plays: the play events since its lead (the public ``trick`` fact
    names the same cards, as text)."""
    for event in view.round:
        if event.kind == "play":
            _cards(out[view.relative(event.seat)], event.cards)


def _trick_seat(key: str) -> Callable[[View, Array], None]:
    def fill(view: View, out: Array) -> None:
        seat = (view.public.get("trick") or {}).get(key)
        if seat is not None and seat >= 0:
            out[view.relative(seat)] = 1

    return fill


def _scalar(key: str) -> Callable[[View, Array], None]:
    def fill(view: View, out: Array) -> None:
        out[0] = view.public.get(key) or 0

    return fill


def _rules(view: View, out: Array) -> None:
    out[0] = bool(view.public.get("constant_twos"))
    out[1] = bool(view.public.get("two_colour"))


def _buried(view: View, out: Array) -> None:
    buried = view.private.get("buried")
    if buried:
        _cards(out, buried)


SHENGJI: Final = (
    *_common(("declare", "bury", "play")),
    *LEVELS,
    Feature(
        "dealer",
        (NUM_SEATS,),
        "the dealer (庄家), one-hot; zeros until known",
        _seat_fact("dealer"),
    ),
    Feature("trump", (len(TRUMPS),), f"the trump, one-hot: {', '.join(TRUMPS)}", _trump),
    Feature("defender_points", (1,), "points the defenders have taken", _scalar("defender_points")),
    Feature("rules", (2,), "the variant's options: constant twos, two colours", _rules),
    Feature(
        "trick", (NUM_SEATS, NUM_KINDS), "the cards each seat has played to this trick", _trick
    ),
    Feature("trick_leader", (NUM_SEATS,), "who led this trick, one-hot", _trick_seat("leader")),
    Feature(
        "trick_winning", (NUM_SEATS,), "who is winning this trick, one-hot", _trick_seat("winning")
    ),
    Feature(
        "shown",
        (NUM_SEATS, NUM_KINDS),
        "cards each seat has shown without playing: declarations and failed throws",
        _shown_by("declare", "throw_failed"),
    ),
    Feature("buried", (NUM_KINDS,), "the cards I buried (the dealer only)", _buried),
)


# ---------------------------------------------------------------- sanfu


def _captured(view: View, out: Array) -> None:
    for seat, points in enumerate(view.public.get("captured") or ()):
        out[view.relative(seat)] = points


def _table_points(view: View, out: Array) -> None:
    table = view.public.get("table")
    out[0] = 0 if table is None else table.get("points", 0)


SANFU: Final = (
    *_common(("play",)),
    *_climbing(
        (
            "single",
            "pair",
            "triple",
            "suited_triple",
            "full_house",
            "pair_run",
            "plate",
            "plate_with_pairs",
            "bomb",
            "joker_triple",
        )
    ),
    Feature(
        "turned",
        (NUM_SEATS, NUM_KINDS),
        "the turned cards (SF-2) and who received them",
        _shown_by("turn"),
    ),
    Feature("captured", (NUM_SEATS,), "points each seat has captured (SF-10)", _captured),
    Feature("table_points", (1,), "points in the cards played this round", _table_points),
)

FEATURES: Final[Mapping[str, tuple[Feature, ...]]] = {
    "guandan": GUANDAN,
    "shengji": SHENGJI,
    "sanfu": SANFU,
}


class Features:
    """A game's tensor: its fields in order, their offsets and total size."""

    def __init__(self, game: str, fields: Sequence[Feature]) -> None:
        self.game = game
        self.fields_in_order = tuple(fields)
        self.size = sum(field.size for field in fields)
        offsets, at = [], 0
        for field in fields:
            offsets.append(at)
            at += field.size
        self.offsets = tuple(offsets)
        self._slots = tuple(
            (field.fill, at, at + field.size, field.shape)
            for field, at in zip(fields, offsets, strict=True)
        )

    def vector(self, view: View, out: Array | None = None) -> Array:
        """The flat tensor of ``view`` (written into ``out`` when given)."""
        if out is None:
            out = np.zeros(self.size, dtype=np.float32)
        else:
            out[:] = 0
        for fill, start, end, shape in self._slots:
            fill(view, out[start:end].reshape(shape))
        return out

    def fields(self, vector: Array) -> dict[str, Array]:
        """The dict form of a flat tensor: each field by name, in its shape (views)."""
        return {
            field.name: vector[at : at + field.size].reshape(field.shape)
            for field, at in zip(self.fields_in_order, self.offsets, strict=True)
        }


def features_for(game_family: str) -> Features:
    """The tensor of ``guandan``, ``shengji`` or ``sanfu``."""
    try:
        return Features(game_family, FEATURES[game_family])
    except KeyError:
        raise ValueError(
            f"no observation tensor for {game_family!r} (games: {', '.join(FEATURES)})"
        ) from None
