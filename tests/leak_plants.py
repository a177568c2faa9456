"""Leaks planted on purpose in the engines, to prove that the leak checks find them.

Each plant patches one engine class for the length of a test (``pytest.MonkeyPatch``)
so that it shows a card the rules keep hidden at that moment: in an event, in a
seat's observation. The same plant serves the checks of events and observations
(``tests/game_suite.py``) and the wire check of a real server
(``tests/test_server_games.py``), which runs the patched engine in its own thread.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from arena.cards import Card, format_cards
from arena.games.base import Event, Observation, Seat, next_seat
from arena.games.guandan import GuandanState
from arena.games.sanfu import SanfuState
from arena.games.shengji import ShengjiState

Plant = Callable[[pytest.MonkeyPatch], None]


def _wrap(
    monkeypatch: pytest.MonkeyPatch, cls: type, name: str, after: Callable[..., None]
) -> None:
    """Replace ``cls.name`` by the original followed by ``after(self, *args)``."""
    original = getattr(cls, name)

    def patched(self: Any, *args: Any) -> Any:
        result = original(self, *args)
        after(self, *args)
        return result

    monkeypatch.setattr(cls, name, patched)


def guandan_tribute_shown_when_given(monkeypatch: pytest.MonkeyPatch) -> None:
    """GD-14: each tribute card published as an event when it is given (face down)."""

    def show(self: GuandanState, seat: Seat, card: Card) -> None:
        self._events.append(Event("tribute", seat, (card,)))

    _wrap(monkeypatch, GuandanState, "_give_tribute", show)


def guandan_tribute_moved_to_give_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """GD-14: each tribute event sent when its card is given instead of when all are."""
    original = GuandanState._give_tribute

    def give(self: GuandanState, seat: Seat, card: Card) -> None:
        before = len(self._events)
        original(self, seat, card)
        later = [e for e in self._events[before:] if e.kind != "tribute"]
        self._events[before:] = [Event("tribute", seat, (card,)), *later]

    monkeypatch.setattr(GuandanState, "_give_tribute", give)


def guandan_return_shown_when_made(monkeypatch: pytest.MonkeyPatch) -> None:
    """GD-14: each return card published as an event when it is made (face down)."""

    def show(self: GuandanState, seat: Seat, card: Card) -> None:
        self._events.append(Event("return", seat, (card,)))

    _wrap(monkeypatch, GuandanState, "_give_return", show)


def shengji_bury_shows_the_card(monkeypatch: pytest.MonkeyPatch) -> None:
    """SJ-13: each ``bury`` event names the card buried face down."""

    def show(self: ShengjiState, card: Card) -> None:
        at = max(i for i, e in enumerate(self._events) if e.kind == "bury")
        self._events[at] = self._events[at]._replace(cards=(card,))

    _wrap(monkeypatch, ShengjiState, "_bury", show)


def shengji_kitty_shown_after_burying(monkeypatch: pytest.MonkeyPatch) -> None:
    """SJ-25, C-5: the buried kitty published as soon as it is buried, not at the end."""

    def show(self: ShengjiState) -> None:
        if self._buried:
            self._events.append(Event("kitty", self.dealer, tuple(self._buried)))

    _wrap(monkeypatch, ShengjiState, "_start_play", show)


def shengji_hidden_declaration_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    """SJ-10: a four-deck declaration names its cards (and so its suit)."""

    def show(self: ShengjiState, seat: Seat, cards: tuple[Card, ...]) -> None:
        at = max(i for i, e in enumerate(self._events) if e.kind == "declare")
        self._events[at] = self._events[at]._replace(cards=cards)

    _wrap(monkeypatch, ShengjiState, "_declare", show)


def shengji_flipped_kitty_card_shown_while_dealing(monkeypatch: pytest.MonkeyPatch) -> None:
    """SJ-8: the kitty's 4th card shown as the dealing starts, before anyone could declare
    (with ``flip_kitty`` it may only be turned once the dealing is over undeclared)."""

    def show(self: ShengjiState, *args: Any) -> None:
        self._events.append(Event("trump", cards=self.kitty[3:4]))

    _wrap(monkeypatch, ShengjiState, "__init__", show)


def guandan_new_event_kind_shows_a_hand(monkeypatch: pytest.MonkeyPatch) -> None:
    """C-5: an event of a kind no rule publishes cards with ("hint") names a hand."""

    def show(self: GuandanState, *args: Any) -> None:
        self._events.append(Event("hint", 0, self.hand(0)[:3]))

    _wrap(monkeypatch, GuandanState, "__init__", show)


def sanfu_third_card_turned(monkeypatch: pytest.MonkeyPatch) -> None:
    """SF-2: a third card of the deal turned face up."""

    def show(self: SanfuState, *args: Any) -> None:
        self._events.insert(1, Event("turn", 0, self.hand(0)[-1:], value=self.seating[0]))

    _wrap(monkeypatch, SanfuState, "__init__", show)


def sanfu_turn_shows_a_neighbour(monkeypatch: pytest.MonkeyPatch) -> None:
    """SF-2: the first turned card shown with another card of its receiver's hand."""

    def show(self: SanfuState, *args: Any) -> None:
        at = next(i for i, e in enumerate(self._events) if e.kind == "turn")
        turn = self._events[at]
        others = [c for c in self.hand(turn.seat) if c != turn.cards[0]]
        self._events[at] = turn._replace(cards=(turn.cards[0], others[0]))

    _wrap(monkeypatch, SanfuState, "__init__", show)


