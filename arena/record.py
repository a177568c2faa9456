"""Match records (JSON): what the match driver writes and :mod:`arena.replay` checks.

A record holds the game, its options, the match seed, the players, the clock the
match was played with (if any), why it was cut short (if it was) and, for each deal,
its setup, its seed (or explicit hands), every entry — actions in text form and the
clock's marks (``!auto``, ``!fled SEAT``) — and the result. Reading one (from a file
or from stored JSON) checks every field's type, range and size first
(:mod:`arena.record_schema`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.cards import parse_cards
from arena.errors import ParseError
from arena.games.base import NUM_SEATS, Game, Outcome, State
from arena.record_schema import FORMAT, MAX_RECORD_BYTES, check_record, parse_text

__all__ = [
    "FORMAT",
    "ClockLimits",
    "DealRecord",
    "MatchRecord",
    "match_summary",
    "outcome_to_dict",
    "start_deal",
]


@dataclass(frozen=True)
class ClockLimits:
    """The time limits a match was played with: each decision's own time and each
    player's time bank. A record without them was played without a clock."""

    decision_seconds: float
    time_bank_seconds: float = 0.0

    def to_dict(self) -> dict[str, float]:
        return {
            "decision_seconds": self.decision_seconds,
            "time_bank_seconds": self.time_bank_seconds,
        }


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

    @classmethod
    def from_checked(cls, data: Mapping[str, Any]) -> DealRecord:
        return cls(
            setup=dict(data["setup"]),
            actions=list(data["actions"]),
            seed=data["seed"],
            hands=data["hands"],
            result=dict(data["result"]),
        )


@dataclass
class MatchRecord:
    """A whole match, JSON-ready."""

    game: str
    options: dict[str, Any]
    seed: int | None
    players: list[str]
    deals: list[DealRecord] = field(default_factory=list)
    result: dict[str, Any] = field(default_factory=dict)
    clock: ClockLimits | None = None
    aborted: str | None = None
    """Why the match was cut short (a shutdown, a cancellation), if it was."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "game": self.game,
            "options": self.options,
            "seed": self.seed,
            "players": self.players,
            "clock": None if self.clock is None else self.clock.to_dict(),
            "aborted": self.aborted,
            "deals": [d.to_dict() for d in self.deals],
            "result": self.result,
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=1)

    def save(self, path: Path | str) -> None:
        Path(path).write_text(self.to_json() + "\n", encoding="utf-8")

    @classmethod
    def from_dict(cls, data: object) -> MatchRecord:
        """The record in ``data`` (parsed JSON), every field checked; a one-line
        :class:`ParseError` naming the first field that is wrong."""
        checked = check_record(data)
        clock = checked["clock"]
        return cls(
            game=checked["game"],
            options=dict(checked["options"]),
            seed=checked["seed"],
            players=list(checked["players"]),
            deals=[DealRecord.from_checked(d) for d in checked["deals"]],
            result=dict(checked["result"]),
            clock=None if clock is None else ClockLimits(**clock),
            aborted=checked["aborted"],
        )

    @classmethod
    def from_json(cls, text: str | bytes) -> MatchRecord:
        return cls.from_dict(parse_text(text))

    @classmethod
    def load(cls, path: Path | str) -> MatchRecord:
        """The record in the file ``path``; a one-line :class:`ParseError` naming the
        file and what is wrong (unreadable, too large, not JSON, a bad field)."""
        try:
            with open(path, "rb") as file:
                text = file.read(MAX_RECORD_BYTES + 1)
        except OSError as err:
            reason = err.strerror or type(err).__name__
            raise ParseError(f"cannot read record {str(path)!r}: {reason}") from None
        if len(text) > MAX_RECORD_BYTES:
            raise ParseError(f"{path}: a record is at most {MAX_RECORD_BYTES:,} bytes")
        try:
            return cls.from_json(text)
        except ParseError as err:
            raise ParseError(f"{path}: {err}") from None


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
