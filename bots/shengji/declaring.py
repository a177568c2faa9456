"""Declaring trump during the deal (SJ-8 … SJ-11): declare when the hand supports it.

The engine offers a declaration only when a stronger one than the standing one is
possible (SJ-11), so every declaration offered while an opponent's stands is an
override (反主): the rules below decide whether to contest.

* **Strong suit** — a suit is declared, or an opponent's declaration overridden with
  it, when the cards that would be trumps with it (its cards, every level card, the
  jokers; 4 decks: also every 2) make a share of the cards held so far clearly above
  the average, once enough cards are in hand; when the dealing is over a smaller
  edge is enough. How large a share, and how many cards first, falls with the style's
  ``risk`` (:mod:`bots.shengji.levers`): an aggressive bot declares early on a thin
  suit and contests more declarations, a cautious one waits for a long suit.
* **Never against the partner** — a standing declaration of the partner is left
  alone (SJ-8: it would only take the dealer's seat from the team).
* **Keep one's own** — one's own declaration is strengthened in the same suit (自保)
  to keep it; it is changed to a stronger declaration of another suit (自反) when that
  suit's share is better by a margin that shrinks with ``risk``.
* **Notrump against a bad suit** — a joker pair or triple (notrump, 反无主) overrides
  an opponent whose suit is short in this hand; a bolder bot does so against longer
  suits.
* **4 decks (SJ-10)** — the standing suit is hidden: an override is judged by the
  strong-suit rule alone.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.cards import SMALL_JOKER, Card, parse_cards
from arena.games.base import PASS, Action, Observation, partner_of
from arena.games.shengji.order import RANK_TWO
from bots.shengji.levers import Levers
from bots.shengji.memory import Memory


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


def choose_declaration(
    observation: Observation, memory: Memory, hand_size: int, levers: Levers
) -> Action:
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
    if not dealt and len(hand) < max(4, int(hand_size * levers.early_part + 1e-9)):
        return PASS
    suited = [a for a in options if a.cards[0] < SMALL_JOKER]

    def share(action: Action) -> float:
        return trump_share(hand, action.cards[0] & 3, level, decks)

    if standing == seat:  # keep one's own declaration: strengthen it, or change suit
        own = _own_suit(observation)
        same = [a for a in suited if own is not None and a.cards[0] & 3 == own]
        if same:
            return max(same, key=lambda a: len(a.cards))
        if own is None or not suited:
            return PASS
        other = max(suited, key=lambda a: (share(a), len(a.cards), a.cards))
        mine = trump_share(hand, own, level, decks)
        return other if share(other) >= mine + levers.switch_margin else PASS
    threshold = levers.late_share if dealt else levers.early_share
    if suited:
        best = max(suited, key=lambda a: (share(a), len(a.cards), a.cards))
        if share(best) >= threshold:
            return best
    jokers = [a for a in options if a.cards[0] >= SMALL_JOKER]
    their = _standing_suit(observation)
    if (
        jokers
        and standing is not None
        and their is not None
        and trump_share(hand, their, level, decks) < levers.notrump_share
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
