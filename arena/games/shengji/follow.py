"""What a follower must play (SJ-19, SJ-28, SJ-29).

The lead has ``n`` cards of suit ``G``. A follower with at least ``n`` cards of
``G`` plays ``n`` of them; with fewer, all of them and any others (SJ-19 a).
Within ``G`` the follow must match the lead's shape as far as the follower's
cards allow (SJ-19 b). That is measured by a *score*: how much of the lead's
shape some cards can match. A follow is legal when its cards of ``G`` reach the
best score that the follower's cards of ``G`` allow.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from arena.cards import NUM_KINDS, Card
from arena.games.shengji.order import TrumpOrder
from arena.games.shengji.shapes import Pile, Shape, Unit
from arena.plural import counted

Pattern = tuple[Shape, ...]
"""Units a follow must contain (the rest of its cards are free)."""

# SJ-28 and SJ-29: for a lead of one listed shape, the follower plays the first line
# its cards of the suit allow; each line lists alternatives the follower may choose.
_PAIR, _TRIPLE, _QUAD = (2, 1), (3, 1), (4, 1)
_TWO_PAIR_TRACTOR, _THREE_PAIR_TRACTOR, _FOUR_PAIR_TRACTOR = (2, 2), (2, 3), (2, 4)
_TRIPLE_TRACTOR, _QUAD_TRACTOR = (3, 2), (4, 2)

_EIGHT_CARD_TAIL: list[list[Pattern]] = [
    [(_TRIPLE_TRACTOR, _PAIR)],
    [(_TRIPLE_TRACTOR,)],
    [(_TWO_PAIR_TRACTOR, _PAIR, _PAIR)],
    [(_TWO_PAIR_TRACTOR, _PAIR)],
    [(_TWO_PAIR_TRACTOR,)],
    [(_QUAD, _PAIR, _PAIR)],
    [(_QUAD, _PAIR)],
    [(_QUAD,)],
    [(_TRIPLE, _TRIPLE)],
    [(_TRIPLE, _PAIR, _PAIR)],
    [(_TRIPLE, _PAIR)],
    [(_TRIPLE,)],
    [(_PAIR, _PAIR, _PAIR, _PAIR)],
    [(_PAIR, _PAIR, _PAIR)],
    [(_PAIR, _PAIR)],
    [(_PAIR,)],
    [()],
]

PRIORITIES: dict[int, dict[Shape, list[list[Pattern]]]] = {
    3: {
        _TRIPLE_TRACTOR: [
            [(_TRIPLE_TRACTOR,)],
            [(_TWO_PAIR_TRACTOR,)],
            [(_TRIPLE, _TRIPLE)],
            [(_TRIPLE, _PAIR)],
            [(_TRIPLE,)],
            [(_PAIR, _PAIR)],
            [(_PAIR,)],
            [()],
        ],
        _TRIPLE: [[(_TRIPLE,)], [(_PAIR,)], [()]],
    },
    4: {
        _QUAD: [
            [(_QUAD,)],
            [(_TWO_PAIR_TRACTOR,)],
            [(_PAIR, _PAIR)],
            [(_TRIPLE,)],
            [(_PAIR,)],
            [()],
        ],
        _TWO_PAIR_TRACTOR: [
            [(_TWO_PAIR_TRACTOR,), (_QUAD,)],
            [(_PAIR, _PAIR)],
            [(_PAIR,)],
            [()],
        ],
        _FOUR_PAIR_TRACTOR: [[(_FOUR_PAIR_TRACTOR,), (_QUAD, _QUAD)], *_EIGHT_CARD_TAIL],
        _QUAD_TRACTOR: [
            [(_QUAD_TRACTOR,)],
            [(_QUAD, _QUAD)],
            [(_FOUR_PAIR_TRACTOR,)],
            *_EIGHT_CARD_TAIL,
        ],
        _THREE_PAIR_TRACTOR: [
            [(_THREE_PAIR_TRACTOR,), (_TRIPLE_TRACTOR,)],
            [(_QUAD, _PAIR)],
            [(_TWO_PAIR_TRACTOR, _PAIR)],
            [(_PAIR, _PAIR, _PAIR)],
            [(_PAIR, _PAIR)],
            [(_PAIR,)],
            [()],
        ],
        _TRIPLE_TRACTOR: [
            [(_TRIPLE_TRACTOR,)],
            [(_THREE_PAIR_TRACTOR,)],
            [(_QUAD, _PAIR)],
            [(_TWO_PAIR_TRACTOR, _PAIR)],
            [(_TRIPLE, _TRIPLE)],
            [(_TRIPLE, _PAIR)],
            [(_PAIR, _PAIR, _PAIR)],
            [(_PAIR, _PAIR)],
            [(_PAIR,)],
            [()],
        ],
    },
}


def priority_list(lead: Sequence[Unit], decks: int) -> list[list[Pattern]] | None:
    """The SJ-28/SJ-29 list for a one-unit lead of a listed shape, else ``None``."""
    if len(lead) != 1:
        return None
    return PRIORITIES.get(decks, {}).get((lead[0].width, lead[0].length))


def holds(pile: Pile, pattern: Pattern) -> bool:
    """Whether the pile holds disjoint units of every shape of ``pattern``."""
    if not pattern:
        return True
    (width, length), rest = pattern[0], pattern[1:]
    for unit in list(pile.units(width, length)):
        remaining = pile.copy()
        remaining.take(unit)
        if holds(remaining, rest):
            return True
    return False


Score = tuple[int, ...]


def score(cards: Sequence[Card], lead: Sequence[Unit], order: TrumpOrder, decks: int) -> Score:
    """How much of the lead's shape these cards of the led suit can match (higher is better)."""
    pile = Pile(cards, order)
    listed = priority_list(lead, decks)
    if listed is not None:
        for rank, alternatives in enumerate(listed):
            if any(holds(pile, pattern) for pattern in alternatives):
                return (len(listed) - rank,)
        return (0,)
    return _general_score(pile, [(u.width, u.length) for u in lead])


