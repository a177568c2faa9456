"""Shengji's table: declarations, trump, the kitty, failed throws, points per trick.

- SJ-8/SJ-10: every declaration is a moment — the first (亮主), a stronger one by
  another player (反主), the standing declarer's own (自保); with four decks only the
  number of level cards, never the suit (暗叫).
- SJ-12/SJ-13: the dealer (庄家) and partner are the declarers, the others the defenders
  (抓分方); the dealer takes the kitty (底牌) and buries as many cards face down.
- SJ-17: a failed throw (甩牌失败) shows what was tried and what was forced, and the
  penalty the option gives.
- SJ-22: each trick's points go to its winner; the defenders' total is a fact.
- SJ-25/SJ-30: the kitty turned over at the end with its multiplier and bonus (抠底),
  or with four decks the last trick's settlement.
- Counts: after the dealing every hand's size is public (each player plays as many
  cards as the lead); while cards are still being dealt no count is shown.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from arena.cards import RANKS, SUITS, Card, parse_cards
from arena.games.base import team_of
from arena.games.shengji import scoring
from arena.games.shengji.order import TrumpOrder
from arena.games.shengji.trick import largest_unit_cards, widest_set
from arena.web.table_deal import (
    DealView,
    Event,
    MatchFacts,
    entry,
    event_cards,
    event_seat,
    number,
)
from arena.web.table_text import Words

__all__ = ["ShengjiView"]

HAND_SIZES = {1: 12, 2: 25, 3: 39, 4: 54}
"""Cards each player holds once the dealing is over (rules/shengji.md, Variants)."""
COLOURS = ("black", "red")
JOKERS = ("SJ", "BJ")
Measure = Callable[[Sequence[Card], TrumpOrder], int]
"""A size of a play in a deal's order: its largest combination, its widest set."""


