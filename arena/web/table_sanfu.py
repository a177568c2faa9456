"""sanfu's table: turned cards, partners and seat swaps, captures, sweeps, 报喜, fleeing.

- SF-1: the first two seats dealt get 41 cards, the others 40; counts are public.
- SF-2 … SF-5: each turned card (明牌) and its receiver is a moment, as is every seat
  swap that seats partners opposite; the receivers are marked (role ``turned``).
- SF-10: the last player to play in a trick captures its points (a seat's ``points``);
  the teams' points are their captures until the deal ends, then the engine's settled
  figures (SF-13: the last player's captures and hand go to the other team).
- SF-11/SF-14: a team out first and second is a sweep (抬了).
- SF-16: three jokers played (报喜) is a moment.
- SF-12/SF-15: automatic play and fleeing marked on the seat.

DealStarted already shows the table after the swaps; a ``swap`` event names the seats
both players moved to, and the players (``value``, ``tag``) who moved.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arena.games.base import team_of
from arena.web.table_deal import DealView, Event, MatchFacts, event_cards, number
from arena.web.table_text import Words

__all__ = ["SanfuView"]

DEALT = (41, 41, 40, 40)
"""SF-1: cards dealt to each seat, in dealing order from seat 0."""


class SanfuView(DealView):
    game = "sanfu"
    scores_points = True
    double_out = "sweep"
    climbing = True

    def __init__(self, words: Words, match: MatchFacts, started: Mapping[str, Any]) -> None:
        super().__init__(words, match, started)
        self.deals = number(self.setup.get("deals"))
        if match.max_deals:  # a table opened for fewer deals than the game's
            self.deals = min(self.deals, match.max_deals) if self.deals else match.max_deals
        self.turned: list[tuple[int, str]] = []
        self.settled: list[int] | None = None
        """The teams' points as the deal's result settles them (SF-13)."""
        self.handlers.update(
            deal=self.on_deal, turn=self.on_turn, swap=self.on_swap, capture=self.on_capture
        )

    def player_name(self, player: int) -> str:
        """A player of the match named where they sit in this deal."""
        for state in self.seats:
            if state.player == player:
                return state.name
        players = self.match.players
        return players[player] if 0 <= player < len(players) else str(player)

    def on_deal(self, event: Event) -> str:
        for state, dealt in zip(self.seats, DEALT, strict=True):
            state.count = dealt
        return self.words("event.sanfu.deal", n=number(event.get("value")) + 1)

    def on_turn(self, event: Event) -> str:
        seat = self.seat_of(event)
        cards = event_cards(event)
        shown = self.words.cards(cards)
        self.seats[seat].role = "turned"
        self.turned.append((seat, shown))
        receiver = self.player_name(number(event.get("value")))
        self.moment("turn", self.words("moment.turn", cards=shown, name=receiver))
        return self.words("event.turn", cards=shown)

    def on_swap(self, event: Event) -> str:
        seat, other = self.seat_of(event), self.seat_of(event, "target")
        a, b = self.seats[seat], self.seats[other]
        a.count, b.count = b.count, a.count  # the players take their cards along (SF-4)
        mover = self.player_name(number(event.get("value")))
        moved = self.player_name(number(event.get("tag")))
        self.moment("swap", self.words("moment.swap", mover=mover, other=moved))
        return self.words("event.swap", mover=mover, other=moved)

    def on_play(self, event: Event) -> str:
        text = super().on_play(event)
        seat = self.seat_of(event)
        if event.get("tag") == "joker_triple":  # SF-16: 报喜
            self.moment("bonus", self.words("moment.bonus", name=self.seats[seat].name))
        return text

    def on_capture(self, event: Event) -> str:
        seat = self.seat_of(event)
        points = number(event.get("value"))
        self.seats[seat].points = (self.seats[seat].points or 0) + points
        return self.words("event.capture", n=points)

    def facts(self) -> list[list[str]]:
        w = self.words
        deal = f"{self.number} / {self.deals}" if self.deals else str(self.number)
        facts = [[w("fact.deal"), deal]]
        if self.turned:
            turned = "; ".join(f"{self.seats[s].name} {cards}" for s, cards in self.turned)
            facts.append([w("fact.turned"), turned])
        taken = [0, 0]
        for state in self.seats:
            taken[team_of(state.seat)] += state.points or 0
        if self.settled is not None:
            taken = self.settled
        facts.append([w("fact.team_points"), self.by_team([str(t) for t in taken])])
        return facts

    def result_moment(self, details: Mapping[str, Any]) -> str:
        if details.get("sweep"):
            return "sweep"
        return super().result_moment(details)

    def result_text(self, details: Mapping[str, Any], result: Mapping[str, Any]) -> str:
        w = self.words
        if "fled" in details:
            return w("result.sanfu_fled", name=self.player_name(number(details["fled"])))
        teams = [self._team(players, t) for t, players in enumerate(details.get("teams") or ())]
        points = [number(p) for p in details.get("team_points") or (0, 0)]
        if len(teams) != 2 or len(points) != 2:
            return str(result.get("summary", ""))
        self.settled = points
        text = w(
            "result.sanfu",
            first=teams[0],
            p0=points[0],
            second=teams[1],
            p1=points[1],
            winner=teams[number(details.get("winner_team"))],
            stake=number(details.get("stake")),
        )
        if details.get("sweep"):
            text += w("result.sanfu_sweep")
        bonus = [number(b) for b in details.get("joker_bonus") or ()]
        if any(bonus):
            gains = ", ".join(
                f"{self.player_name(player)} {b:+d}" for player, b in enumerate(bonus) if b
            )
            text += w("result.sanfu_bonus", bonus=gains)
        return text

    def _team(self, players: Sequence[Any], team: int) -> str:
        if len(players) != 2:
            return ", ".join(self.player_name(number(p)) for p in players)
        return self.team_text(team)