def _general_score(pile: Pile, shapes: list[Shape]) -> Score:
    """SJ-19 (b): each lead unit, largest first, matched as well as the cards allow.

    A tractor is matched by a tractor of its width and length, failing that by as
    many sets of its width as the cards hold (up to its length; any of them, four
    identical cards being two pairs); a set by a set of its width, failing that by
    the widest smaller set (widths largest first, SJ-29 Decision). No card counts
    twice; among the ways to match a unit, the one that leaves the best match for
    the later units counts.
    """
    if not shapes:
        return ()
    (width, length), rest = shapes[0], shapes[1:]
    if width == 1:
        return (0, *_general_score(pile, rest))
    best: Score | None = None
    later_sets = any(w > 1 for w, _ in rest)  # only then does the choice of sets matter
    for local, taken in _unit_matches(pile, width, length, later_sets):
        remaining = pile.copy()
        for unit in taken:
            remaining.take(unit)
        candidate = (*local, *_general_score(remaining, rest))
        if best is None or candidate > best:
            best = candidate
    assert best is not None
    return best


def _unit_matches(
    pile: Pile, width: int, length: int, every: bool
) -> list[tuple[Score, list[Unit]]]:
    """The best ways to match one lead unit: (its local score, the units taken).

    Without ``every``, one choice of sets stands for all (no later unit needs sets).
    """
    if length >= 2:
        exact = list(pile.units(width, length))
        if exact:
            return [((2, length), [unit]) for unit in exact]
        choices = _set_choices(pile, width, length, every)
        if choices:
            return [((1, len(sets)), sets) for sets in choices]
        return [((0, 0), [])]
    for narrower in range(width, 1, -1):
        found = list(pile.units(narrower, 1))
        if found:
            return [((2, narrower), [unit]) for unit in found]
    return [((0, 0), [])]


