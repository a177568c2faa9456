"""Shengji / Tractor (升级, 拖拉机), 1 to 4 decks, exactly as rules/shengji.md states it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from arena.cards import Card, format_cards, parse_cards
from arena.chance import shuffled_deck
from arena.errors import ConfigError
from arena.games.base import NUM_SEATS, Event, Game, Outcome, State
from arena.games.options import whole_number
from arena.games.shengji import text
from arena.games.shengji.state import ShengjiRules, ShengjiSetup, ShengjiState
from arena.plural import counted, noun

__all__ = ["ShengjiGame", "ShengjiRules", "ShengjiSetup", "ShengjiState", "variants"]

# decks → (hand size, kitty size), rules/shengji.md Variants
LAYOUT = {1: (12, 6), 2: (25, 8), 3: (39, 6), 4: (54, 0)}
MAX_THROW_PENALTY = 1000
"""Option ``throw_penalty``: at most this many points per card of a failed throw."""
OPTIONS = ("constant_twos", "two_colour", "no_declaration", "throw_penalty", "match_end")


class ShengjiGame(Game):
    """One Shengji variant; subclasses fix the number of decks."""

    decks: ClassVar[int] = 2
    hands_shown_at: ClassVar[str] = "trump"  # once the dealing is over
    turn = "counter-clockwise"  # 000: 按逆時針方向輪流出牌

    @classmethod
    def check_options(cls, options: Mapping[str, Any]) -> Mapping[str, Any]:
        unknown = set(options) - set(OPTIONS)
        if unknown:
            raise ConfigError(
                f"unknown {noun(len(unknown), 'option')} for {cls.name}: "
                f"{', '.join(sorted(unknown))}; known: {', '.join(OPTIONS)}"
            )
        checked = {
            "constant_twos": _flag(options, "constant_twos", cls.decks == 4),
            "two_colour": _flag(options, "two_colour", False),
            "no_declaration": options.get("no_declaration", "notrump"),
            "throw_penalty": options.get("throw_penalty", 0),
            "match_end": options.get("match_end", "pass_a"),
        }
        if cls.decks == 4 and not checked["constant_twos"]:
            raise ConfigError("with 4 decks the 2s are always trumps: constant_twos cannot be off")
        if checked["two_colour"] and cls.decks != 1:
            raise ConfigError(f"two_colour is a 1-deck option, not for {cls.name}")
        if checked["no_declaration"] not in ("notrump", "flip_kitty"):
            got = checked["no_declaration"]
            raise ConfigError(f"no_declaration must be 'notrump' or 'flip_kitty', got {got!r}")
        whole_number("throw_penalty", checked["throw_penalty"], 0, MAX_THROW_PENALTY)
        if checked["match_end"] not in ("pass_a", "reach_a"):
            raise ConfigError(
                f"match_end must be 'pass_a' or 'reach_a', got {checked['match_end']!r}"
            )
        return checked

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        hand, kitty = LAYOUT[self.decks]
        self.rules = ShengjiRules(self.decks, hand, kitty, **self.options)
        """The variant's fixed facts and options (immutable, shared by its deals)."""

    def first_setup(self) -> ShengjiSetup:
        return ShengjiSetup()

    def new_deal(
        self,
        setup: Any = None,
        *,
        seed: int | None = None,
        hands: Sequence[Sequence[Card]] | None = None,
    ) -> ShengjiState:
        setup = setup if setup is not None else ShengjiSetup()
        if not isinstance(setup, ShengjiSetup):
            raise ConfigError(f"{self.name} needs a ShengjiSetup, got {type(setup).__name__}")
        _check_setup(setup)
        if hands is None:
            if seed is None:
                raise ConfigError("a deal needs a seed or explicit hands")
            order = shuffled_deck(self.decks, seed)
        else:
            order = self._deal_order(hands, setup)
        return ShengjiState(order, setup, self.rules)

    def _deal_order(self, hands: Sequence[Sequence[Card] | str], setup: ShengjiSetup) -> list[Card]:
        """Explicit hands (and the kitty as a fifth list) dealt one card at a time (SJ-7)."""
        hand_size, kitty_size = LAYOUT[self.decks]
        parsed = [parse_cards(h) if isinstance(h, str) else tuple(h) for h in hands]
        if len(parsed) not in (4, 5) or (len(parsed) == 4 and kitty_size):
            raise ConfigError(
                f"{self.name} needs 4 hands of {counted(hand_size, 'card')}"
                + (f" and a kitty of {kitty_size}" if kitty_size else "")
            )
        kitty = parsed[4] if len(parsed) == 5 else ()
        for seat, hand in enumerate(parsed[:4]):
            if len(hand) != hand_size:
                raise ConfigError(
                    f"hand of seat {seat} has {counted(len(hand), 'card')}, expected {hand_size}"
                )
        if len(kitty) != kitty_size:
            raise ConfigError(f"the kitty has {counted(len(kitty), 'card')}, expected {kitty_size}")
        counts = Counter(c for h in parsed for c in h)
        extra = [c for c, n in counts.items() if n > self.decks]
        if extra:
            raise ConfigError(
                f"more than {self.decks} of {format_cards(sorted(extra))} (SJ: {self.decks} decks)"
            )
        start = 0 if setup.dealer is None else setup.dealer
        order: list[Card] = []
        for k in range(hand_size):
            for i in range(NUM_SEATS):
                order.append(parsed[(start + i) % NUM_SEATS][k])
        return order + list(kitty)

    def describe_event(self, event: Event, state: State) -> str:
        assert isinstance(state, ShengjiState)
        return text.describe_event(event, state)

    def describe_outcome(self, outcome: Outcome) -> str:
        return outcome.summary

    def setup_to_dict(self, setup: Any) -> dict[str, Any]:
        assert isinstance(setup, ShengjiSetup)
        return {
            "levels": list(setup.levels),
            "dealer": setup.dealer,
            "deal_index": setup.deal_index,
        }

    def setup_from_dict(self, data: Mapping[str, Any]) -> ShengjiSetup:
        try:
            levels = tuple(int(x) for x in data.get("levels", (0, 0)))
            dealer = data.get("dealer")
            setup = ShengjiSetup(
                levels=(levels[0], levels[1]),
                dealer=None if dealer is None else int(dealer),
                deal_index=int(data.get("deal_index", 0)),
            )
        except (TypeError, ValueError, IndexError) as err:
            raise ConfigError(f"bad {self.name} setup {dict(data)!r}: {err}") from None
        _check_setup(setup)
        return setup


def _flag(options: Mapping[str, Any], name: str, default: bool) -> bool:
    value = options.get(name, default)
    if isinstance(value, str) and value.lower() in (
        "true",
        "false",
        "1",
        "0",
        "yes",
        "no",
        "on",
        "off",
    ):
        return value.lower() in ("true", "1", "yes", "on")
    if isinstance(value, bool) or value in (0, 1):
        return bool(value)
    raise ConfigError(f"{name} must be true or false, got {value!r}")


def _check_setup(setup: ShengjiSetup) -> None:
    if any(not 0 <= lv <= 12 for lv in setup.levels):
        raise ConfigError(f"levels must be ranks 2..A (0..12), got {setup.levels}")
    if setup.dealer is not None and setup.dealer not in range(NUM_SEATS):
        raise ConfigError(f"dealer must be a seat 0..3, got {setup.dealer}")


def variants() -> list[type[ShengjiGame]]:
    """The four registered variants, ``shengji-1`` … ``shengji-4``."""
    made = []
    for decks in (1, 2, 3, 4):
        made.append(
            type(
                f"Shengji{decks}Game", (ShengjiGame,), {"name": f"shengji-{decks}", "decks": decks}
            )
        )
    return made
