"""Listing the legal leads and follows of a Shengji hand (SJ-17 … SJ-19).

A decision lists every legal action when there are at most :data:`LIST_LIMIT`;
otherwise it lists a reproducible sample (the first ones in a fixed order) and
says in words what every legal play must satisfy; ``apply`` checks any play.

Leads: every non-empty set of cards of one suit may be led (more than one unit
is a throw, checked when it is played, SJ-17), listed by :mod:`.leads`. When those
are too many, the listed leads are the single units (every single, set and tractor).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any, cast

from arena import plural
from arena.cards import NUM_KINDS, Card
from arena.games.base import Action
from arena.games.shengji.follow import SET_NAMES, Pattern, holds, priority_list, score
from arena.games.shengji.leads import held_sets
from arena.games.shengji.multisets import (
    Counts,
    count_multisets,
    counted,
    multisets_in_order,
    nth_multiset,
    spread_sample,
    sub_multisets,
)
from arena.games.shengji.order import TrumpOrder
from arena.games.shengji.plays import LazyPlays
from arena.games.shengji.shapes import Pile, Unit

LIST_LIMIT = 1000
SAMPLE_SIZE = 200
"""Plays listed when there are more than :data:`LIST_LIMIT`: evenly spaced in a fixed order."""


def follows(
    hand: Sequence[Card],
    lead: Sequence[Unit],
    lead_suit: int,
    size: int,
    order: TrumpOrder,
    decks: int,
    limit: int,
) -> tuple[list[tuple[Card, ...]], bool, str]:
    """Legal follows: (plays, complete, description). ``plays`` holds at most ``limit``."""
    suits = order.suits
    suited = [c for c in hand if suits[c] == lead_suit]  # a hand is sorted
    if size == 1:
        return [(c,) for c in _single_follows(suited, hand)], True, ""
    if len(suited) <= size:  # SJ-19 (a): all of the suit, and any others to make up
        others = [c for c in hand if suits[c] != lead_suit]
        extra = size - len(suited)
        fills, complete = spread_sample(others, extra, limit, SAMPLE_SIZE)
        plays = [tuple(sorted(suited + list(fill))) for fill in fills]
        if complete:
            return plays, True, ""
        suit_name = order.suit_name(lead_suit)
        what = (
            f"all {plural.counted(len(suited), 'card')} of {suit_name}"
            if suited
            else "no card of " + suit_name
        )
        return (
            plays,
            False,
            f"{plural.counted(size, 'card')}: {what} and any "
            f"{plural.counted(extra, 'other card')} (SJ-19)",
        )
    listed = priority_list(lead, decks)
    if listed is not None:
        return _listed_follows(suited, listed, size, order, limit, lead_suit)
    if len(lead) == 1 and lead[0].length == 1:  # one set led: the sets, if any, in order
        sets = held_sets(suited, order, size)
        if sets:
            complete = len(sets) <= limit
            return sets[:limit], complete, "" if complete else _shape_rule(size, order, lead_suit)
    pile = Pile(suited, order)
    demand = _demand(pile, lead)
    if demand is not None:
        plays, complete = _demanded_follows(pile, suited, demand, size, limit)
        return plays, complete, "" if complete else _shape_rule(size, order, lead_suit)
    best = score(suited, lead, order, decks)
    unconstrained = best == score((), lead, order, decks)  # no shape to match: any cards
    plays = []
    for chosen in _candidates(suited, lead, size, order):
        if unconstrained or score(chosen, lead, order, decks) == best:
            plays.append(chosen)
            if len(plays) > limit:
                return plays[:limit], False, _shape_rule(size, order, lead_suit)
    return plays, True, ""


def _shape_rule(size: int, order: TrumpOrder, lead_suit: int) -> str:
    """What every follow must satisfy, in words, when not all of them are listed."""
    return (
        f"{plural.counted(size, 'card')} of {order.suit_name(lead_suit)}, matching the lead's "
        "shape as far as your cards allow (SJ-19)"
    )


def follow_actions(
    hand: Sequence[Card],
    lead: Sequence[Unit],
    lead_suit: int,
    size: int,
    order: TrumpOrder,
    decks: int,
    limit: int,
) -> tuple[Sequence[Action], bool, str]:
    """:func:`follows` as ``play`` actions (the same, in the same order); a follow short
    of the led suit as :class:`ShortFollows`."""
    suits = order.suits
    suited = [c for c in hand if suits[c] == lead_suit]
    if size == 1:
        return [SINGLE_PLAYS[c] for c in _single_follows(suited, hand)], True, ""
    if len(suited) <= size:
        others = [c for c in hand if suits[c] != lead_suit]
        short = ShortFollows(tuple(suited), counted(others), size - len(suited))
        if len(short) <= limit:
            return cast(Sequence[Action], short), True, ""
    plays, complete, description = follows(hand, lead, lead_suit, size, order, decks, limit)
    return as_actions(plays), complete, description


class ShortFollows(LazyPlays):
    """The follows of a hand with no more cards of the led suit than the lead (SJ-19 a):
    all of them and any ``extra`` other cards, in the order of those others
    (:func:`~arena.games.shengji.multisets.multisets_in_order`), each made when asked."""

    def __init__(self, suited: tuple[Card, ...], others: Counts, extra: int) -> None:
        self._ways = count_multisets(others, extra)
        super().__init__(self._ways[0][extra])
        self._suited, self._others, self._extra = suited, others, extra
        self._copies: dict[Card, int] | None = None

    def __reduce__(self) -> tuple[Any, ...]:
        return (ShortFollows, (self._suited, self._others, self._extra))

    def _nth(self, index: int) -> Action:
        fill = nth_multiset(self._others, self._ways, self._extra, index)
        return _new_tuple(Action, ("play", tuple(sorted(self._suited + fill)), ""))

    def _every(self) -> list[Action]:
        suited, new, action = self._suited, _new_tuple, Action
        return [
            new(action, ("play", tuple(sorted(suited + fill)), ""))
            for fill in multisets_in_order(self._others, 0, self._extra, ())
        ]

    def _holds(self, cards: tuple[Card, ...]) -> bool:
        """Whether the sorted cards are all of the suit's and others the hand holds."""
        if len(cards) != len(self._suited) + self._extra:
            return False
        copies = self._copies
        if copies is None:
            copies = self._copies = dict(self._others)
        rest = list(cards)
        for card in self._suited:
            if card not in rest:
                return False
            rest.remove(card)
        return all(rest.count(card) <= copies.get(card, 0) for card in set(rest))


