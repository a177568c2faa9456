"""The values the store takes and gives back, its constants and its one error."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Final

from arena.errors import ArenaError

SCHEMA_VERSION: Final = 8
"""The schema this code writes and understands (``PRAGMA user_version``)."""

APPLICATION_ID: Final = 0x41524E41
"""``PRAGMA application_id`` of an arena store (the bytes ``ARNA``)."""

RATING_SYSTEMS: Final = ("elo", "openskill", "room")
TOURNAMENT_STATUSES: Final = ("pending", "running", "finished", "aborted")
BALANCE_STATUSES: Final = ("running", "interrupted", "failed", "finished")
TOKEN_KINDS: Final = ("bot", "admin")
BUILTIN_KIND: Final = "builtin"
"""``bots.kind`` of the built-in bots (the ``bots`` package)."""
PERSON_KIND: Final = "person"
"""``bots.kind`` of a person with an account (schema 8's ``people``)."""

PAGE: Final = 256  # matches read per query while iterating
INT64: Final = range(-(2**63), 2**63)


class StoreError(ArenaError):
    """The store cannot be opened, or a read or write failed; the message names the path."""


# ---------------------------------------------------------------------------
# Values


def check(condition: bool, message: str) -> None:
    if not condition:
        raise StoreError(message)


def finite(value: float | None) -> bool:
    return value is None or (isinstance(value, int | float) and math.isfinite(value))


@dataclass(frozen=True)
class StoredMatch:
    """A finished match as stored; ``options``, ``outcome`` and ``record`` are JSON-ready.

    They are read back in their JSON form (tuples become lists, keys strings).
    ``finished_at`` is set by the store when left empty and is not compared.
    """

    id: str
    tournament_id: str | None
    variant: str
    options: dict[str, Any]
    seed: int | None
    seating: tuple[str, ...]
    outcome: dict[str, Any]
    record: dict[str, Any]
    deals: int
    decisions: int
    finished_at: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "seating", tuple(self.seating))
        check(bool(self.id), "a match needs a non-empty id")
        check(
            self.seed is None or (isinstance(self.seed, int) and self.seed in INT64),
            f"match {self.id!r}: seed {self.seed!r} is not a 64-bit integer",
        )
        check(
            all(isinstance(name, str) and name for name in self.seating),
            f"match {self.id!r}: seating {self.seating!r} must be bot names",
        )
        check(
            self.deals >= 0 and self.decisions >= 0,
            f"match {self.id!r}: negative deals or decisions",
        )

    @property
    def end_reason(self) -> str:
        """Why it ended: ``complete``, ``deal limit``, ``forfeit``, or the reason it was
        cut short (``cancelled``, ``shutdown`` …)."""
        aborted = self.outcome.get("aborted")
        if isinstance(aborted, str):
            return aborted
        deals = self.record.get("deals")
        if isinstance(deals, list) and any(_forfeited(deal) for deal in deals):
            return "forfeit"
        result = self.record.get("result")
        complete = isinstance(result, dict) and result.get("complete") is True
        return "complete" if complete else "deal limit"

    @property
    def winner_team(self) -> int | None:
        """The winning team (0 or 1), if any."""
        winner = self.outcome.get("winner")
        return winner if isinstance(winner, int) and winner in (0, 1) else None


def _forfeited(deal: object) -> bool:
    """Whether a recorded deal (JSON form) ended by a forfeit."""
    result = deal.get("result") if isinstance(deal, dict) else None
    details = result.get("details") if isinstance(result, dict) else None
    return isinstance(details, dict) and "forfeit" in details


@dataclass(frozen=True)
class RatingUpdate:
    """The new rating of ``bot`` after a match; the store reads the value before it."""

    bot: str
    variant: str
    system: str
    after: float
    sigma: float | None = None

    def __post_init__(self) -> None:
        check(
            self.system in RATING_SYSTEMS,
            f"unknown rating system {self.system!r} (expected one of {', '.join(RATING_SYSTEMS)})",
        )
        check(
            finite(self.after) and finite(self.sigma),
            f"rating of {self.bot!r}: value {self.after!r} and sigma {self.sigma!r} "
            "must be finite numbers",
        )
        check(self.sigma is None or self.sigma >= 0, f"rating of {self.bot!r}: sigma < 0")


@dataclass(frozen=True)
class Rating:
    """A row of ``ratings``."""

    bot: str
    variant: str
    system: str
    value: float
    sigma: float | None
    matches: int
    updated_at: str


@dataclass(frozen=True)
class RatingChange:
    """A row of ``rating_history``; ``before`` is None for a bot's first rating."""

    id: int
    match_id: str
    bot: str
    variant: str
    system: str
    before: float | None
    after: float
    sigma: float | None
    at: str


@dataclass(frozen=True)
class Bot:
    """A row of ``bots``."""

    name: str
    kind: str
    owner: str | None = None
    version: str | None = None
    created_at: str | None = field(default=None, compare=False)
    games: tuple[str, ...] | None = None
    """The variants it registered for; None: every variant."""
    description: str | None = None
    """One line about the bot, from its registration."""
    owner_name: str | None = None
    """The display name its owner gave."""


