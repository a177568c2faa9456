"""One deal drawn as a card table: what every game shares (seats, tricks, log, frames).

:class:`DealView` follows a deal's public events (Watch ``events`` as dicts) one step at
a time and draws a frame after each: the seats, the trick on the table, the last trick,
the log lines and the moment of the step. Each game subclasses it
(:mod:`arena.web.table_guandan`, :mod:`arena.web.table_shengji`,
:mod:`arena.web.table_sanfu`) for its own events, facts and marks; an event kind no
game knows is still logged, with the server's description.

Every seat an event names is a seat of the table the deal is played at (as its
DealStarted shows it). Every text names a seat's player where they sit
(:meth:`Words.named`: ``heuristic (E)``; relative to the viewer on a person's own page:
``heuristic (left)``) and a team by its side (``N–S``, ``us``), so that bots of one name
are told apart. A frame's ``totals`` and a seat's ``total`` are the match totals
of the players (DealResult totals are by player index; in sanfu a player moves between
deals).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from arena.games.base import NUM_SEATS, team_of
from arena.web.table_hands import Hands
from arena.web.table_text import Words, person_name, position_of, where_key

__all__ = ["DealView", "Event", "MatchFacts", "entry", "event_cards", "event_seat", "number"]

Event = Mapping[str, Any]
"""A Watch event as a dict (``seq, deal, kind, seat, cards, target, value, tag …``)."""
Handler = Callable[[Event], str | None]


def event_seat(event: Event, key: str = "seat") -> int | None:
    """The seat an event names (absent: none; seat 0 is present, the field is optional)."""
    seat = event.get(key)
    return None if seat is None else int(seat)


def event_cards(event: Event) -> list[str]:
    return [str(card) for card in event.get("cards", ())]


def entry(seat: int, cards: list[str], label: str = "", passed: bool = False) -> dict[str, Any]:
    """One play on the table (or cards shown there: a tribute, a declaration, the kitty).

    ``best``: the play that wins the trick so far; ``failed`` and ``tried``: a failed
    throw's forced cards and what was tried (SJ-17).
    """
    return {
        "seat": seat,
        "cards": cards,
        "pass": passed,
        "label": label,
        "failed": False,
        "tried": None,
        "best": False,
    }


def number(value: Any, default: int = 0) -> int:
    """An integer from a Struct value (Struct numbers arrive as floats)."""
    return default if value is None else int(value)


@dataclass(frozen=True)
class MatchFacts:
    """What a deal needs to know of its match: the game, its variant and options, players."""

    game: str
    variant: str
    options: Mapping[str, Any]
    players: Sequence[str]
    decks: int | None
    turn: str | None = None
    """Where the turn goes round (``counter-clockwise``, ``clockwise``)."""
    max_deals: int | None = None
    """The deals the match is cut to (a table opened for fewer than the game's), if any."""
    viewer: int | None = None
    """The player whose own page draws the table (named ``you``, drawn south); None: the
    match's page, seats named by compass, seat 0 south."""


@dataclass
class SeatState:
    seat: int
    player_name: str
    player: int
    where: str = "south"
    """Where the seat sits (a ``table.where.*`` key)."""
    name: str = ""
    """How the texts name the seat's player: with where they sit (:meth:`Words.named`)."""
    count: int | None = None
    out: int | None = None
    role: str | None = None
    auto: bool = False
    fled: bool = False
    points: int | None = None


@dataclass
class Step:
    """What one step did: who acted, its log lines and its moment."""

    actor: int | None = None
    log: list[dict[str, Any]] = field(default_factory=list)
    moment: dict[str, str] | None = None


class DealView:
    """A deal's table, changed one event at a time (games override ``on_<kind>``)."""

    game: ClassVar[str] = ""
    double_out: ClassVar[str] = "double_out"
    """The moment of a team going out first and second."""
    scores_points: ClassVar[bool] = False
    climbing: ClassVar[bool] = False
    """Whether the last play of a trick is the one that wins it so far (Guandan, sanfu)."""
    """Whether seats take points (Shengji tricks, sanfu captures)."""

    def __init__(self, words: Words, match: MatchFacts, started: Mapping[str, Any]) -> None:
        self.words = words
        self.match = match
        self.number = number(started.get("deal"), 1)
        self.setup: Mapping[str, Any] = started.get("setup") or {}
        seating = list(started.get("seating") or [])
        players = [int(p) for p in started.get("players") or range(NUM_SEATS)]
        viewer = match.viewer
        self.relative = viewer is not None and viewer in players
        self.bottom = players.index(viewer) if viewer is not None and self.relative else 0
        relative = self.relative
        self.seats = [
            SeatState(
                seat,
                seating[seat] if seat < len(seating) else _name(match.players, players[seat]),
                players[seat],
                where=where_key(seat, self.bottom, match.turn, relative),
                points=0 if self.scores_points else None,
            )
            for seat in range(NUM_SEATS)
        ]
        for state in self.seats:
            state.name = words.named(state.player_name, state.where)
        self.table: list[dict[str, Any]] = []
        self.table_is_trick = False
        self.trick_done = False
        self.last_trick: list[dict[str, Any]] | None = None
        self.trick = 0
        self.pending_auto = [False] * NUM_SEATS
        self.step = Step()
        self.handlers: dict[str, Handler] = {
            "auto": self.on_auto,
            "fled": self.on_fled,
            "lead": self.on_lead,
            "play": self.on_play,
            "pass": self.on_pass,
            "out": self.on_out,
        }

    # ---------------------------------------------------------------- events

    def apply(self, events: Sequence[Event], actor: int | None) -> Step:
        """Follow one step's events; what the step did."""
        self.step = Step(actor=actor)
        for event in events:
            handler = self.handlers.get(str(event.get("kind", "")))
            text = handler(event) if handler else self.unknown(event)
            if text is not None:
                seat = event_seat(event)
                self.step.log.append(
                    {
                        "seat": seat,
                        "kind": str(event.get("kind", "")),
                        "text": self.line(seat, text),
                        "auto": seat is not None and self.seats[seat].auto,
                    }
                )
        return self.step

    def seat_of(self, event: Event, key: str = "seat") -> int:
        """The seat an event must name; a clear error for an event that names none."""
        seat = event_seat(event, key)
        if seat is None or not 0 <= seat < NUM_SEATS:
            raise ValueError(f"a {event.get('kind')!r} event without a seat {key}: {event}")
        return seat

    def line(self, seat: int | None, text: str) -> str:
        if seat is None:
            return text
        return self.words("log.seat", name=self.seats[seat].name, seat=seat, text=text)

    def unknown(self, event: Event) -> str:
        """An event kind the table does not know: the server's description."""
        return str(event.get("description") or event.get("kind", ""))

    def moment(self, kind: str, text: str) -> None:
        """The step's moment; a step with several says them all, the last one's kind."""
        earlier = self.step.moment
        if earlier is not None:
            text = self.words("moment.then", first=earlier["text"], then=text)
        self.step.moment = {"kind": kind, "text": text}

    def acted(self, seat: int) -> None:
        """``seat`` made a decision: automatic if an ``auto`` event announced it."""
        self.seats[seat].auto = self.pending_auto[seat]
        self.pending_auto[seat] = False

    def on_auto(self, event: Event) -> str:
        seat = event_seat(event)
        if seat is not None:
            self.pending_auto[seat] = True
            self.seats[seat].auto = True
        return self.words("event.auto")

    def on_fled(self, event: Event) -> str:
        seat = event_seat(event)
        if seat is not None:
            self.seats[seat].fled = True
            self.moment("fled", self.words("moment.fled", name=self.seats[seat].name))
        return self.words("event.fled")

    def on_lead(self, event: Event) -> str | None:
        self.trick_done = True
        if event.get("tag") == "partner":
            return self.words("event.lead_partner")
        return self.words("event.lead")

    def open_trick(self) -> None:
        """A play or pass of a new trick: the finished one becomes the last trick."""
        if not self.trick_done:
            return
        if self.table_is_trick and self.table:
            self.last_trick = self.table
        self.table, self.table_is_trick, self.trick_done = [], True, False
        self.trick += 1

    def put(self, seat: int, cards: list[str], label: str = "", passed: bool = False) -> None:
        self.open_trick()
        self.table.append(entry(seat, cards, label, passed))

    def show(self, entries: list[dict[str, Any]]) -> None:
        """Cards shown on the table outside a trick (tribute, a turned kitty …)."""
        if self.table_is_trick and self.table:
            self.last_trick = self.table
        self.table, self.table_is_trick, self.trick_done = entries, False, True

    def mark_best(self, seat: int) -> None:
        """The latest play of ``seat`` is the one that wins (so far)."""
        plays = [e for e in self.table if e["seat"] == seat and not e["pass"]]
        for shown in self.table:
            shown["best"] = bool(plays) and shown is plays[-1]

    def on_play(self, event: Event) -> str:
        seat = self.seat_of(event)
        cards = event_cards(event)
        self.acted(seat)
        label = self.play_label(event)
        self.put(seat, cards, label)
        self.played(seat, len(cards))
        if self.climbing:
            self.mark_best(seat)
        shown = self.words.cards(cards)
        if label:
            return self.words("event.play_as", cards=shown, label=label)
        return self.words("event.play", cards=shown)

    def play_label(self, event: Event) -> str:
        """The name of a play's combination, if the game says it."""
        return self.words.kind(self.game, str(event.get("tag", "")))

    def played(self, seat: int, cards: int) -> None:
        """``seat`` put ``cards`` cards out of its hand."""
        count = self.seats[seat].count
        if count is not None:
            self.seats[seat].count = count - cards

    def on_pass(self, event: Event) -> str:
        seat = self.seat_of(event)
        self.acted(seat)
        self.put(seat, [], passed=True)
        return self.words("event.pass")

    def on_out(self, event: Event) -> str:
        seat = self.seat_of(event)
        place = number(event.get("value"), 1)
        self.seats[seat].out = place
        name = self.seats[seat].name
        self.moment("out", self.words("moment.out", name=name, place=self.place(place)))
        first = next((s.seat for s in self.seats if s.out == 1), None)
        if place == 2 and first is not None and team_of(first) == team_of(seat):
            self.first_and_second(team_of(seat))
        return self.words("event.out", place=self.place(place))

    def first_and_second(self, team: int) -> None:
        """Both players of ``team`` went out first and second (Guandan 双下, sanfu 抬了)."""
        self.moment(
            self.double_out, self.words(f"moment.{self.double_out}", team=self.team_text(team))
        )

    def place(self, place: int) -> str:
        return self.words.place(self.game, place)

    # ---------------------------------------------------------------- result

    def result(self, result: Mapping[str, Any]) -> Step:
        """The deal's result: its moment and log line."""
        self.step = Step()
        text = self.result_text(result.get("details") or {}, result)
        self.moment(self.result_moment(result.get("details") or {}), text)
        self.step.log.append({"seat": None, "kind": "deal_result", "text": text, "auto": False})
        return self.step

    def result_moment(self, details: Mapping[str, Any]) -> str:
        return "fled" if "forfeit" in details or "fled" in details else "deal_result"

    def result_text(self, details: Mapping[str, Any], result: Mapping[str, Any]) -> str:
        """The deal's result in words (games override; a forfeit is said the same way)."""
        if "forfeit" in details:
            seat = number(details["forfeit"])
            return self.words(
                "result.forfeit",
                name=self.seats[seat].name,
                team=self.team_text(1 - team_of(seat)),
            )
        return str(result.get("summary", ""))

    def side(self, team: int) -> str:
        """The side of the table a team sits on (a ``table.side.*`` key): ``us`` or
        ``them`` on a player's own page, else ``north_south`` or ``east_west``."""
        if self.relative:
            return "us" if team_of(self.bottom) == team else "them"
        north_south = position_of(team, self.bottom, self.match.turn) in (0, 2)
        return "north_south" if north_south else "east_west"

    def side_text(self, team: int) -> str:
        return self.words(f"side.{self.side(team)}")

    def team_text(self, team: int) -> str:
        """A team by its side and its players' names."""
        names = [person_name(self.seats[s].player_name) for s in (team, team + 2)]
        return self.words.team(self.side(team), names)

    def by_team(self, values: Sequence[str]) -> str:
        """Two values of the teams, each named by its side (``N–S 9 · E–W 8``); the
        viewer's team first on their own page."""
        order = (team_of(self.bottom), 1 - team_of(self.bottom)) if self.relative else (0, 1)
        return self.words(
            "by_team",
            first=self.side_text(order[0]),
            a=values[order[0]],
            second=self.side_text(order[1]),
            b=values[order[1]],
        )

    # ---------------------------------------------------------------- frames

    def facts(self) -> list[list[str]]:
        """Localized header facts (label, value)."""
        return [[self.words("fact.deal"), str(self.number)]]

    def marks(self) -> dict[str, Any]:
        return {"level": None, "trump": None, "wild": []}

    def public_count(self, seat: int) -> int | None:
        """The cards left in ``seat``'s hand when the rules make it public, else None."""
        return self.seats[seat].count

    def frame(
        self,
        index: int,
        seq: int,
        step: Step,
        totals: Sequence[int],
        hands: Hands | None,
    ) -> dict[str, Any]:
        seats = []
        for state in self.seats:
            hand = list(hands[state.seat]) if hands is not None else None
            seats.append(
                {
                    "seat": state.seat,
                    "name": person_name(state.player_name),
                    "where": self.words(f"where.{state.where}"),
                    "player": state.player,
                    "team": team_of(state.seat),
                    "hand": hand,
                    "count": len(hand) if hand is not None else self.public_count(state.seat),
                    "out": state.out,
                    "role": state.role,
                    "auto": state.auto,
                    "fled": state.fled,
                    "points": state.points,
                    "total": totals[state.player] if state.player < len(totals) else 0,
                }
            )
        return {
            "i": index,
            "deal": self.number,
            "seq": seq,
            "trick": self.trick,
            "actor": step.actor,
            "log": step.log,
            "seats": seats,
            "table": [dict(shown) for shown in self.table],
            "last_trick": None
            if self.last_trick is None
            else [dict(shown) for shown in self.last_trick],
            "facts": self.facts(),
            "marks": self.marks(),
            "moment": step.moment,
            "totals": list(totals),
            "sides": [self.side_text(0), self.side_text(1)],
        }


def _name(players: Sequence[str], player: int) -> str:
    return players[player] if 0 <= player < len(players) else ""