def _single_follows(suited: list[Card], hand: Sequence[Card]) -> list[Card]:
    """A single led: any card of its suit, or any card at all (each card once)."""
    return sorted(set(suited or hand))


def _listed_follows(
    suited: list[Card],
    listed: list[list[Pattern]],
    size: int,
    order: TrumpOrder,
    limit: int,
    lead_suit: int,
) -> tuple[list[tuple[Card, ...]], bool, str]:
    """SJ-28/SJ-29, built up: the units of the first line the cards allow, then any others."""
    pile = Pile(suited, order)
    line = next(alts for alts in listed if any(holds(pile, pattern) for pattern in alts))
    found: set[tuple[Card, ...]] = set()
    for pattern in line:
        for units in _picks(pile, pattern):
            taken = [c for unit in units for c in unit.cards]
            rest = list((Counter(suited) - Counter(taken)).elements())
            for fill in sub_multisets(sorted(rest), size - len(taken)):
                found.add(tuple(sorted(taken + list(fill))))
                if len(found) > limit:
                    plays = sorted(found)[:limit]
                    return (
                        plays,
                        False,
                        (
                            f"{plural.counted(size, 'card')} of {order.suit_name(lead_suit)} "
                            "holding "
                            + " or ".join(_pattern_text(p) for p in line)
                            + " (SJ-28, SJ-29)"
                        ),
                    )
    return sorted(found), True, ""


