"""Guandan's table: levels and the wild card, tribute and return, 报牌, finishing places.

- GD-4/GD-6: the level played is the level of the team that won the previous deal; its
  rank is marked on every card, the two hearts of it are the wild card (逢人配).
- GD-12: a hand's count is public once it is 10 or fewer (the ``announce`` event, 报牌);
  before that a frame without revealed hands gives no count.
- GD-13 … GD-15: tribute (进贡) and return (还贡) are shown when they are revealed (all
  tributes together, then all returns together), a refusal (抗贡) as a moment.
- GD-2/GD-16: finishing places 头游 … 末游, the levels gained at the deal's end.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.cards import RANKS
from arena.games.guandan.combos import KIND_BY_LABEL, SEQUENCE_KINDS, value_text
from arena.web.table_deal import DealView, Event, MatchFacts, entry, event_cards, event_seat, number
from arena.web.table_text import Words

__all__ = ["GuandanView", "reading_label"]


def reading_label(words: Words, label: str, value: int, level: int) -> str:
    """A play's reading in words: its kind and deciding rank (``pair 7``, ``bomb A``)."""
    kind = KIND_BY_LABEL.get(label)
    if kind is None:
        return words.kind("guandan", label)
    rank = value_text(value, kind in SEQUENCE_KINDS, level)
    shown = words.card(rank) if rank in ("SJ", "BJ") else rank.replace("T", "10")
    return words("kind.with_rank", kind=words.kind("guandan", label), rank=shown)


class GuandanView(DealView):
    game = "guandan"
    climbing = True

    def __init__(self, words: Words, match: MatchFacts, started: Mapping[str, Any]) -> None:
        super().__init__(words, match, started)
        levels = self.setup.get("levels") or (0, 0)
        self.levels = (number(levels[0]), number(levels[1]))
        self.level_team = number(self.setup.get("level_team"))
        self.level = self.levels[self.level_team]
        self.handlers.update(
            deal=self.on_deal,
            announce=self.on_announce,
            tribute=self.on_tribute,
            refuse_tribute=self.on_refuse,
        )
        self.handlers["return"] = self.on_return

    def on_deal(self, event: Event) -> str:
        self.level = number(event.get("value"), self.level)
        return self.words("event.guandan.deal", level=self.words.rank(self.level))

    def play_label(self, event: Event) -> str:
        return reading_label(
            self.words, str(event.get("tag", "")), number(event.get("value")), self.level
        )

    def on_announce(self, event: Event) -> str:
        seat = self.seat_of(event)
        left = number(event.get("value"))
        self.seats[seat].count = left  # GD-12: public from now on
        self.moment("announce", self.words("moment.announce", name=self.seats[seat].name, n=left))
        return self.words("event.announce", n=left)

    def on_out(self, event: Event) -> str:
        seat = self.seat_of(event)
        self.seats[seat].count = 0
        return super().on_out(event)

    def on_tribute(self, event: Event) -> str:
        return self._hand_over(event, "tribute")

    def on_return(self, event: Event) -> str:
        return self._hand_over(event, "return")

    def _hand_over(self, event: Event, kind: str) -> str:
        """A tribute or return card handed over (GD-13/GD-14: all of them at once)."""
        seat, target = self.seat_of(event), self.seat_of(event, "target")
        cards = event_cards(event)
        if self.step.log and self.step.log[-1]["kind"] == kind:
            self.table.append(entry(seat, cards, self.words(f"label.{kind}")))
        else:
            self.show([entry(seat, cards, self.words(f"label.{kind}"))])
        shown = self.words.cards(cards)
        to = self.seats[target].name
        self.moment(
            kind, self.words(f"moment.{kind}", name=self.seats[seat].name, cards=shown, to=to)
        )
        return self.words(f"event.{kind}", cards=shown, to=to)

    def on_refuse(self, event: Event) -> str:
        seat = event_seat(event)
        who = self.seats[seat].name if seat is not None else self.words("guandan.losers")
        self.moment("tribute", self.words("moment.refuse_tribute", name=who))
        return self.words("event.refuse_tribute")

    def public_count(self, seat: int) -> int | None:
        return self.seats[seat].count  # set by 报牌 only (GD-12)

    def facts(self) -> list[list[str]]:
        w = self.words
        return [
            *super().facts(),
            [w("fact.level"), w.rank(self.level)],
            [w("fact.levels"), self.by_team([w.rank(level) for level in self.levels])],
            [w("fact.wild"), w.card(RANKS[self.level] + "h")],
        ]

    def marks(self) -> dict[str, Any]:
        return {"level": RANKS[self.level], "trump": None, "wild": [RANKS[self.level] + "h"]}

    def result_text(self, details: Mapping[str, Any], result: Mapping[str, Any]) -> str:
        if "forfeit" in details:
            return super().result_text(details, result)
        w = self.words
        order = [number(s) for s in details.get("order", ())]
        places = ", ".join(
            f"{self.place(i + 1)} {self.seats[seat].name}" for i, seat in enumerate(order)
        )
        before = details.get("levels_before") or self.levels
        after = details.get("levels_after") or self.levels
        text = w(
            "result.guandan",
            places=places,
            team=self.team_text(number(details.get("winner_team"))),
            gain=number(details.get("gain")),
            before=self.by_team([w.rank(number(level)) for level in before]),
            after=self.by_team([w.rank(number(level)) for level in after]),
        )
        winner = details.get("match_winner")
        if winner is not None:
            text += w("result.match_won_at_a", team=self.team_text(number(winner)))
        return text
