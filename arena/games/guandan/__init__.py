"""Guandan (掼蛋), exactly as rules/guandan.md states it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arena.cards import Card, format_cards, parse_cards
from arena.chance import draw_index, shuffled_deck
from arena.errors import ConfigError
from arena.games.base import NUM_SEATS, Event, Game, Outcome, State
from arena.games.guandan import text
from arena.games.guandan.combos import Kind, Reading, beats, play_readings, readings
from arena.games.guandan.state import GAME_NAME, GuandanSetup, GuandanState, level_name
from arena.games.options import whole_number
from arena.plural import noun

__all__ = [
    "GuandanGame",
    "GuandanSetup",
    "GuandanState",
    "Kind",
    "Reading",
    "beats",
    "level_name",
    "play_readings",
    "readings",
]

DECKS = 2
HAND_SIZE = 27
MAX_A_FAILS = 100
"""Option ``a_fail_limit``: at most this many failed deals at A (0 = no limit)."""


class GuandanGame(Game):
    """Two decks, four players, tribute and a wild card (GD-1 … GD-17).

    Option ``a_fail_limit`` (GD-17): after that many failed deals at its own A a
    team drops back to 2; ``0`` (the default) turns the house rule off.
    """

    name = GAME_NAME
    turn = "counter-clockwise"  # 004: 位于右方的对手为下家 (the next player on the right)

    @classmethod
    def check_options(cls, options: Mapping[str, Any]) -> Mapping[str, Any]:
        unknown = set(options) - {"a_fail_limit"}
        if unknown:
            raise ConfigError(
                f"unknown {noun(len(unknown), 'option')} for guandan: "
                f"{', '.join(sorted(unknown))}; known: a_fail_limit"
            )
        limit = options.get("a_fail_limit", 0)
        if limit is None:
            limit = 0
        return {"a_fail_limit": whole_number("a_fail_limit", limit, 0, MAX_A_FAILS, " (0 = off)")}

    def first_setup(self) -> GuandanSetup:
        return GuandanSetup()

    def new_deal(
        self,
        setup: Any = None,
        *,
        seed: int | None = None,
        hands: Sequence[Sequence[Card]] | None = None,
    ) -> GuandanState:
        setup = setup if setup is not None else GuandanSetup()
        if not isinstance(setup, GuandanSetup):
            raise ConfigError(f"guandan needs a GuandanSetup, got {type(setup).__name__}")
        if hands is None:
            if seed is None:
                raise ConfigError("a deal needs a seed or explicit hands")
            cards = shuffled_deck(DECKS, seed)
            hands = [cards[i * HAND_SIZE : (i + 1) * HAND_SIZE] for i in range(NUM_SEATS)]
        else:
            hands = check_hands(hands)
        leader = setup.leader
        if leader is None:
            if seed is None and not setup.previous_order:
                raise ConfigError(
                    "explicit hands need a leader in the setup, or a seed to draw one (GD-3)"
                )
            leader = draw_index(seed or 0, "guandan first leader", NUM_SEATS)  # GD-3
        return GuandanState(hands, setup, leader, self.options["a_fail_limit"])

    def describe_event(self, event: Event, state: State) -> str:
        assert isinstance(state, GuandanState)
        return text.describe_event(event, state.level)

    def describe_outcome(self, outcome: Outcome) -> str:
        return text.describe_outcome(outcome)

    def setup_to_dict(self, setup: Any) -> dict[str, Any]:
        assert isinstance(setup, GuandanSetup)
        return {
            "levels": list(setup.levels),
            "level_team": setup.level_team,
            "previous_order": list(setup.previous_order),
            "leader": setup.leader,
            "a_failures": list(setup.a_failures),
            "deal_index": setup.deal_index,
        }

    def setup_from_dict(self, data: Mapping[str, Any]) -> GuandanSetup:
        try:
            levels = tuple(int(x) for x in data.get("levels", (0, 0)))
            failures = tuple(int(x) for x in data.get("a_failures", (0, 0)))
            order = tuple(int(x) for x in data.get("previous_order", ()))
            leader = data.get("leader")
            setup = GuandanSetup(
                levels=(levels[0], levels[1]),
                level_team=int(data.get("level_team", 0)),
                previous_order=order,
                leader=None if leader is None else int(leader),
                a_failures=(failures[0], failures[1]),
                deal_index=int(data.get("deal_index", 0)),
            )
        except (TypeError, ValueError, IndexError) as err:
            raise ConfigError(f"bad guandan setup {dict(data)!r}: {err}") from None
        check_setup(setup)
        return setup


def check_setup(setup: GuandanSetup) -> None:
    if any(not 0 <= lv <= 12 for lv in setup.levels):
        raise ConfigError(f"levels must be ranks 2..A (0..12), got {setup.levels}")
    if setup.level_team not in (0, 1):
        raise ConfigError(f"level_team must be 0 or 1, got {setup.level_team}")
    if setup.previous_order and sorted(setup.previous_order) != [0, 1, 2, 3]:
        raise ConfigError(
            f"previous_order must list the four seats once, got {setup.previous_order}"
        )
    if setup.leader is not None and setup.leader not in range(NUM_SEATS):
        raise ConfigError(f"leader must be a seat 0..3, got {setup.leader}")


def check_hands(hands: Sequence[Sequence[Card] | str]) -> list[tuple[Card, ...]]:
    """Explicit hands: four non-empty hands drawn from two decks (text or card ints)."""
    if len(hands) != NUM_SEATS:
        raise ConfigError(f"a guandan deal has 4 hands, got {len(hands)}")
    parsed = [parse_cards(h) if isinstance(h, str) else tuple(h) for h in hands]
    seen: dict[Card, int] = {}
    for seat, hand in enumerate(parsed):
        if not hand:
            raise ConfigError(f"hand of seat {seat} is empty")
        for card in hand:
            if not isinstance(card, int) or not 0 <= card < 54:
                raise ConfigError(f"hand of seat {seat}: {card!r} is not a card")
            seen[card] = seen.get(card, 0) + 1
    extra = [c for c, n in seen.items() if n > DECKS]
    if extra:
        raise ConfigError(
            f"more than two of {format_cards(sorted(extra))} in the hands (GD-1: two decks)"
        )
    return parsed
