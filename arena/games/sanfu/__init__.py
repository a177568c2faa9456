"""sanfu: the three-deck climbing game with partners found by turned cards (rules/sanfu.md)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arena.cards import Card
from arena.chance import draw_sample, shuffled_deck
from arena.errors import ConfigError
from arena.games.base import NUM_SEATS, Event, Game, Outcome, State
from arena.games.options import seconds, whole_number
from arena.games.sanfu import text
from arena.games.sanfu.state import (
    DEAL_SIZE,
    DECKS,
    GAME_NAME,
    HAND_SIZES,
    SanfuSetup,
    SanfuState,
    deal,
    deal_order,
)
from arena.plural import noun

__all__ = ["DEAL_SIZE", "DECKS", "HAND_SIZES", "SanfuGame", "SanfuSetup", "SanfuState"]

MAX_DEALS = 1000
"""Option ``deals``: a match of more deals than this is refused (not a sanfu match)."""
MAX_TIME_LIMIT = 3600.0
"""Option ``time_limit``: at most an hour a decision."""


class SanfuGame(Game):
    """Options: ``deals`` per match (SF-17, default 8) and ``time_limit`` per decision in
    seconds (SF-12, default 30; the match driver enforces it)."""

    name = GAME_NAME
    turn = "clockwise"  # 003: 隨后按順時針方向出牌

    @classmethod
    def check_options(cls, options: Mapping[str, Any]) -> Mapping[str, Any]:
        unknown = set(options) - {"deals", "time_limit"}
        if unknown:
            names = ", ".join(sorted(unknown))
            what = noun(len(unknown), "option")
            raise ConfigError(f"unknown {what} for sanfu: {names}; known: deals, time_limit")
        return {
            "deals": whole_number("deals", options.get("deals", 8), 1, MAX_DEALS),
            "time_limit": seconds("time_limit", options.get("time_limit", 30), MAX_TIME_LIMIT),
        }

    def first_setup(self) -> SanfuSetup:
        return SanfuSetup(deals=self.options["deals"])

    def new_deal(
        self,
        setup: Any = None,
        *,
        seed: int | None = None,
        hands: Sequence[Sequence[Card]] | None = None,
        turned: Sequence[int] | None = None,
    ) -> SanfuState:
        """A deal from a seed, or from explicit hands (seats 0..3, 41/41/40/40 cards, dealt
        one at a time from seat 0) and the indices of the turned cards in that order."""
        setup = setup if setup is not None else self.first_setup()
        if not isinstance(setup, SanfuSetup):
            raise ConfigError(f"sanfu needs a SanfuSetup, got {type(setup).__name__}")
        _check_setup(setup)
        count = 1 if setup.previous_sweep else 2  # SF-5: one card after a sweep
        if hands is None:
            if seed is None:
                raise ConfigError("a deal needs a seed or explicit hands")
            order = shuffled_deck(DECKS, seed)
            if turned is None:  # SF-2 Decision: the seed picks the turned cards
                turned = draw_sample(seed, "sanfu turned cards", DEAL_SIZE, count)
        else:
            order = deal_order(hands)
            if turned is None:
                raise ConfigError("explicit hands need the indices of the turned cards")
        turned = sorted(turned)
        if (
            len(turned) != count
            or len(set(turned)) != count
            or not all(0 <= i < DEAL_SIZE for i in turned)
        ):
            raise ConfigError(
                f"turned must be {count} distinct indices 0..161 of the dealing order "
                f"({'one card after a sweep' if count == 1 else 'two cards'}, SF-2/SF-5), "
                f"got {list(turned)}"
            )
        return deal(order, turned, setup)

    def describe_event(self, event: Event, state: State) -> str:
        assert isinstance(state, SanfuState)
        return text.describe_event(event, state)

    def describe_outcome(self, outcome: Outcome) -> str:
        return text.describe_outcome(outcome)

    def setup_to_dict(self, setup: Any) -> dict[str, Any]:
        assert isinstance(setup, SanfuSetup)
        return {
            "seating": list(setup.seating),
            "previous_first": setup.previous_first,
            "previous_sweep": setup.previous_sweep,
            "deal_index": setup.deal_index,
            "deals": setup.deals,
        }

    def setup_from_dict(self, data: Mapping[str, Any]) -> SanfuSetup:
        try:
            seating = [int(x) for x in data.get("seating", (0, 1, 2, 3))]
            first = data.get("previous_first")
            setup = SanfuSetup(
                seating=(seating[0], seating[1], seating[2], seating[3]),
                previous_first=None if first is None else int(first),
                previous_sweep=bool(data.get("previous_sweep", False)),
                deal_index=int(data.get("deal_index", 0)),
                deals=int(data.get("deals", self.options["deals"])),
            )
        except (TypeError, ValueError, IndexError) as err:
            raise ConfigError(f"bad sanfu setup {dict(data)!r}: {err}") from None
        _check_setup(setup)
        return setup


def _check_setup(setup: SanfuSetup) -> None:
    if sorted(setup.seating) != [0, 1, 2, 3]:
        raise ConfigError(f"seating must place the four players 0..3 once, got {setup.seating}")
    if setup.previous_sweep and setup.previous_first is None:
        raise ConfigError("a deal after a sweep needs the previous first finisher (SF-5)")
    if setup.previous_first is not None and setup.previous_first not in range(NUM_SEATS):
        raise ConfigError(f"previous_first must be a player 0..3, got {setup.previous_first}")
