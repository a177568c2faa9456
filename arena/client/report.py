"""What a bot's run tells its author: each moment of a run as a fact, told by a reporter.

The runner (:mod:`arena.client.runner`) hands every fact — connected, waiting for seats,
seated, a deal's result, the match's result, an answer refused, the bot failing, a
decision lost, an
error from the server, the server draining, a reconnection, a seat resumed — to one
:class:`Reporter`. :class:`HumanReporter` writes each as one short line (for a
terminal); :class:`LogReporter` logs each as a structlog event named
:attr:`Fact.event` whose fields are the fact's fields (JSON lines in production, see
:mod:`arena.log`). :func:`reporter_for` picks one the way the logs pick their format.
"""

from __future__ import annotations

import os
import sys
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, ClassVar, Protocol, TextIO

import structlog

from arena._proto.arena.v1 import arena_pb2
from arena.log import FORMAT_ENV, get_logger
from arena.plural import counted

__all__ = [
    "BotFailed",
    "Connected",
    "DealOver",
    "DecisionLost",
    "Draining",
    "Fact",
    "HumanReporter",
    "LogReporter",
    "MatchOver",
    "Reconnecting",
    "Refused",
    "Reporter",
    "Resumed",
    "Seated",
    "ServerError",
    "SilentReporter",
    "Waiting",
    "end_reason",
    "match_outcome",
    "reporter_for",
]


def _names(names: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} and {names[-1]}"


def _totals(totals: Sequence[int], player: int | None) -> str:
    text = "totals " + " ".join(str(t) for t in totals)
    if player is not None and player < len(totals):
        text += f" (yours {totals[player]})"
    return text


def end_reason(reason: int) -> str:
    """An EndReason as a word: ``complete``, ``forfeit``, ``error`` … (``reason 9`` for a
    value newer than this SDK)."""
    try:
        name = arena_pb2.EndReason.Name(reason)
    except ValueError:
        return f"reason {reason}"
    return name.removeprefix("END_REASON_").lower()


PLAYED_OUT = ("complete", "deal_limit", "forfeit")
"""End reasons of a match played to a result (the others were cut short)."""


def match_outcome(result: arena_pb2.MatchResult, player: int | None, partnered: bool) -> str:
    """``won``, ``lost`` or ``drawn`` for ``player``; ``""`` when the match was cut short
    or the player is unknown. With a winning team, by team (0: players 0 and 2); without
    one, by totals: the partners' sum against the opponents' (``partnered``) or, when
    partners change every deal (sanfu), the player's total against the average."""
    totals = list(result.totals)
    if end_reason(result.reason) not in PLAYED_OUT or player is None or player >= len(totals):
        return ""
    if result.HasField("winner_team"):
        return "won" if player % 2 == result.winner_team else "lost"
    if partnered:
        mine = sum(t for i, t in enumerate(totals) if i % 2 == player % 2)
        theirs = sum(totals) - mine
    else:
        mine, theirs = totals[player] * len(totals), sum(totals)
    return "won" if mine > theirs else "lost" if mine < theirs else "drawn"


