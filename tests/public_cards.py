"""Which cards are public when: one small statement per game, read from the rules.

rules/common.md C-5: a player sees their own hand, every card played face up and what
each game announces; never another player's hand, the kitty, a hidden declaration.
The leak checks (``tests/game_suite.py``, ``tests/test_server_games.py``) hold every
event and every public fact to these statements.

A statement follows one deal from its start (setup, dealt hands, kitty) through the
actions taken, and says, per event kind, the most of each card that the events of that
kind may have shown by now; a kind it does not name shows no card. It is written from
rules/*.md and the README's "Tribute order", never from the engines' own publicity
code: a check that reused the engine's decision could not catch the engine's mistake.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from arena.cards import BIG_JOKER, Card, format_cards
from arena.games.base import NUM_SEATS, Action, Event, Seat, State, team_of
from arena.games.guandan import GuandanState
from arena.games.sanfu import SanfuState
from arena.games.shengji import ShengjiState

Shown = dict[str, Counter[Card]]
"""Per event kind, the most of each card its events may show."""


class Statement:
    """The common rule (C-5): every card played face up is public, nothing else.

    Games add what they announce; ``take`` is told each action as it is taken, and
    ``public`` what is public now, given the events so far and the deal's phase.
    """

    def __init__(self, start: State) -> None:
        self.played: Counter[Card] = Counter()

    def take(self, seat: Seat, action: Action) -> None:
        if action.verb == "play":
            self.played.update(action.cards)

    def public(self, events: Sequence[Event], phase: str) -> Shown:
        return {"play": Counter(self.played)}

    def leaks(self, events: Sequence[Event], phase: str) -> list[str]:
        """Each event kind whose events show a card the rules keep hidden now."""
        allowed = self.public(events, phase)
        shown: Shown = {}
        for event in events:
            shown.setdefault(event.kind, Counter()).update(event.cards)
        problems = []
        for kind, cards in shown.items():
            excess = cards - allowed.get(kind, Counter())
            if excess:
                problems.append(
                    f"{kind!r} events show {format_cards(sorted(excess.elements()))}, "
                    f"hidden at this moment (phase {phase!r}, {type(self).__name__})"
                )
        return problems

    def pool(self, events: Sequence[Event], phase: str) -> Counter[Card]:
        """Every card public now, each as many times as any one kind may show it."""
        found: Counter[Card] = Counter()
        for cards in self.public(events, phase).values():
            found |= cards
        return found


def tributes_owed(previous_order: Sequence[Seat], hands: Sequence[Iterable[Card]]) -> int:
    """GD-13 … GD-15: how many tributes a Guandan deal starts with.

    None in the first deal; one from the last player, or two after 双下 (the first two
    of one team); none when the tributer(s) hold both big jokers (抗贡).
    """
    if not previous_order:
        return 0
    double = team_of(previous_order[0]) == team_of(previous_order[1])
    givers = previous_order[2:] if double else previous_order[3:]
    big_jokers = sum(Counter(hands[seat])[BIG_JOKER] for seat in givers)
    return 0 if big_jokers == 2 else len(givers)


class GuandanStatement(Statement):
    """Guandan: plays face up (GD-10); tribute cards shown once every tribute owed is
    given and returns once every return is made — one at once, two together (GD-13,
    GD-14, README "Tribute order"); no kitty, no other card shown."""

    def __init__(self, start: State) -> None:
        super().__init__(start)
        assert isinstance(start, GuandanState)
        setup = start.setup
        self.owed = tributes_owed(setup.previous_order, start.seat_cards())
        self.given: Counter[Card] = Counter()
        self.returned: Counter[Card] = Counter()

    def take(self, seat: Seat, action: Action) -> None:
        super().take(seat, action)
        if action.verb == "tribute":
            self.given.update(action.cards)
        elif action.verb == "return":
            self.returned.update(action.cards)

    def public(self, events: Sequence[Event], phase: str) -> Shown:
        shown = super().public(events, phase)
        if self.given.total() == self.owed:
            shown["tribute"] = Counter(self.given)
        if self.returned.total() == self.owed:
            shown["return"] = Counter(self.returned)
        return shown


class ShengjiStatement(Statement):
    """Shengji: declarations shown face up (SJ-8), with four decks only their count
    (SJ-10); with ``flip_kitty`` and no declaration the kitty's 4th card once the
    dealing is over (SJ-8); the kitty buried face down (SJ-13) and shown only when the
    deal is over (SJ-25, C-5); a failed throw shown whole (SJ-17); plays face up."""

    def __init__(self, start: State) -> None:
        super().__init__(start)
        assert isinstance(start, ShengjiState)
        rules = start.rules
        self.decks: int = rules.decks
        self.flip_kitty = rules.no_declaration == "flip_kitty"
        self.kitty = start.kitty
        self.declared: Counter[Card] = Counter()
        self.declarations = 0
        self.buried: Counter[Card] = Counter()

    def take(self, seat: Seat, action: Action) -> None:
        super().take(seat, action)
        if action.verb == "declare":
            self.declarations += 1
            if self.decks != 4:
                self.declared.update(action.cards)
        elif action.verb == "bury":
            self.buried.update(action.cards)

    def public(self, events: Sequence[Event], phase: str) -> Shown:
        shown = super().public(events, phase)
        shown["throw_failed"] = Counter(self.played)
        shown["declare"] = Counter(self.declared)
        dealing_over = phase != "declare"
        if dealing_over and self.flip_kitty and not self.declarations and len(self.kitty) > 3:
            shown["trump"] = Counter(self.kitty[3:4])
        if phase == "over":
            shown["kitty"] = Counter(self.buried)
        return shown


class SanfuStatement(Statement):
    """sanfu: two cards turned face up as they are dealt, one after a sweep (SF-2,
    SF-5), each shown with the seat that received it; plays face up (SF-10)."""

    def __init__(self, start: State) -> None:
        super().__init__(start)
        assert isinstance(start, SanfuState)
        setup = start.setup
        self.turns = 1 if setup.previous_sweep else 2
        self.dealt = [Counter(hand) for hand in start.seat_cards()]

    def public(self, events: Sequence[Event], phase: str) -> Shown:
        shown = super().public(events, phase)
        turns = [e for e in events if e.kind == "turn"][: self.turns]
        shown["turn"] = Counter(
            e.cards[0]
            for e in turns
            if len(e.cards) == 1 and e.seat in range(NUM_SEATS) and self.dealt[e.seat][e.cards[0]]
        )
        return shown


STATEMENTS: dict[str, type[Statement]] = {
    "guandan": GuandanStatement,
    "shengji": ShengjiStatement,
    "sanfu": SanfuStatement,
}


def statement_for(start: State) -> Statement:
    """The statement of the deal that starts with ``start`` (the common rule for a game
    that has none of its own)."""
    return STATEMENTS.get(start.game_name, Statement)(start)
