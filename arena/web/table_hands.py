"""Every seat's hand through a finished match, from its record re-played by the engine.

Only a finished, stored match has a record given out (the same record
``Leaderboard.GetMatchRecord`` gives anyone); its frames show every hand. The record is
re-played deal by deal exactly as :func:`arena.server.spectate.stored_messages` does, so
the events are numbered the same way (1, 2, 3 … across the match): the hands after the
entry that produced event ``seq`` are the hands of a frame whose last event is ``seq``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Final

from arena import games
from arena.cards import HEARTS, SMALL_JOKER, Card, card_names, parse_cards
from arena.games.base import NUM_SEATS, Game, State
from arena.games.guandan import GuandanState
from arena.games.guandan.combos import card_value as guandan_value
from arena.games.sanfu import SanfuState
from arena.games.sanfu.combos import card_value as sanfu_value
from arena.games.shengji import ShengjiState
from arena.games.shengji.order import TRUMP
from arena.plural import counted
from arena.replay import DealRecord, MatchRecord, replay_entry, start_deal

__all__ = [
    "Hands",
    "RecordMismatch",
    "RevealedHands",
    "held_cards",
    "held_order",
    "suit_place",
    "taken_kitty",
]

Hands = tuple[tuple[str, ...], ...]
"""The four seats' cards (card codes, in the order a player holds them: :func:`held_order`)."""


class RecordMismatch(ValueError):
    """The record given to the table is not the record of the messages it draws."""


@dataclass
class RevealedHands:
    """Hands per deal at its start and end, and after each event (by ``seq``)."""

    starts: dict[int, Hands] = field(default_factory=dict)
    ends: dict[int, Hands] = field(default_factory=dict)
    after: dict[int, Hands] = field(default_factory=dict)
    kinds: dict[int, str] = field(default_factory=dict)
    """The kind of event ``seq`` in the record's re-play, to check the messages against."""
    deals: int = 0
    """The record's deals."""

    @classmethod
    def of(
        cls, record: MatchRecord, only: int | None = None, events_before: int = 0
    ) -> RevealedHands:
        """Every deal's hands; with ``only``, that deal's alone, its events numbered
        from ``events_before`` + 1 (the events of the match before it)."""
        game = games.make(record.game, **record.options)
        revealed = cls(deals=len(record.deals))
        seq = 0
        for number, deal in enumerate(record.deals, start=1):
            if only is not None and number != only:
                continue
            if only is not None:
                seq = events_before
            seq = revealed._replay(game, number, deal, seq)
        return revealed

    def _replay(self, game: Game, number: int, deal: DealRecord, seq: int) -> int:
        """Deal ``number`` re-played, its events numbered after ``seq``; the last number."""
        state = start_deal(game, deal)
        self.starts[number] = _hands(state)
        seen = 0
        for text in (None, *deal.actions):
            if text is not None:
                replay_entry(state, text)
            events = state.events[seen:]
            if events:
                hands = _hands(state)
                for event in events:
                    seq += 1
                    self.after[seq] = hands
                    self.kinds[seq] = event.kind
            seen = len(state.events)
        self.ends[number] = _hands(state)
        return seq

    def at(self, seq: int, kind: str) -> Hands:
        """The hands once event ``seq`` (of ``kind``) happened."""
        if self.kinds.get(seq) != kind:
            raise RecordMismatch(
                f"event {seq} is {kind!r} in the messages but "
                f"{self.kinds.get(seq, 'missing')!r} in the record"
            )
        return self.after[seq]

    def start(self, deal: int) -> Hands:
        return self._of_deal(self.starts, deal)

    def end(self, deal: int) -> Hands:
        return self._of_deal(self.ends, deal)

    def _of_deal(self, hands: dict[int, Hands], deal: int) -> Hands:
        if deal not in hands:
            raise RecordMismatch(
                f"deal {deal} is not in the record ({counted(self.deals, 'deal')})"
            )
        return hands[deal]


SUIT_PLACES: Final = (0, 1, 3, 2)
"""Where each suit (s h d c) sits in a held hand: ♠ ♥ ♣ ♦ (黑红梅方), the colours
alternating."""
JOKERS_PLACE: Final = 4
"""After the four suits: the jokers."""


def suit_place(card: Card) -> int:
    """A card's suit as a hand holds it (:data:`SUIT_PLACES`; the jokers after them)."""
    return JOKERS_PLACE if card >= SMALL_JOKER else SUIT_PLACES[card & 3]


def held_order(state: State) -> Callable[[Card], tuple[int, ...]]:
    """How a player sorts a hand, low to high, one order for the felt and the seat.

    Shengji: by suit (♠ ♥ ♣ ♦) and, within a suit, by rank; the trumps last, together,
    in trump order (SJ-3, SJ-4, SJ-5: the trump suit's plain cards, the level cards and
    the jokers last). While cards are dealt and no trump is fixed, the level cards and
    the jokers (trumps whatever suit is declared) already wait at the end. Guandan: by
    GD-5 value (the level cards above the ace, below the jokers), the heart level
    cards (the wild cards, GD-6) the last of the level cards. Sanfu: by SF-7 value (the
    2s above the ace). The suit breaks ties."""
    if isinstance(state, ShengjiState):
        return _shengji_order(state)
    if isinstance(state, GuandanState):
        level = state.level
        return lambda card: (
            guandan_value(card, level),
            int(card < SMALL_JOKER and card >> 2 == level and card & 3 == HEARTS),
            suit_place(card),
        )
    if isinstance(state, SanfuState):
        return lambda card: (sanfu_value(card), suit_place(card))
    return lambda card: (card,)


def _shengji_order(state: ShengjiState) -> Callable[[Card], tuple[int, ...]]:
    order = state.order
    if order is not None:
        places = (0, 1) if order.two_colour else SUIT_PLACES

        def known(card: Card) -> tuple[int, ...]:
            suit = order.suits[card]
            return (TRUMP if suit == TRUMP else places[suit], order.orders[card], suit_place(card))

        return known
    level = state.level
    twos = state.rules.constant_twos or state.rules.decks == 4

    def dealing(card: Card) -> tuple[int, ...]:
        if card >= SMALL_JOKER:
            return (TRUMP, 2, card)
        rank = card >> 2
        if rank == level:
            return (TRUMP, 1, suit_place(card))
        if twos and rank == 0:
            return (TRUMP, 0, suit_place(card))
        return (suit_place(card), rank, 0)

    return dealing


def held_cards(state: State, cards: Iterable[str]) -> list[str]:
    """Card codes as a player holds them in ``state``'s deal (:func:`held_order`)."""
    key = held_order(state)
    return card_names(sorted(parse_cards(" ".join(cards)), key=key))


def taken_kitty(state: State, seat: int) -> list[str]:
    """The kitty's cards when ``seat`` is the Shengji dealer who took them up (SJ-13):
    the cards they saw come into their hand; none for any other seat or game."""
    if not isinstance(state, ShengjiState) or state.order is None or seat != state.dealer:
        return []
    return card_names(sorted(state.kitty, key=held_order(state)))


def _hands(state: State) -> Hands:
    key = held_order(state)
    return tuple(tuple(card_names(sorted(state.hand(seat), key=key))) for seat in range(NUM_SEATS))
