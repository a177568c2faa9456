"""An independent statement of the Shengji follow rule, to check the engine against.

Written from the rule text of rules/shengji.md alone — card order (SJ-2 … SJ-5),
sets and tractors (SJ-14, SJ-15), reading a lead (SJ-17, the README's reading:
widest sets first, longest runs as tractors) and following (SJ-19 with the
README's reading, SJ-28, SJ-29) — and deliberately simple rather than fast: every
way of matching a unit is enumerated. It shares nothing with
``arena.games.shengji``; from the project it uses only :mod:`arena.cards`, the card
encoding every caller speaks (``rank * 4 + suit``, the jokers 52 and 53), so that
the engine and this statement are asked about the very same cards.
The two-colour option (SJ-31) is not stated here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations, product

from arena.cards import BIG_JOKER, SMALL_JOKER, Card

TRUMPS = "trump"
"""The follow suit of every trump (SJ-2); a plain suit is its number 0..3."""
TWO = 0
"""The rank index of the 2."""

Shape = tuple[int, int]
"""A combination's (width, length): (2, 1) a pair, (3, 2) a Titanic."""
Holding = tuple[tuple[Card, int], ...]
"""Cards of one suit as sorted (card, copies) pairs (hashable, for caching)."""


@dataclass(frozen=True)
class Deal:
    """What the order of a deal depends on: level rank, trump suit (``None``: notrump)."""

    decks: int
    level: int
    trump: int | None
    constant_twos: bool

    @property
    def twos_rise(self) -> bool:
        """SJ-3: the 2s are permanent trumps (when the level is 2 the ladders coincide)."""
        return self.constant_twos and self.level != TWO

    def suit(self, card: Card) -> int | str:
        """The suit a card follows as: the trump suit for every trump (SJ-2)."""
        if card >= SMALL_JOKER:
            return TRUMPS
        rank, suit = card >> 2, card & 3
        if rank == self.level or suit == self.trump or (self.twos_rise and rank == TWO):
            return TRUMPS
        return suit

    def ladder(self, suit: int | str) -> tuple[frozenset[Card], ...]:
        """The suit's order, low to high, one step per group of equal cards (SJ-3 … SJ-6)."""
        if suit != TRUMPS:
            assert isinstance(suit, int)
            return tuple(frozenset({rank * 4 + suit}) for rank in self._plain_ranks())
        steps: list[frozenset[Card]] = []
        if self.trump is not None:
            steps += self.ladder(self.trump)
        if self.twos_rise:
            steps += self._rung(TWO)
        steps += self._rung(self.level)
        return (*steps, frozenset({SMALL_JOKER}), frozenset({BIG_JOKER}))

    def _plain_ranks(self) -> list[int]:
        """SJ-4: 2 … A without the level rank (and the 2 when it is a permanent trump)."""
        return [r for r in range(13) if r != self.level and not (self.twos_rise and r == TWO)]

    def _rung(self, rank: int) -> list[frozenset[Card]]:
        """The cards of one trump rank: the other suits' (equal), then the trump suit's."""
        others = frozenset(rank * 4 + s for s in range(4) if s != self.trump)
        if self.trump is None:
            return [others]
        return [others, frozenset({rank * 4 + self.trump})]


def follow_is_legal(
    deal: Deal, hand: Sequence[Card], lead: Sequence[Card], play: Sequence[Card]
) -> bool:
    """SJ-19: may ``play`` (taken from ``hand``) follow the lead ``lead``?"""
    size, suit = len(lead), deal.suit(lead[0])
    if len(play) != size:
        return False
    held = [c for c in hand if deal.suit(c) == suit]
    played = [c for c in play if deal.suit(c) == suit]
    if len(held) <= size:  # (a) all of the suit, anything else to make up the number
        return len(played) == len(held)
    if len(played) != size:  # (a) the whole play in the suit
        return False
    shapes = read_lead(deal, lead)
    ladder = deal.ladder(suit)
    return match(deal.decks, ladder, holding(played), shapes) == match(
        deal.decks, ladder, holding(held), shapes
    )


def holding(cards: Sequence[Card]) -> Holding:
    return tuple(sorted(Counter(cards).items()))


# ------------------------------------------------------------------ reading a lead


def read_lead(deal: Deal, lead: Sequence[Card]) -> tuple[Shape, ...]:
    """SJ-17, as the README reads it: widest sets first, at each width the longest runs
    of consecutive steps become tractors; the shapes sorted largest first (most cards,
    then widest), the order in which SJ-19 (b) matches them."""
    ladder = deal.ladder(deal.suit(lead[0]))
    left = Counter(lead)
    shapes: list[Shape] = []
    for width in range(max(left.values()), 0, -1):
        while run := _longest_run(ladder, left, width):
            for card in run:
                left[card] -= width
            shapes.append((width, len(run)))
    return tuple(sorted(shapes, key=lambda s: (s[0] * s[1], s[0]), reverse=True))


def _longest_run(ladder: Sequence[frozenset[Card]], left: Counter[Card], width: int) -> list[Card]:
    """One card per step along the longest run of steps holding ``width`` copies."""
    best: list[Card] = []
    run: list[Card] = []
    for step in ladder:
        here = [c for c in sorted(step) if left[c] >= width]
        run = [*run, here[0]] if here and width >= 2 else ([here[0]] if here else [])
        if len(run) > len(best):
            best = run
    return best