def _demand(pile: Pile, lead: Sequence[Unit]) -> Pattern | None:
    """For a lead of one set or tractor and any singles: the units a follow of the pile
    must hold (SJ-19 b), or ``None`` for any other lead or when any cards will do.

    That unit is matched by itself if the cards hold one; a tractor failing that by as
    many sets of its width as they hold (up to its length); a set by the widest
    narrower set (see :func:`follow.score`).
    """
    wide = [unit for unit in lead if unit.width > 1]
    if len(wide) != 1:
        return None
    width, length = wide[0].width, wide[0].length
    counts = pile.counts.values()
    if length >= 2:
        if next(pile.units(width, length), None) is not None:
            return ((width, length),)
        sets = min(length, sum(n // width for n in counts))
        return ((width, 1),) * sets if sets else None
    widest = min(width, max(counts, default=0))
    return ((widest, 1),) if widest >= 2 else None


def _demanded_follows(
    pile: Pile, suited: list[Card], demand: Pattern, size: int, limit: int
) -> tuple[list[tuple[Card, ...]], bool]:
    """Every play of ``size`` cards of ``suited`` holding the units of ``demand``, in the
    order of :func:`sub_multisets` (at most ``limit``), and whether that is all of them."""
    found: set[tuple[Card, ...]] = set()
    for units in _picks(pile, demand):
        taken = [c for unit in units for c in unit.cards]
        rest = list(suited)
        for card in taken:
            rest.remove(card)
        for fill in sub_multisets(rest, size - len(taken)):
            found.add(tuple(sorted(taken + list(fill))))
    plays = sorted(found, key=_multiset_rank)
    return plays[:limit], len(plays) <= limit


def _multiset_rank(play: tuple[Card, ...]) -> tuple[Card, ...]:
    """Sort key of the order :func:`sub_multisets` lists plays in: highest card first."""
    return play[::-1]


def _picks(pile: Pile, pattern: Pattern) -> Iterator[list[Unit]]:
    """Every way to take disjoint units of the pattern's shapes from the pile."""
    if not pattern:
        yield []
        return
    (width, length), rest = pattern[0], pattern[1:]
    for unit in list(pile.units(width, length)):
        remaining = pile.copy()
        remaining.take(unit)
        for more in _picks(remaining, rest):
            yield [unit, *more]


def _pattern_text(pattern: Pattern) -> str:
    if not pattern:
        return "any cards"
    return " + ".join(
        SET_NAMES[w] if n == 1 else f"tractor of {n} {SET_NAMES[w]}s" for w, n in pattern
    )


def _candidates(
    suited: list[Card], lead: Sequence[Unit], size: int, order: TrumpOrder
) -> Iterator[tuple[Card, ...]]:
    """Sub-multisets worth checking; a quick path for a lead of one set."""
    if len(lead) == 1 and lead[0].length == 1 and lead[0].width == size:
        sets = [unit.cards for unit in Pile(suited, order).units(size, 1)]
        if sets:  # a set was led and can be matched: exactly those sets
            yield from sets
            return
    if size == 1:
        yield from ((c,) for c in sorted(set(suited)))
        return
    yield from sub_multisets(suited, size)


_new_tuple = tuple.__new__
SINGLE_PLAYS = [Action("play", (card,)) for card in range(NUM_KINDS)]
"""The action playing each card alone."""


def as_actions(plays: Sequence[tuple[Card, ...]]) -> list[Action]:
    """``play`` actions of sorted card tuples (no Python-level constructor: hot path)."""
    new, action = _new_tuple, Action  # locals: looked up once
    return [new(action, ("play", play, "")) for play in plays]


__all__ = [
    "LIST_LIMIT",
    "as_actions",
    "follow_actions",
    "follows",
]