class ShengjiView(DealView):
    game = "shengji"
    scores_points = True

    def __init__(self, words: Words, match: MatchFacts, started: Mapping[str, Any]) -> None:
        super().__init__(words, match, started)
        levels = self.setup.get("levels") or (0, 0)
        self.levels = (number(levels[0]), number(levels[1]))
        self.decks = match.decks or 2
        self.level = self.levels[0]
        self.dealer: int | None = None
        self.trump: str | None = None
        self.declaration: tuple[int, str] | None = None
        self.declared_suit = ""
        self.defender_points = 0
        self.kitty_size = 0
        self.buried = 0
        self.kitty: list[str] | None = None
        self.pending_throw: tuple[int, list[str]] | None = None
        self.handlers.update(
            deal=self.on_deal,
            declare=self.on_declare,
            dealt=self.on_dealt,
            trump=self.on_trump,
            kitty_taken=self.on_kitty_taken,
            bury=self.on_bury,
            throw_failed=self.on_throw_failed,
            trick=self.on_trick,
            kitty=self.on_kitty,
        )

    def name(self, seat: int | None) -> str:
        return "" if seat is None else self.seats[seat].name

    # ------------------------------------------------------------ dealing

    def on_deal(self, event: Event) -> str:
        self.level = number(event.get("value"), self.level)
        return self.words(
            "event.shengji.deal",
            level=self.words.rank(self.level),
            name=self.name(event_seat(event)),
        )

    def on_declare(self, event: Event) -> str:
        seat = self.seat_of(event)
        self.acted(seat)
        cards = event_cards(event)
        hidden = event.get("tag") == "hidden" or not cards  # SJ-10: the suit stays hidden
        shown = self.words.cards(cards)
        n = number(event.get("value"), len(cards))
        suit = "" if hidden else "notrump" if all(c in JOKERS for c in cards) else cards[0][-1]
        which = self._which_declaration(seat, suit)
        suffix = "_hidden" if hidden else ""
        self.declaration = (seat, self.words("fact.hidden_cards", n=n) if hidden else shown)
        self.declared_suit = suit
        label = self.words("label.declare" if which == "declare" else "label.override")
        self.show([entry(seat, cards, label)])
        self.moment(
            "declare", self.words(f"moment.{which}{suffix}", name=self.name(seat), cards=shown, n=n)
        )
        if hidden:
            return self.words("event.declare_hidden", n=n)
        return self.words("event.declare", cards=shown)

    def _which_declaration(self, seat: int, suit: str) -> str:
        """亮主 (the first), 自保 (the standing declarer, same suit), 自反 (the standing
        declarer, another suit) or 反主 (another player) — SJ-8."""
        if self.declaration is None:
            return "declare"
        if self.declaration[0] != seat:
            return "override"
        return "strengthen" if suit and suit == self.declared_suit else "self_override"

    def on_dealt(self, event: Event) -> str:
        for state in self.seats:
            state.count = HAND_SIZES.get(self.decks)
        return self.words("event.dealt")

    def on_trump(self, event: Event) -> str:
        seat = self.seat_of(event)
        self.dealer = seat
        self.level = number(event.get("value"), self.level)
        self.trump = str(event.get("tag") or "notrump")
        for state in self.seats:
            state.role = (
                "dealer"
                if state.seat == seat
                else "declarer"
                if team_of(state.seat) == team_of(seat)
                else "defender"
            )
            if state.count is None:
                state.count = HAND_SIZES.get(self.decks)
        trump = self.words.suit(self.trump)
        flipped = event_cards(event)
        if flipped:  # SJ-8 flip_kitty: the kitty's 4th card names the suit
            shown = self.words.cards(flipped)
            self.show([entry(seat, flipped, self.words("label.kitty"))])
            self.moment(
                "declare",
                self.words("moment.trump_flipped", name=self.name(seat), cards=shown, trump=trump),
            )
            return self.words("event.trump_flipped", cards=shown, trump=trump)
        self.moment("declare", self.words("moment.trump", name=self.name(seat), trump=trump))
        return self.words("event.trump", trump=trump)

    def on_kitty_taken(self, event: Event) -> str:
        seat = self.seat_of(event)
        self.kitty_size = number(event.get("value"))
        count = self.seats[seat].count
        self.seats[seat].count = None if count is None else count + self.kitty_size
        self.moment(
            "kitty", self.words("moment.kitty_taken", name=self.name(seat), n=self.kitty_size)
        )
        return self.words("event.kitty_taken", n=self.kitty_size)

    def on_bury(self, event: Event) -> str:
        seat = self.seat_of(event)
        self.acted(seat)
        self.played(seat, 1)
        self.buried += 1
        if self.buried == self.kitty_size:
            self.moment("kitty", self.words("moment.buried", name=self.name(seat), n=self.buried))
        return self.words("event.bury")

    # ---------------------------------------------------------------- play

    def on_throw_failed(self, event: Event) -> str:
        seat = self.seat_of(event)
        tried = event_cards(event)
        self.pending_throw = (seat, tried)
        penalty = number(self.match.options.get("throw_penalty"))
        if penalty and self.dealer is not None:
            self.defender_points = scoring.throw_penalty_points(
                penalty,
                len(tried),
                team_of(seat) != team_of(self.dealer),
                self.defender_points,
            )
        return self.words("event.throw_failed", cards=self.words.cards(tried))

    def on_play(self, event: Event) -> str:
        text = super().on_play(event)
        seat = event_seat(event)
        if self.pending_throw is not None and self.pending_throw[0] == seat:
            tried = self.pending_throw[1]
            self.pending_throw = None
            forced = self.table[-1]
            forced.update(failed=True, tried=tried, label=self.words("label.throw"))
            line = self.words(
                "moment.throw_failed",
                name=self.name(seat),
                tried=self.words.cards(tried),
                forced=self.words.cards(forced["cards"]),
            )
            if number(self.match.options.get("throw_penalty")):
                line += self.words("moment.throw_penalty", points=self.defender_points)
            self.moment("throw_failed", line)
        return text

    def on_trick(self, event: Event) -> str:
        seat = self.seat_of(event)
        points = number(event.get("value"))
        points_of = self.seats[seat].points or 0
        self.seats[seat].points = points_of + points
        if self.dealer is not None and team_of(seat) != team_of(self.dealer):
            self.defender_points += points
        self.mark_best(seat)
        return self.words("event.trick", n=points)

    def on_kitty(self, event: Event) -> str:
        seat = self.seat_of(event)
        cards = event_cards(event)
        value = number(event.get("value"))
        winner = next((e for e in self.table if e["best"]), None)
        self.defender_points += value
        if self.decks == 4:  # SJ-30: no kitty, the last trick settles
            width = self._last_width(winner, widest_set)
            self.moment(
                "kitty", self.words("moment.kitty_settled", width=width, value=f"{value:+d}")
            )
            return self.words("event.kitty_hidden")
        self.kitty = cards
        shown = self.words.cards(cards)
        self.show([entry(seat, cards, self.words("label.kitty"))])
        defenders_won = (
            winner is not None
            and self.dealer is not None
            and team_of(winner["seat"]) != team_of(self.dealer)
        )
        if defenders_won:
            multiplier = scoring.kitty_multiplier(self._last_width(winner, largest_unit_cards))
            self.moment(
                "kitty",
                self.words(
                    "moment.kitty_bonus",
                    cards=shown,
                    points=scoring.points_in(parse_cards(" ".join(cards))),
                    multiplier=multiplier,
                    bonus=value,
                ),
            )
        else:
            self.moment("kitty", self.words("moment.kitty_kept", cards=shown))
        return self.words("event.kitty", cards=shown)

    def _last_width(self, winner: dict[str, Any] | None, measure: Measure) -> int:
        """A measure (largest combination, widest set) of the last trick's winning play."""
        if winner is None or self.trump is None:
            return 1
        trump = self.trump
        suit = (
            None
            if trump == "notrump"
            else (COLOURS.index(trump) if trump in COLOURS else SUITS.index(trump))
        )
        order = TrumpOrder(
            self.level,
            suit,
            bool(self.match.options.get("constant_twos")) or self.decks == 4,
            bool(self.match.options.get("two_colour")),
        )
        return int(measure(parse_cards(" ".join(winner["cards"])), order))

    # ------------------------------------------------------------- facts

    def facts(self) -> list[list[str]]:
        w = self.words
        facts = [
            *super().facts(),
            [w("fact.level"), w.rank(self.level)],
            [w("fact.levels"), self.by_team([w.rank(level) for level in self.levels])],
        ]
        if self.declaration is not None:
            facts.append(
                [w("fact.declaration"), f"{self.name(self.declaration[0])} {self.declaration[1]}"]
            )
        if self.trump is not None:
            facts.append([w("fact.trump"), w.suit(self.trump)])
        if self.dealer is not None:
            facts.append([w("fact.dealer"), self.name(self.dealer)])
            facts.append([w("fact.defender_points"), str(self.defender_points)])
        if self.kitty is not None:
            facts.append([w("fact.kitty"), w.cards(self.kitty)])
        return facts

    def marks(self) -> dict[str, Any]:
        return {"level": RANKS[self.level], "trump": self.trump, "wild": []}

    def public_count(self, seat: int) -> int | None:
        return self.seats[seat].count

    def result_text(self, details: Mapping[str, Any], result: Mapping[str, Any]) -> str:
        if "forfeit" in details:
            return super().result_text(details, result)
        w = self.words
        gain = number(details.get("gain"))
        declarers = number(details.get("declarer_team"), team_of(self.dealer or 0))
        take_over = bool(details.get("take_over"))
        verdict = w(
            "result.take_over" if take_over else "result.declarers_up",
            gain=gain,
            team=self.team_text(1 - declarers if take_over else declarers),
        )
        before = details.get("levels_before") or self.levels
        after = details.get("levels_after") or self.levels
        self.defender_points = number(details.get("defender_points"), self.defender_points)
        text = w(
            "result.shengji",
            points=self.defender_points,
            verdict=verdict,
            before=self.by_team([w.rank(number(level)) for level in before]),
            after=self.by_team([w.rank(number(level)) for level in after]),
        )
        winner = details.get("match_winner")
        if winner is not None:
            text += w("result.match_won", team=self.team_text(number(winner)))
        return text