# ------------------------------------------------------------------ how well cards match


def units(ladder: Sequence[frozenset[Card]], cards: Holding, shape: Shape) -> Iterator[Holding]:
    """Every set or tractor of ``shape`` among ``cards`` (SJ-14, SJ-15), as a holding."""
    width, length = shape
    copies = dict(cards)
    for start in range(len(ladder) - length + 1):
        choices = [
            [c for c in sorted(ladder[start + k]) if copies.get(c, 0) >= width]
            for k in range(length)
        ]
        for chosen in product(*choices):
            yield tuple((card, width) for card in chosen)


def without(cards: Holding, used: Holding) -> Holding:
    left = Counter(dict(cards))
    left.subtract(dict(used))
    return tuple(sorted((c, n) for c, n in left.items() if n > 0))


def holds(ladder: Sequence[frozenset[Card]], cards: Holding, shapes: Sequence[Shape]) -> bool:
    """Whether ``cards`` hold disjoint combinations of all these shapes."""
    if not shapes:
        return True
    return any(
        holds(ladder, without(cards, unit), shapes[1:]) for unit in units(ladder, cards, shapes[0])
    )


# SJ-28 and SJ-29 copied line by line: ";" between the lines of a list, "/" between the
# alternatives of a line, one token per combination (singles are left out: any card
# does): P pair, T triple, Q quad; with a number, a tractor of that many of them;
# "-" only singles.
_EIGHT_CARDS_TAIL = (
    "T2 P; T2; P2 P P; P2 P; P2; Q P P; Q P; Q; T T; T P P; T P; T; P P P P; P P P; P P; P; -"
)
PRIORITY_TEXT = {
    3: {
        "T2": "T2; P2; T T; T P; T; P P; P; -",
        "T": "T; P; -",
    },
    4: {
        "Q": "Q; P2; P P; T; P; -",
        "P2": "P2 / Q; P P; P; -",
        "P4": "P4 / Q Q; " + _EIGHT_CARDS_TAIL,
        "Q2": "Q2; Q Q; P4; " + _EIGHT_CARDS_TAIL,
        "P3": "P3 / T2; Q P; P2 P; P P P; P P; P; -",
        "T2": "T2; P3; Q P; P2 P; T T; T P; P P P; P P; P; -",
    },
}
_WIDTHS = {"P": 2, "T": 3, "Q": 4}


def token_shape(token: str) -> Shape:
    return _WIDTHS[token[0]], int(token[1:] or 1)


def priority_list(decks: int, lead: Shape) -> list[list[list[Shape]]] | None:
    """The SJ-28/SJ-29 list for a lead of this one shape, or ``None`` if not listed."""
    for token, text in PRIORITY_TEXT.get(decks, {}).items():
        if token_shape(token) == lead:
            return [
                [
                    [token_shape(t) for t in alternative.split() if t != "-"]
                    for alternative in line.split("/")
                ]
                for line in text.split(";")
            ]
    return None


def match(
    decks: int, ladder: Sequence[frozenset[Card]], cards: Holding, shapes: tuple[Shape, ...]
) -> tuple[int, ...]:
    """How much of the lead's shape ``cards`` match: the higher, the better."""
    listed = priority_list(decks, shapes[0]) if len(shapes) == 1 else None
    if listed is None:
        return _general(tuple(ladder), cards, shapes)
    for rank, line in enumerate(listed):
        if any(holds(ladder, cards, alternative) for alternative in line):
            return (-rank,)
    raise AssertionError("every list ends with singles")


@cache
def _general(
    ladder: tuple[frozenset[Card], ...], cards: Holding, shapes: tuple[Shape, ...]
) -> tuple[int, ...]:
    """SJ-19 (b): each combination, largest first, matched as far as the cards allow.

    Of all the ways to match the first combination, only the best count; among those,
    the one that leaves the best match for the rest (the README's reading).
    """
    if not shapes:
        return ()
    ways = list(_ways(ladder, cards, shapes[0]))
    top = max(score for score, _ in ways)
    return top + max(
        _general(ladder, without(cards, used), shapes[1:]) for score, used in ways if score == top
    )


def _ways(
    ladder: Sequence[frozenset[Card]], cards: Holding, shape: Shape
) -> Iterator[tuple[tuple[int, int], Holding]]:
    """Every way to match one combination of the lead: (how well, the cards it takes).

    A single takes nothing (any card will do). A set: a set as wide, failing that the
    widest narrower set (widths largest first, SJ-29 Decision), else singles. A
    tractor: the same tractor, failing that as many sets of its width as held (up to
    its length), only then singles.
    """
    yield (0, 0), ()
    width, length = shape
    if width == 1:
        return
    if length == 1:
        for narrower in range(width, 1, -1):
            for unit in units(ladder, cards, (narrower, 1)):
                yield (1, narrower), unit
        return
    for unit in units(ladder, cards, shape):
        yield (2, 0), unit
    for sets in _set_choices(cards, width, length):
        yield (1, len(sets)), holding([card for card in sets for _ in range(width)])


def _set_choices(cards: Holding, width: int, limit: int) -> set[tuple[Card, ...]]:
    """Every choice of 1 … ``limit`` disjoint sets of ``width``, one card named per set
    (SJ-14: four identical cards are two pairs)."""
    named = [card for card, n in cards for _ in range(n // width)]
    return {chosen for k in range(1, limit + 1) for chosen in combinations(named, k)}