@dataclass(frozen=True)
class Account:
    """A row of ``people``, without its password hash."""

    player: str
    """``person:NAME``."""
    created_at: str


@dataclass(frozen=True)
class Token:
    """A row of ``tokens``: a secret's hash, never the secret."""

    token_id: str
    bot: str | None
    hash: str
    kind: str
    created_at: str
    revoked_at: str | None

    @property
    def revoked(self) -> bool:
        return self.revoked_at is not None


@dataclass(frozen=True)
class Tournament:
    """A row of ``tournaments``."""

    id: str
    name: str
    variant: str
    options: dict[str, Any]
    config: dict[str, Any]
    status: str
    created_at: str


@dataclass(frozen=True)
class BalanceRun:
    """A row of ``balance_runs``, with how many batches and deals of it are stored."""

    id: str
    definition: dict[str, Any]
    command: str
    status: str
    report: dict[str, Any] | None
    created_at: str
    updated_at: str
    batches: int
    deals: int


@dataclass(frozen=True)
class BalanceBatch:
    """A row of ``balance_batches``: a finished batch's summary counts."""

    variant: int
    number: int
    deals: int
    counts: dict[str, int]


MATCH_RESULTS: Final = ("team0", "team1", "draw", "aborted")
"""How a stored match came out, as lists filter it (``aborted``: cut short)."""

CANCELLED: Final = "cancelled"
"""The end reason of a match an operator cancelled (before or while it was played)."""

AUTO_ENTRY: Final = "!auto"
FLED_ENTRY: Final = "!fled"
"""The record's clock marks (:data:`arena.match.AUTO_MARK`, :data:`arena.match.FLED_MARK`)."""


@dataclass(frozen=True)
class MatchFilter:
    """Which stored matches a list shows; None: any. ``since`` and ``until`` bound
    ``finished_at`` (ISO text, ``since`` ≤ t < ``until``); ``text`` is searched in match
    ids and seated bot names (case-insensitive for ASCII); ``cancelled``: only those an
    operator cancelled (True), or only the others (False)."""

    variant: str | None = None
    tournament_id: str | None = None
    bot: str | None = None
    since: str | None = None
    until: str | None = None
    result: str | None = None
    text: str | None = None
    cancelled: bool | None = None

    def __post_init__(self) -> None:
        check(
            self.result is None or self.result in MATCH_RESULTS,
            f"unknown match result {self.result!r} (expected one of {', '.join(MATCH_RESULTS)})",
        )


@dataclass(frozen=True)
class MatchListing:
    """A row of ``match_summaries``: a stored match as lists show it."""

    number: int
    id: str
    variant: str
    tournament_id: str | None
    options: dict[str, Any]
    players: tuple[str, ...]
    result: str
    winner_team: int | None
    totals: tuple[int, ...]
    deals: int
    end_reason: str
    rated: bool
    auto_plays: int
    flights: int
    finished_at: str


@dataclass(frozen=True)
class Results:
    """A bot's played-out matches: won, drawn, lost (a match counts once per bot)."""

    bot: str
    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def matches(self) -> int:
        return self.wins + self.draws + self.losses


@dataclass(frozen=True)
class Standing:
    """A bot in a variant: its current ratings (None: none yet) and its results."""

    bot: str
    elo: float | None
    mu: float | None
    sigma: float | None
    room: float | None
    wins: int
    draws: int
    losses: int


@dataclass(frozen=True)
class HeadToHead:
    """A bot's played-out matches against one opponent (seated on the other team)."""

    opponent: str
    matches: int
    wins: int
    draws: int
    losses: int


@dataclass(frozen=True)
class ConductTotals:
    """A bot's refused answers and timed-out decisions over its stored matches that keep
    them (an outcome's ``conduct``); ``unknown``: its matches stored without them."""

    illegal: int = 0
    malformed: int = 0
    timeouts: int = 0
    unknown: int = 0


def match_result(outcome: dict[str, Any]) -> str:
    """``team0``, ``team1``, ``draw`` or ``aborted`` (cut short), from a stored outcome:
    its team score (team 0's: 1, 0.5, 0), else its winner, else the teams' totals."""
    if isinstance(outcome.get("aborted"), str):
        return "aborted"
    score = outcome.get("team_score")
    if isinstance(score, int | float) and score in (0, 0.5, 1):
        return "team0" if score == 1 else "team1" if score == 0 else "draw"
    winner = outcome.get("winner")
    if winner in (0, 1) and not isinstance(winner, bool | float):
        return "team0" if winner == 0 else "team1"
    totals = outcome.get("totals")
    if isinstance(totals, list) and len(totals) == 4 and all(isinstance(t, int) for t in totals):
        ours, theirs = totals[0] + totals[2], totals[1] + totals[3]
        return "team0" if ours > theirs else "team1" if ours < theirs else "draw"
    return "draw"