@dataclass(frozen=True)
class Fact(ABC):
    """One moment of a run: :meth:`line` for people, :meth:`fields` for logs."""

    event: ClassVar[str] = ""
    """The log event's name."""
    level: ClassVar[str] = "info"
    """The log level: ``info``, or ``warning`` for what went wrong."""

    @abstractmethod
    def line(self) -> str:
        """One short line for people."""

    def fields(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Connected(Fact):
    event: ClassVar[str] = "connected"

    server: str
    bot: str
    connection_id: str
    server_version: str
    protocol: int

    def line(self) -> str:
        return (
            f"connected to {self.server} as {self.bot} "
            f"(server {self.server_version}, protocol {self.protocol})"
        )


@dataclass(frozen=True)
class Waiting(Fact):
    event: ClassVar[str] = "waiting_for_seats"

    variants: tuple[str, ...]
    rated: bool
    matches: int
    """Matches still to play; 0: no limit."""
    fill_after: float | None
    """Seconds before built-in bots fill the empty seats; None: never."""
    fill_bot: str

    def line(self) -> str:
        kind = "rated" if self.rated else "casual"
        text = f"waiting for seats: {kind} {' or '.join(self.variants)}"
        if self.matches:
            text += f", {self.matches} match{'es' if self.matches > 1 else ''} to play"
        if self.fill_after is not None:
            text += f"; '{self.fill_bot}' fills empty seats after {self.fill_after:g} s"
        return text


@dataclass(frozen=True)
class Seated(Fact):
    event: ClassVar[str] = "seated"

    match_id: str
    variant: str
    rated: bool
    player: int | None
    players: tuple[str, ...]
    """Every player of the match, by player index."""
    partner: str
    """Empty when partners change every deal (sanfu)."""
    opponents: tuple[str, ...]

    def line(self) -> str:
        kind = "rated" if self.rated else "casual"
        where = f"seated: match {self.match_id} ({self.variant}, {kind}), player {self.player}"
        if self.partner:
            return f"{where}, partner {self.partner}, opponents {_names(self.opponents)}"
        others = [name for i, name in enumerate(self.players) if i != self.player]
        return f"{where}, partners change every deal, with {_names(others)}"


@dataclass(frozen=True)
class Resumed(Fact):
    event: ClassVar[str] = "resumed"

    match_id: str
    variant: str
    player: int | None
    deal: int

    def line(self) -> str:
        return (
            f"resumed: match {self.match_id} ({self.variant}), player {self.player}, "
            f"deal {self.deal}"
        )


@dataclass(frozen=True)
class DealOver(Fact):
    event: ClassVar[str] = "deal_result"

    match_id: str
    deal: int
    summary: str
    scores: tuple[int, ...]
    totals: tuple[int, ...]
    player: int | None

    def line(self) -> str:
        return f"deal {self.deal}: {self.summary}; {_totals(self.totals, self.player)}"


@dataclass(frozen=True)
class MatchOver(Fact):
    event: ClassVar[str] = "match_result"

    match_id: str
    variant: str
    reason: str
    """:func:`end_reason`: ``complete``, ``deal_limit``, ``forfeit``, ``cancelled``,
    ``shutdown``, ``error`` …"""
    outcome: str
    """:func:`match_outcome`: ``won``, ``lost``, ``drawn``, or empty (cut short)."""
    winner_team: int | None
    """The winning team (0: players 0 and 2); None when the outcome is on totals."""
    summary: str
    deals: int
    totals: tuple[int, ...]
    player: int | None
    rated: bool

    def line(self) -> str:
        totals = _totals(self.totals, self.player)
        if not self.outcome:
            return f"match {self.match_id} ended ({self.reason}): {self.summary}; {totals}"
        how = " by forfeit" if self.reason == "forfeit" else ""
        if self.winner_team is None:
            how += " on totals"
        return f"match {self.match_id}: {self.outcome}{how} ({self.summary}); {totals}"


@dataclass(frozen=True)
class Refused(Fact):
    event: ClassVar[str] = "answer_refused"
    level: ClassVar[str] = "warning"

    request_id: str
    answer: str
    status: str
    """``ILLEGAL`` or ``MALFORMED``."""
    reason: str
    attempts_left: int

    def line(self) -> str:
        return (
            f"answer {self.answer!r} to {self.request_id} refused ({self.status}): "
            f"{self.reason}; {counted(self.attempts_left, 'attempt')} left"
        )


@dataclass(frozen=True)
class BotFailed(Fact):
    event: ClassVar[str] = "bot_failed"
    level: ClassVar[str] = "error"

    request_id: str
    error: str
    """The exception the bot's ``act`` raised, as ``Type: message``."""
    traceback: str

    def line(self) -> str:
        return (
            f"your bot raised {self.error} deciding {self.request_id}; no answer sent, the "
            f"server plays automatically when the time is up\n{self.traceback.rstrip()}"
        )


@dataclass(frozen=True)
class DecisionLost(Fact):
    event: ClassVar[str] = "decision_lost"
    level: ClassVar[str] = "warning"

    request_id: str
    status: str
    """``TIMED_OUT`` or ``TOO_MANY_ATTEMPTS``."""
    played: str
    """What the server played instead (automatic play)."""

    def line(self) -> str:
        why = "timed out" if self.status == "TIMED_OUT" else "had too many refused answers"
        played = f": the server played {self.played!r}" if self.played else ""
        return f"{self.request_id} {why}{played}"


@dataclass(frozen=True)
class ServerError(Fact):
    event: ClassVar[str] = "server_error"
    level: ClassVar[str] = "warning"

    code: str
    message: str
    request_id: str

    def line(self) -> str:
        about = f" about {self.request_id}" if self.request_id else ""
        return f"server error {self.code}{about}: {self.message}"


@dataclass(frozen=True)
class Draining(Fact):
    event: ClassVar[str] = "server_draining"
    level: ClassVar[str] = "warning"

    reason: str
    deadline: str
    """When running matches are cut short (ISO 8601, UTC, to the second); empty if never."""

    def line(self) -> str:
        until = f"; running matches end by {self.deadline}" if self.deadline else ""
        return f"the server is draining ({self.reason or 'no reason given'}){until}"


@dataclass(frozen=True)
class Reconnecting(Fact):
    event: ClassVar[str] = "reconnecting"
    level: ClassVar[str] = "warning"

    server: str
    attempt: int
    """Reconnections in a row, this one included."""
    delay: float
    """Seconds before it."""
    reason: str

    def line(self) -> str:
        return (
            f"connection to {self.server} lost ({self.reason}); "
            f"connecting again in {self.delay:g} s (attempt {self.attempt})"
        )


class Reporter(Protocol):
    """Told every fact of a run, in order."""

    def report(self, fact: Fact) -> None: ...


class SilentReporter:
    """Tells nothing (the default of :func:`~arena.client.run_bot`)."""

    def report(self, fact: Fact) -> None:
        del fact


class HumanReporter:
    """Each fact as one line on ``stream`` (default: the current ``sys.stderr``)."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream

    def report(self, fact: Fact) -> None:
        stream = self.stream or sys.stderr
        print(fact.line(), file=stream, flush=True)


class LogReporter:
    """Each fact as a structlog event (logger ``arena.client``); after ``connected``, the
    bot's name is bound to every event. One reporter per run."""

    def __init__(self, logger: structlog.stdlib.BoundLogger | None = None) -> None:
        self.log = logger or get_logger("arena.client")

    def report(self, fact: Fact) -> None:
        if isinstance(fact, Connected):
            self.log = self.log.bind(bot=fact.bot)
        getattr(self.log, fact.level)(fact.event, **fact.fields())


def reporter_for(
    stream: TextIO | None = None, environ: Mapping[str, str] = os.environ
) -> HumanReporter | LogReporter:
    """Lines when the logs would be read by people (``ARENA_LOG_FORMAT=console``, or unset
    and ``stream`` — default ``sys.stderr`` — a terminal), structured logs otherwise."""
    target = stream or sys.stderr
    chosen = environ.get(FORMAT_ENV, "")
    human = chosen == "console" or (chosen == "" and target.isatty())
    return HumanReporter(stream) if human else LogReporter()
