"""One seat's deal as Botzone's Tractor requests, built from the seat's observations alone.

Botzone deals one card per turn and asks each player after each card (``deal``:
``deliver`` the card, the answer ``[]``, one level card to call, or a pair to
override); asks the dealer to bury (``cover``: ``deliver`` the kitty, the answer the
numbers buried); then each play (``play``: ``history`` = the last trick's plays, the
current trick's plays so far, who led each; the answer the numbers played). Every
request carries ``global``: ``level`` and ``banking`` (``called``, ``snatched``,
``major``, ``banker``), and in play ``total_score`` (the defenders' points).

The arena asks a seat only at its own decisions, so the cards dealt to it since its
last one are delivered first, one request each, then the decision's request. Numbers
are given to cards as the seat first sees them (its cards as dealt, the kitty, the
others' plays), the lowest free number of that card; the seat's own plays take back
the numbers it answered with. Nothing reaches a request that the observation does
not show (docs/gateways.md lists every difference from Botzone's game).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.cards import NUM_KINDS, SMALL_JOKER, SUITS, Card, format_cards, rank_of
from arena.games.base import NOBODY, Action, Observation
from arena.gateways.botzone.cards import LEVELS, card_of, number_of

__all__ = ["Deal", "Question", "answer_action"]

Request = dict[str, Any]


@dataclass
class Question:
    """What to ask for a decision: requests the seat gets before its decision's own (the
    cards dealt meanwhile), then that request (``None``: nothing to ask, ``answer``
    is the action)."""

    before: list[Request]
    current: Request | None
    answer: Action | None = None


@dataclass
class Deal:
    """The Botzone view of one deal for one seat."""

    seat: int
    decks: int
    first_deal: bool
    requests: list[Request] = field(default_factory=list)
    responses: list[Any] = field(default_factory=list)
    held: dict[Card, list[int]] = field(default_factory=dict)
    """The numbers of each card the seat holds."""
    used: dict[Card, set[int]] = field(default_factory=dict)
    """The numbers given so far, per card."""
    delivered: Counter[Card] = field(default_factory=Counter)
    burials: list[Card] = field(default_factory=list)
    """Cards still to bury from the last cover answer."""
    played: list[int] = field(default_factory=list)
    """The numbers of the seat's last play answer."""
    seen: int = 0
    """Events read so far."""
    level: int = 0
    start: int = 0
    declarations: list[tuple[int, tuple[Card, ...]]] = field(default_factory=list)
    dealer: int = NOBODY
    trump: str = ""
    last: list[list[int]] = field(default_factory=list)
    current: list[list[int]] = field(default_factory=list)
    last_leader: int = NOBODY
    leader: int = NOBODY

    # -- numbers -----------------------------------------------------------------

    def _number(self, card: Card) -> int:
        used = self.used.setdefault(card, set())
        number = next(
            number_of(card, deck) for deck in range(self.decks + 1)
            if number_of(card, deck) not in used
        )  # fmt: skip
        used.add(number)
        return number

    def _receive(self, cards: Sequence[Card]) -> list[int]:
        numbers = [self._number(card) for card in cards]
        for card, number in zip(cards, numbers, strict=True):
            self.held.setdefault(card, []).append(number)
            self.delivered[card] += 1
        return numbers

    def _give_up(self, cards: Sequence[Card], preferred: Sequence[int]) -> list[int]:
        """The numbers of the seat's cards leaving its hand (those it named first)."""
        numbers = []
        for card in cards:
            mine = self.held.get(card, [])
            chosen = next((n for n in preferred if n in mine and n not in numbers), None)
            if chosen is None:
                chosen = mine[0] if mine else self._number(card)
            if chosen in mine:
                mine.remove(chosen)
            numbers.append(chosen)
        return numbers

    # -- events ------------------------------------------------------------------

    def read(self, observation: Observation) -> None:
        """Take in the events not read yet."""
        events = observation.events
        for event in events[self.seen :]:
            kind = event.kind
            if kind == "deal":
                self.start, self.level = event.seat, event.value
            elif kind == "declare":
                self.declarations.append((event.seat, event.cards))
            elif kind == "trump":
                self.dealer, self.trump = event.seat, event.tag
            elif kind == "lead":
                if self.current:
                    self.last, self.last_leader = self.current, self.leader
                elif self.last_leader == NOBODY:
                    self.last_leader = event.seat
                self.current, self.leader = [], event.seat
            elif kind == "play":
                if event.seat == self.seat:
                    numbers = self._give_up(event.cards, self.played)
                else:
                    numbers = [self._number(card) for card in event.cards]
                self.current.append(numbers)
        self.seen = len(events)

    # -- requests ----------------------------------------------------------------

    def _major(self) -> str:
        if self.trump:
            return {"notrump": "n"}.get(self.trump, self.trump)
        if not self.declarations:
            return ""
        card = self.declarations[-1][1][0]
        return "n" if card >= SMALL_JOKER else SUITS[card & 3]

    def _global(self) -> dict[str, Any]:
        declared = self.declarations
        if self.dealer != NOBODY:
            banker = self.dealer
        elif self.first_deal:
            banker = declared[-1][0] if declared else -1
        else:
            banker = self.start
        banking = {
            "called": declared[0][0] if declared else -1,
            "snatched": declared[-1][0] if len(declared) > 1 else -1,
            "major": self._major(),
            "banker": banker,
        }
        return {"level": LEVELS[self.level], "banking": banking}

    def _deals(self, cards: Sequence[Card]) -> list[Request]:
        return [
            {"stage": "deal", "deliver": self._receive([card]), "global": self._global()}
            for card in cards
        ]

    def _undelivered(self, observation: Observation) -> list[Card]:
        """The seat's cards not delivered yet, those that can declare last."""
        new = Counter(observation.hand) - self.delivered
        return sorted(
            new.elements(), key=lambda c: (c >= SMALL_JOKER or rank_of(c) == self.level, c)
        )

    def question(self, observation: Observation) -> Question:
        """What to ask for the seat's decision now."""
        self.read(observation)
        phase = observation.phase
        if phase == "declare":
            new = self._undelivered(observation)
            if not new:  # asked again once every card is dealt: Botzone has no such turn
                return Question([], None, Action("pass"))
            *before, last = self._deals(new)
            return Question(before, last)
        if phase == "bury":
            if self.burials:
                return Question([], None, Action("bury", (self.burials.pop(0),)))
            new = self._undelivered(observation)
            kitty = min(len(new), self._kitty_size(observation))
            dealt, taken = new[: len(new) - kitty], new[len(new) - kitty :]
            before = self._deals(dealt)
            cover = {"stage": "cover", "deliver": self._receive(taken), "global": self._global()}
            return Question(before, cover)
        before = self._deals(self._undelivered(observation))
        play = {
            "stage": "play",
            "history": [self.last, self.current, self.last_leader, self.leader],
            "global": {
                **self._global(),
                "total_score": int(observation.public.get("defender_points", 0)),
            },
        }
        return Question(before, json.loads(json.dumps(play)))

    def _kitty_size(self, observation: Observation) -> int:
        """The cards the dealer took up: its hand now less a player's dealt hand."""
        counts = observation.public.get("counts", ())
        others = [n for seat, n in enumerate(counts) if seat != self.seat]
        return len(observation.hand) - (max(others) if others else len(observation.hand))

    # -- answers -----------------------------------------------------------------

    def answer(self, request: Request, response: Any, raw: str) -> Action | str:
        """A response to ``request`` as the seat's answer (``raw`` when it names no cards)."""
        numbers = _numbers(response, self.decks)
        if numbers is None:
            return raw
        cards = tuple(card_of(n) for n in numbers)
        stage = request["stage"]
        if stage == "deal":
            return Action("declare", tuple(sorted(cards))) if cards else Action("pass")
        if stage == "cover":
            mine = Counter(n for numbers in self.held.values() for n in numbers)
            if len(numbers) != len(request["deliver"]) or Counter(numbers) - mine:
                return raw  # not as many numbers as the kitty's, or some not held
            self._give_up(cards, numbers)
            self.burials = list(cards[1:])
            return Action("bury", cards[:1])
        self.played = numbers
        return Action("play", tuple(sorted(cards))) if cards else raw

    def forget_burials(self) -> None:
        self.burials = []


def _numbers(response: Any, decks: int) -> list[int] | None:
    """The card numbers of a response, or None when it is no list of them."""
    if not isinstance(response, list):
        return None
    if not all(type(n) is int and 0 <= n < NUM_KINDS * decks for n in response):
        return None
    return list(response)


def answer_action(deal: Deal, request: Request, line: str) -> tuple[Any, Action | str]:
    """A program's output line: its ``response`` (``None`` if unreadable) and the seat's
    answer (the line itself when it says no cards)."""
    try:
        output = json.loads(line)
    except ValueError:
        return None, line
    if not isinstance(output, dict) or "response" not in output:
        return None, line
    response = output["response"]
    return response, deal.answer(request, response, line)


def cards_text(numbers: Sequence[int]) -> str:
    """Numbers as the arena's cards (for messages)."""
    return format_cards(card_of(n) for n in numbers)
