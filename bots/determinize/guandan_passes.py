"""What an opponent's pass says about its hand, read as the heuristic bot's play.

The heuristic (:mod:`bots.guandan.decide`) passes on an opponent's play only when it
has nothing to beat it with, once the trick is *urgent* for it — the player on the
table holds at most six cards or one of its opponents at most four: it then follows
with any same-kind play that beats (a single, pair or triple, broken off a
combination if need be), and when the player on the table holds at most three cards
it bombs with any bomb it holds. Such a pass is a fact about the cards the seat held
then, and so about the cards it still hides: none, with the cards it has played since,
makes a single, pair or triple above the table, or (the player at three cards or
fewer) a bomb (GD-9: four of a kind or more, the four jokers, a straight flush; the
wild card, GD-6, fills in for any card but a joker).

A seat whose later plays contradict these facts is not read so (it does not play
like the heuristic). Passes on the seat's own partner tell nothing (the heuristic
lets a partner's play stand), nor do passes on a bomb.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from arena.cards import Card
from arena.games.base import NUM_SEATS, Observation, Seat, team_of
from arena.games.guandan.combos import (
    BIG_JOKER_VALUE,
    LEVEL_VALUE,
    SMALL_JOKER_VALUE,
    card_value,
    wild_card,
)

__all__ = ["PassFact", "breaks", "fewest_rival_cards", "pass_facts", "refused_singles"]

HAND_SIZE = 27
URGENT_TABLE = 6
"""The player on the table with this many cards or fewer makes a trick urgent."""
URGENT_OPPONENT = 4
"""An opponent (of the passer) with this many cards or fewer makes a trick urgent."""
LAST_RESORT = 3
"""The player on the table with this many cards or fewer draws any bomb held."""
SAME_RANK = {"single": 1, "pair": 2, "triple": 3}
"""The kinds whose every beating play the heuristic finds when urgent, by size."""
STRAIGHT_FLUSH = 5


class PassFact(NamedTuple):
    """A seat passed, urgent, on a play it could have beaten: at that moment its hand
    made no ``size``-of-a-kind above ``value`` (``size`` 0: no fact of the kind) and,
    if ``no_bomb``, no bomb. ``later`` are the cards it has played since."""

    seat: Seat
    size: int
    value: int
    no_bomb: bool
    later: tuple[Card, ...]


def pass_facts(observation: Observation, seats: Iterable[Seat]) -> list[PassFact]:
    """The facts told by the urgent passes of ``seats`` on their opponents' plays."""
    wanted = set(seats)
    counts = [HAND_SIZE] * NUM_SEATS
    table: tuple[Seat, str, int] | None = None  # seat, kind label, value
    found: list[tuple[int, PassFact]] = []
    later: list[list[Card]] = [[] for _ in range(NUM_SEATS)]
    for event in observation.events:
        kind, seat = event.kind, event.seat
        if kind in ("tribute", "return"):
            counts[seat] -= 1
            counts[event.target] += 1
        elif kind == "lead":
            table = None
        elif kind == "play":
            counts[seat] -= len(event.cards)
            later[seat].extend(event.cards)
            table = (seat, event.tag, event.value)
        elif kind == "pass" and seat in wanted and table is not None:
            on, label, value = table
            if team_of(on) == team_of(seat) or label not in SAME_RANK:
                continue
            rivals = [counts[s] for s in range(NUM_SEATS) if team_of(s) != team_of(seat)]
            fewest = min((n for n in rivals if n > 0), default=HAND_SIZE)
            if counts[on] > URGENT_TABLE and fewest > URGENT_OPPONENT:
                continue
            fact = PassFact(seat, SAME_RANK[label], value, counts[on] <= LAST_RESORT, ())
            found.append((len(later[seat]), fact))
    facts = []
    for start, fact in found:
        fact = fact._replace(later=tuple(later[fact.seat][start:]))
        facts.append(fact)
    return facts


def fewest_rival_cards(observation: Observation) -> int:
    """The fewest cards an opponent of the observing seat still holds (one out: the
    other; both out: :data:`HAND_SIZE`), counted from the public events."""
    counts = [HAND_SIZE] * NUM_SEATS
    for event in observation.events:
        if event.kind in ("tribute", "return"):
            counts[event.seat] -= 1
            counts[event.target] += 1
        elif event.kind == "play":
            counts[event.seat] -= len(event.cards)
    rivals = [counts[s] for s in range(NUM_SEATS) if team_of(s) != team_of(observation.seat)]
    return min((n for n in rivals if n > 0), default=HAND_SIZE)


def refused_singles(facts: Sequence[PassFact], level: int) -> dict[Seat, frozenset[Card]]:
    """Per seat, the cards it cannot hide: those above a single it passed on."""
    refused: dict[Seat, set[Card]] = {}
    for fact in facts:
        if fact.size == 1:
            cards = refused.setdefault(fact.seat, set())
            cards.update(c for c in range(54) if card_value(c, level) > fact.value)
    return {seat: frozenset(cards) for seat, cards in refused.items()}


def breaks(fact: PassFact, hidden: Sequence[Card], level: int) -> bool:
    """Whether the seat's ``hidden`` cards, with those it played since, contradict the
    fact (they held a play the heuristic would have made)."""
    cards = [*hidden, *fact.later]
    return (fact.size and _same_rank_above(cards, level, fact.size, fact.value)) or (
        fact.no_bomb and has_bomb(cards, level)
    )


def _same_rank_above(cards: Sequence[Card], level: int, size: int, value: int) -> bool:
    wild = wild_card(level)
    wilds = cards.count(wild)
    by_value = Counter(card_value(c, level) for c in cards if c != wild)
    for held, n in by_value.items():
        spare = wilds if held < SMALL_JOKER_VALUE else 0
        if held > value and n + spare >= size:
            return True
    return wilds >= size and value < LEVEL_VALUE


def has_bomb(cards: Sequence[Card], level: int) -> bool:
    """Whether ``cards`` make a bomb: four of a kind (wild cards helping), the four
    jokers, or a straight flush (five in a row of one suit, the ace high or low)."""
    wild = wild_card(level)
    wilds = cards.count(wild)
    naturals = [c for c in cards if c != wild]
    by_value = Counter(card_value(c, level) for c in naturals)
    jokers = by_value[SMALL_JOKER_VALUE] + by_value[BIG_JOKER_VALUE]
    if jokers == 4:
        return True
    if any(n + wilds >= 4 for v, n in by_value.items() if v < SMALL_JOKER_VALUE):
        return True
    for suit in range(4):
        ranks = {c >> 2 for c in naturals if c < 52 and c & 3 == suit}
        positions = {r + 1 for r in ranks} | ({0} if 12 in ranks else set())
        for start in range(10):
            missing = sum(p not in positions for p in range(start, start + STRAIGHT_FLUSH))
            if missing <= wilds:
                return True
    return False