def _set_choices(pile: Pile, width: int, limit: int, every: bool) -> list[list[Unit]]:
    """Every choice of as many disjoint sets of ``width`` as the pile holds, up to ``limit``.

    Any of them may stand for the tractor: which one is best depends on the later
    units. ``k × width`` identical cards are ``k`` sets (SJ-14: a quad is two pairs).
    """
    identities = pile.order.identities
    sets = [
        unit
        for unit in pile.units(width, 1)
        for _ in range(pile.counts[identities[unit.cards[0]]] // width)
    ]
    if not every:
        return [sets[:limit]] if sets else []
    chosen = {tuple(c): list(c) for c in combinations(sets, min(limit, len(sets)))}
    return [choice for choice in chosen.values() if choice]


SET_NAMES = {1: "single", 2: "pair", 3: "triple", 4: "quad"}


def shape_name(unit: Unit) -> str:
    """``pair``, ``tractor of 2 pairs`` …"""
    if unit.length == 1:
        return SET_NAMES[unit.width]
    return f"tractor of {unit.length} {SET_NAMES[unit.width]}s"


def _widest_matched(most: int, width: int) -> int:
    """SJ-19 (b) for a lead of one set of ``width`` outside the SJ-28/SJ-29 lists: the
    widest set (at least a pair) matched by cards holding ``most`` copies of one identity,
    0 if none (what :func:`score` ranks such follows by)."""
    matched = most if most < width else width
    return matched if matched >= 2 else 0


def suit_members(order: TrumpOrder) -> tuple[tuple[Card, ...], ...]:
    """Per suit (0 … 3, then trump), its cards in card order."""
    suits = order.suits
    return tuple(tuple([c for c in range(NUM_KINDS) if suits[c] == suit]) for suit in range(5))


def follow_is_legal(
    counts: Sequence[int],
    members: Sequence[Card],
    play: Sequence[Card],
    lead: Sequence[Unit],
    lead_suit: int,
    order: TrumpOrder,
    decks: int,
) -> bool:
    """Whether :func:`follow_error` surely finds ``play`` legal, judged from the hand's
    ``counts`` (per card; ``members``: the cards of the led suit) without listing its
    cards: ``True`` only when it would return ``""``; ``False`` when the full check must
    decide (and name what is wrong).

    Decided here: the lead's size and suit (SJ-19 a), and the shape of a lead of one
    set with no SJ-28/SJ-29 list (the widest set matched, SJ-29 Decision)."""
    size = 0
    for unit in lead:
        size += unit.width * unit.length
    if len(play) != size:
        return False
    suits, identities = order.suits, order.identities
    by_identity = [0] * NUM_KINDS
    suited, most = 0, 0
    for card in members:
        held = counts[card]
        if held:
            suited += held
            identity = identities[card]
            copies = by_identity[identity] + held
            by_identity[identity] = copies
            if copies > most:
                most = copies
    if size == 1:
        return suits[play[0]] == lead_suit or suited == 0
    played, played_most = 0, 0
    in_play = [0] * NUM_KINDS
    for card in play:
        if suits[card] == lead_suit:
            played += 1
            identity = identities[card]
            copies = in_play[identity] + 1
            in_play[identity] = copies
            if copies > played_most:
                played_most = copies
    if suited <= size:
        return played == suited
    if played != size:
        return False
    if most < 2:  # no pair of the suit: no shape to match
        return True
    if len(lead) != 1 or lead[0].length != 1 or priority_list(lead, decks) is not None:
        return False
    width = lead[0].width
    return _widest_matched(played_most, width) == _widest_matched(most, width)


def follow_error(
    hand: Sequence[Card],
    play: Sequence[Card],
    lead: Sequence[Unit],
    lead_suit: int,
    order: TrumpOrder,
    decks: int,
) -> str:
    """Why ``play`` from ``hand`` breaks SJ-19 as a follow to ``lead``, or ``""`` if legal.

    ``hand`` is the follower's hand before the play (it holds ``play``); ``lead``
    the units of the lead (a failed throw: the forced unit), all of ``lead_suit``.
    """
    size = sum(unit.size for unit in lead)
    name = order.suit_name(lead_suit)
    if len(play) != size:
        return f"must play {counted(size, 'card')}, like the lead (SJ-19)"
    suits = order.suits
    suited = [c for c in hand if suits[c] == lead_suit]
    if size == 1:  # a single led: follow suit if you can
        if suits[play[0]] == lead_suit or not suited:
            return ""
        return f"must follow with a card of {name} (SJ-19)"
    played = [c for c in play if suits[c] == lead_suit]
    if len(suited) <= size:
        if len(played) != len(suited):
            return f"must play all {counted(len(suited), 'card')} of {name} (SJ-19)"
        return ""
    if len(played) != size:
        return f"must play {counted(size, 'card')} of {name}: you hold {len(suited)} (SJ-19)"
    best = score(suited, lead, order, decks)
    if best != score((), lead, order, decks) and score(played, lead, order, decks) != best:
        shape = " + ".join(shape_name(u) for u in lead)
        return f"must follow the shape of the lead ({shape}) in {name} as far as you can (SJ-19)"
    return ""
