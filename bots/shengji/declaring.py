"""Declaring trump during the deal (SJ-8 … SJ-11): declare when the hand supports it.

* **Strong suit** — a suit is declared when the cards that would be trumps with it
  (its cards, every level card, the jokers; 4 decks: also every 2) make a share of
  the cards held so far clearly above the average, once enough cards are in hand;
  when the dealing is over a smaller edge is enough.
* **Never against the partner** — a standing declaration of the partner is left
  alone; one's own may be strengthened in the same suit (自保) to keep it.
* **Notrump against a bad suit** — a joker pair (notrump, 反无主) overrides an
  opponent whose suit is short in this hand.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.cards import SMALL_JOKER, Card, parse_cards
from arena.games.base import PASS, Action, Observation, partner_of
from arena.games.shengji.order import RANK_TWO
from bots.shengji.memory import Memory

EARLY_SHARE = 0.37
"""Trump share of the cards held that makes a suit worth declaring during the deal."""
LATE_SHARE = 0.33
"""The share that is enough once the dealing is over."""
NOTRUMP_SHARE = 0.26
"""An opponent's suit with a share below this in the hand is worth a notrump override."""


def trump_share(cards: Sequence[Card], suit: int | None, level: int, decks: int) -> float:
    """The share of ``cards`` that would be trumps with ``suit`` (``None``: notrump)."""
    if not cards:
        return 0.0
    twos = decks == 4
    count = 0
    for card in cards:
        if card >= SMALL_JOKER:
            count += 1
            continue
        rank = card >> 2
        if rank == level or (twos and rank == RANK_TWO) or (suit is not None and card & 3 == suit):
            count += 1
    return count / len(cards)


def choose_declaration(observation: Observation, memory: Memory, hand_size: int) -> Action:
    """``declare CARDS`` or ``pass``, by the rules of the module docstring."""
    options = [a for a in observation.legal_actions if a.verb == "declare"]
    if not options:
        return PASS
    hand, level, decks = observation.hand, memory.level, memory.decks
    seat = observation.seat
    standing = memory.declarations[-1][0] if memory.declarations else None
    if standing == partner_of(seat):
        return PASS
    dealt = any(e.kind == "dealt" for e in observation.events)
    if not dealt and len(hand) < max(4, hand_size // 3):
        return PASS
    suited = [a for a in options if a.cards[0] < SMALL_JOKER]
    if standing == seat:  # strengthen one's own declaration, same suit only
        own = _own_suit(observation)
        suited = [a for a in suited if own is not None and a.cards[0] & 3 == own]
        return max(suited, key=lambda a: len(a.cards)) if suited else PASS
    threshold = LATE_SHARE if dealt else EARLY_SHARE
    if suited:
        best = max(
            suited,
            key=lambda a: (trump_share(hand, a.cards[0] & 3, level, decks), len(a.cards), a.cards),
        )
        if trump_share(hand, best.cards[0] & 3, level, decks) >= threshold:
            return best
    jokers = [a for a in options if a.cards[0] >= SMALL_JOKER]
    their = _standing_suit(observation)
    if (
        jokers
        and standing is not None
        and their is not None
        and trump_share(hand, their, level, decks) < NOTRUMP_SHARE
    ):
        return min(jokers, key=lambda a: (len(a.cards), a.cards))
    return PASS


def _standing_suit(observation: Observation) -> int | None:
    """The suit of the standing declaration when it is shown (not with 4 decks)."""
    for event in reversed(observation.events):
        if event.kind == "declare":
            if not event.cards or event.cards[0] >= SMALL_JOKER:
                return None
            return event.cards[0] & 3
    return None


def _own_suit(observation: Observation) -> int | None:
    """The suit this seat declared (4 decks: from its private view of its declaration)."""
    shown = observation.private.get("declaration")
    if isinstance(shown, str) and shown:
        return parse_cards(shown)[0] & 3
    return _standing_suit(observation)


__all__ = ["choose_declaration", "trump_share"]
