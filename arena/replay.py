"""Match records (JSON) and their verification by re-playing them.

A record holds the game, its options, the match seed, the players and, for each
deal, its setup, its seed (or explicit hands), every action in text form and
the result. :func:`verify` re-plays a record through the engine: every action
must be legal, every deal must end with the recorded result, and each deal's
setup must be the one the previous deal led to.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.cards import parse_cards
from arena.errors import ArenaError, ParseError
from arena.games import make
from arena.games.base import NUM_SEATS, Game, Outcome, State

FORMAT = "arena-record/1"


class ReplayError(ArenaError):
    """A record that does not re-play to what it says."""


@dataclass
class DealRecord:
    """One deal: how it started, every action, how it ended."""

    setup: dict[str, Any]
    actions: list[str] = field(default_factory=list)
    seed: int | None = None
    hands: list[str] | None = None
    result: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"setup": self.setup}
        if self.seed is not None:
            data["seed"] = self.seed
        if self.hands is not None:
            data["hands"] = self.hands
        data["actions"] = self.actions
        data["result"] = self.result
        return data


@dataclass
class MatchRecord:
    """A whole match, JSON-ready."""

    game: str
    options: dict[str, Any]
    seed: int | None
    players: list[str]
    deals: list[DealRecord] = field(default_factory=list)
    result: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "game": self.game,
            "options": self.options,
            "seed": self.seed,
            "players": self.players,
            "deals": [d.to_dict() for d in self.deals],
            "result": self.result,
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=1)

    def save(self, path: Path | str) -> None:
        Path(path).write_text(self.to_json() + "\n", encoding="utf-8")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MatchRecord:
        try:
            if data.get("format") != FORMAT:
                raise ParseError(
                    f"not an arena record: format is {data.get('format')!r}, expected {FORMAT!r}"
                )
            deals = [
                DealRecord(
                    setup=dict(d["setup"]),
                    actions=[str(a) for a in d["actions"]],
                    seed=None if d.get("seed") is None else int(d["seed"]),
                    hands=None if d.get("hands") is None else [str(h) for h in d["hands"]],
                    result=dict(d.get("result", {})),
                )
                for d in data["deals"]
            ]
            return cls(
                game=str(data["game"]),
                options=dict(data.get("options", {})),
                seed=data.get("seed"),
                players=[str(p) for p in data.get("players", [])],
                deals=deals,
                result=dict(data.get("result", {})),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as err:
            if isinstance(err, ParseError):
                raise
            raise ParseError(f"malformed record: {type(err).__name__}: {err}") from None

    @classmethod
    def load(cls, path: Path | str) -> MatchRecord:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except OSError as err:
            raise ParseError(f"cannot read record {str(path)!r}: {err.strerror}") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as err:
            raise ParseError(f"{path}: not a JSON record ({err})") from None
        if not isinstance(data, dict):
            raise ParseError(f"{path}: a record is a JSON object")
        return cls.from_dict(data)


def outcome_to_dict(outcome: Outcome) -> dict[str, Any]:
    return {
        "scores": list(outcome.scores),
        "summary": outcome.summary,
        "details": dict(outcome.details),
    }


def start_deal(game: Game, deal: DealRecord) -> State:
    """The state at the start of a recorded deal."""
    setup = game.setup_from_dict(deal.setup)
    hands = None if deal.hands is None else [parse_cards(h) for h in deal.hands]
    return game.new_deal(setup, seed=deal.seed, hands=hands)


@dataclass(frozen=True)
class ReplayReport:
    deals: int
    actions: int
    result: dict[str, Any]


def verify(record: MatchRecord) -> ReplayReport:
    """Re-play ``record``; raise :class:`ReplayError` at the first difference.

    Every deal's result is checked; the match-level result when the record has one.
    """
    game = make(record.game, **record.options)
    expected_setup: dict[str, Any] | None = None
    outcomes: list[Outcome] = []
    actions = 0
    for number, deal in enumerate(record.deals, start=1):
        where = f"deal {number}"
        try:
            setup = game.setup_to_dict(game.setup_from_dict(deal.setup))
            state = start_deal(game, deal)
        except ArenaError as err:
            raise ReplayError(f"{where}: cannot start the deal: {err}") from None
        if expected_setup is not None and setup != expected_setup:
            raise ReplayError(
                f"{where}: setup {deal.setup} is not what deal {number - 1} "
                f"led to ({expected_setup})"
            )
        for index, text in enumerate(deal.actions, start=1):
            if state.is_terminal():
                raise ReplayError(f"{where}, action {index} {text!r}: the deal is already over")
            try:
                replay_entry(state, text)
            except ArenaError as err:
                raise ReplayError(f"{where}, action {index}: {err}") from None
            actions += 1
        if not state.is_terminal():
            raise ReplayError(
                f"{where}: the recorded actions end before the deal does "
                f"(seat {state.to_act} to act)"
            )
        outcome = state.outcome()
        got = json.loads(json.dumps(outcome_to_dict(outcome)))
        if got != deal.result:
            raise ReplayError(f"{where}: result differs: recorded {deal.result}, replayed {got}")
        outcomes.append(outcome)
        expected_setup = (
            None if outcome.next_setup is None else game.setup_to_dict(outcome.next_setup)
        )
        if expected_setup is None and number != len(record.deals):
            raise ReplayError(f"{where}: the match ended here but the record goes on")
    result = match_summary(outcomes)
    if record.result and record.result != result:
        raise ReplayError(f"match result differs: recorded {record.result}, replayed {result}")
    return ReplayReport(len(record.deals), actions, result)


def replay_entry(state: State, text: str) -> None:
    """Apply one recorded entry: an action, or a clock mark (``!auto``, ``!fled SEAT``)."""
    if text == "!auto":
        state.note_automatic(state.to_act)
        return
    if text.startswith("!fled"):
        seat = text.split()[-1]
        if not seat.isdigit() or int(seat) not in range(NUM_SEATS):
            raise ParseError(f"bad record entry {text!r}: expected '!fled SEAT'")
        state.flee(int(seat))
        return
    state.apply(state.parse_action(text))


def match_summary(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    """The match-level result of a record: deals, whether the match ended, winner, totals."""
    totals = [0] * NUM_SEATS
    for outcome in outcomes:
        for seat, score in enumerate(outcome.scores):
            totals[seat] += score
    complete = bool(outcomes) and outcomes[-1].match_over
    return {
        "deals": len(outcomes),
        "complete": complete,
        "match_winner": outcomes[-1].match_winner if outcomes else None,
        "totals": totals,
    }