def _observe_with(
    monkeypatch: pytest.MonkeyPatch, cls: type, extra: Callable[[Any, Observation], Observation]
) -> None:
    original = getattr(cls, "observe")  # noqa: B009 (any engine class)

    def observe(self: Any, seat: Seat) -> Observation:
        return extra(self, original(self, seat))

    monkeypatch.setattr(cls, "observe", observe)


def next_hand_in_public(cls: type) -> Plant:
    """C-5: every observation's public facts show the next seat's hand."""

    def plant(monkeypatch: pytest.MonkeyPatch) -> None:
        def peek(state: Any, obs: Observation) -> Observation:
            shown = format_cards(state.hand(next_seat(obs.seat)))
            return obs._replace(public={**obs.public, "next": shown})

        _observe_with(monkeypatch, cls, peek)

    plant.__name__ = f"{cls.__name__}_next_hand_in_public"
    return plant


def shengji_kitty_in_public(monkeypatch: pytest.MonkeyPatch) -> None:
    """SJ-13, C-5: the kitty dealt shown in every observation's public facts."""

    def peek(state: ShengjiState, obs: Observation) -> Observation:
        return obs._replace(public={**obs.public, "kitty": format_cards(state.kitty)})

    _observe_with(monkeypatch, ShengjiState, peek)


def shengji_declared_suit_in_public(monkeypatch: pytest.MonkeyPatch) -> None:
    """SJ-10: the suit of the standing four-deck declaration told while dealing."""

    def peek(state: ShengjiState, obs: Observation) -> Observation:
        if state.phase != "declare" or state.standing is None:
            return obs
        return obs._replace(public={**obs.public, "suit": state.standing.suit})

    _observe_with(monkeypatch, ShengjiState, peek)


def shengji_buried_in_every_private(monkeypatch: pytest.MonkeyPatch) -> None:
    """SJ-13, C-5: every seat, not only the dealer, privately told the buried cards."""

    def peek(state: ShengjiState, obs: Observation) -> Observation:
        if not state.buried or state.phase == "over":
            return obs
        return obs._replace(private={**obs.private, "buried": format_cards(state.buried)})

    _observe_with(monkeypatch, ShengjiState, peek)


def guandan_pending_tribute_told_to_the_receiver(monkeypatch: pytest.MonkeyPatch) -> None:
    """GD-14: the first player privately told a tribute card given face down before all
    tributes are given."""

    def peek(state: GuandanState, obs: Observation) -> Observation:
        tribute = state._tribute
        if tribute is None or state.phase != "tribute" or not tribute.given:
            return obs
        if obs.seat != state.setup.previous_order[0]:
            return obs
        given = format_cards(sorted(tribute.given.values()))
        return obs._replace(private={**obs.private, "coming": given})

    _observe_with(monkeypatch, GuandanState, peek)
