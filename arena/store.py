"""Persistence: bots, tournaments, matches and ratings in one SQLite file.

The schema below is the contract: other parts of the project, dashboards and
operators read these tables directly, so a change to it is a new schema version
with a migration, never an edit in place.

Opening
    :meth:`Store.open` creates the file and the schema if needed, or checks an
    existing file: a file that is not SQLite, an SQLite file of another
    application, or a schema newer than this code gives a :class:`StoreError`
    naming the path. ``":memory:"`` opens a private in-memory store (tests).

Durability
    ``journal_mode=WAL``: readers (a leaderboard, a dashboard) read while the
    writer writes, each seeing the last committed state. ``synchronous=FULL``:
    every commit is synced to disk before :meth:`Store.add_match` returns. In
    WAL mode ``NORMAL`` already survives a killed process, but not a power cut or
    an OS crash, after which the last commits can be lost; a match costs seconds
    to play and one sync per match is negligible, so a stored match stays stored.
    ``foreign_keys=ON``; a busy timeout (30 s by default) lets a second writer
    wait for the first instead of failing at once. One writer process at a time
    (the match driver) is the intended use; open one :class:`Store` per process.

Atomicity
    Every write is one ``BEGIN IMMEDIATE`` … ``COMMIT`` transaction, rolled back
    on any error: a process killed at any moment leaves each match either wholly
    stored (row, rating changes and rating history) or absent. Matches that count
    together (the two halves of a paired deal, :meth:`Store.add_matches`) are one
    transaction: all stored, or none; a round's pairings (:meth:`Store.fix_round`)
    are stored once, before any of its matches.

Schema (version 1, ``PRAGMA user_version``; ``PRAGMA application_id`` marks an arena store)
    Times are UTC, ISO 8601 text (``2024-05-01T12:00:00.000000+00:00``). Columns
    ending in ``_json`` hold compact JSON text (UTF-8, no NaN or infinity).

    ``bots`` — every bot that may be seated or rated.
        ``name`` TEXT PRIMARY KEY (the name used in seatings and ratings),
        ``kind`` TEXT (``builtin``, ``remote``, … free text), ``owner`` TEXT NULL,
        ``version`` TEXT NULL, ``created_at``. A name is one bot: registering it
        again with other attributes is an error (a new version is a new name).

    ``tournaments`` — a set of matches played under one configuration.
        ``id`` TEXT PRIMARY KEY (chosen by the caller), ``name``, ``variant``
        (game name, e.g. ``guandan``), ``options_json`` (game options, an object),
        ``config_json`` (how the tournament is run: bots, fixtures, match counts…;
        an object), ``created_at``, ``status`` (``pending``, ``running``,
        ``finished`` or ``aborted``).

    ``matches`` — one row per finished match.
        ``id`` TEXT PRIMARY KEY (deterministic, given by the caller: the same
        match retried has the same id and is stored once), ``tournament_id`` TEXT
        NULL REFERENCES tournaments (NULL: a match outside any tournament),
        ``variant``, ``options_json`` (object), ``seed`` INTEGER NULL (the match
        seed; NULL when the deals were given explicitly), ``seating_json`` (array of
        bot names, index = seat), ``outcome_json`` (object: the match result),
        ``record_json`` (object: the whole record, as ``MatchRecord.to_dict``),
        ``deals`` INTEGER, ``decisions`` INTEGER, ``finished_at``.
        Indexed by ``tournament_id`` and by ``variant``.

    ``ratings`` — the current rating of a bot in a variant under a system.
        ``bot`` REFERENCES bots, ``variant``, ``system`` (``elo``, ``openskill``
        or ``room``), ``value`` REAL, ``sigma`` REAL NULL (the uncertainty, for
        systems that have one), ``matches`` INTEGER (rated matches so far),
        ``updated_at``; PRIMARY KEY (bot, variant, system).

    ``rating_history`` — every change of a rating, in order.
        ``id`` INTEGER PRIMARY KEY AUTOINCREMENT (the order of changes),
        ``match_id`` REFERENCES matches (the match that caused the change),
        ``bot``, ``variant``, ``system`` (together REFERENCES ratings),
        ``before`` REAL NULL (NULL: the bot had no rating yet), ``after`` REAL,
        ``sigma`` REAL NULL (the uncertainty after the change), ``at``.
        Indexed by (bot, variant, system, id) and by ``match_id``.

Schema version 2 adds
    ``tokens`` — the secrets that authenticate bots (and stored admin tokens).
        ``token_id`` TEXT PRIMARY KEY (a public handle, e.g. ``tok-1f0c…``),
        ``bot`` TEXT NULL REFERENCES bots (the bot a ``bot`` token names; NULL for
        an ``admin`` token), ``hash`` TEXT UNIQUE (SHA-256 of the secret, lower-case
        hex: the secret itself is never stored), ``kind`` (``bot`` or ``admin``),
        ``created_at``, ``revoked_at`` NULL (set once, when revoked).
        Indexed by ``bot``.

Schema version 3 adds
    ``bots.games_json`` TEXT NULL — the variants a bot registered for (a JSON array
    of variant names); NULL: every variant.

Schema version 4 adds
    ``rounds`` — the pairings of a round of a rated tournament, fixed once, before
    any of its matches is played (a resumed round plays them, not new ones).
        ``tournament_id`` REFERENCES tournaments, ``number`` INTEGER (0, 1, …),
        ``pairings_json`` (array of ``[team, team]``, each team an array of bot
        names, in play order), ``created_at``; PRIMARY KEY (tournament_id, number).

Schema version 5 adds
    ``bots.description`` TEXT NULL — one line about the bot, given when it was
    registered (shown on leaderboards); ``bots.owner_name`` TEXT NULL — the display name
    its owner gave (``owner`` is the owner's key identity).

Schema version 6 adds what pages and lists read without opening records (filled for
every match already stored when a store is brought up to date):
    ``match_summaries`` — one row per stored match, narrow (no record): ``number``
        INTEGER PRIMARY KEY (the order matches were stored: 1, 2, …), ``id``
        REFERENCES matches (unique index ``match_summaries_id``), ``variant``,
        ``tournament_id``, ``options_json``,
        ``players_json`` (the seating), ``result`` (``team0``, ``team1``, ``draw`` or
        ``aborted``: cut short), ``winner_team`` NULL, ``totals_json``, ``deals``,
        ``end_reason`` (as :attr:`StoredMatch.end_reason`), ``rated`` (0/1: it changed
        ratings), ``auto_plays`` and ``flights`` (the record's ``!auto`` and ``!fled``
        entries), ``finished_at``. Indexed by (variant, number), (tournament_id,
        number), (result, number) and finished_at.
    ``match_players`` — one row per seat of a stored match: ``number`` REFERENCES
        match_summaries, ``seat``, ``bot``, ``variant``, ``team`` (0: seats 0 and 2),
        ``score`` REAL NULL — the match for the bot: 1 won, 0.5 drawn, 0 lost, on the
        row of the bot's first seat only; NULL on its other seats, in a match cut short,
        and for a bot seated on both teams. PRIMARY KEY (number, seat); indexed by
        (bot, number).
    ``bot_results`` — every bot seated in a variant and its played-out matches there
        (the scores of ``match_players``, counted as matches are stored): ``variant``,
        ``bot``, ``wins``, ``draws``, ``losses`` (all 0 for a bot seated only in
        matches cut short or on both teams); PRIMARY KEY (variant, bot), indexed by bot.
    ``ratings`` gains an index by (variant, system, value) (ranks).

Schema version 7 adds balance runs (``arena balance``), kept so that a run can be
resumed, listed and opened later:
    ``balance_runs`` — ``id`` TEXT PRIMARY KEY (chosen by the caller), ``definition_json``
        (what decides the figures: variants, bots, deals, seed, batch size, the questions
        of ``--until-resolved``; an object), ``command`` (the command line that plays it),
        ``status`` (``running``, ``interrupted``, ``failed`` or ``finished``),
        ``report_json`` NULL (the last report written: at the end, or when the run
        stopped), ``created_at``, ``updated_at``.
    ``balance_batches`` — one row per finished batch of a run: ``run_id`` REFERENCES
        balance_runs, ``variant`` INTEGER (its index in the run), ``number`` INTEGER (the
        batch's index: its seed), ``deals``, ``counts_json`` (the batch's summary counts,
        an object of integers), ``stored_at``; PRIMARY KEY (run_id,
        variant, number): a batch is stored once, so a resumed run counts it once.

Schema version 8 adds people who play at the site's tables under an account (their
rated tables are rated in a pool of their own, :mod:`arena.rating.pools`: ``ratings``
and ``rating_history`` then hold ``people:VARIANT`` in ``variant``):
    ``people`` — ``player`` TEXT PRIMARY KEY REFERENCES bots (``person:NAME``: a person
        is a row of ``bots`` of kind ``person``, :data:`PERSON_KIND`, so that ratings
        name them as they name bots), ``password_hash`` (scrypt, with its salt and
        parameters: the password itself is never stored), ``created_at``.

Built-in bots (kind ``builtin``, :data:`BUILTIN_KIND`) are rows of ``bots`` like any
other: :meth:`Store.add_builtin_bots` adds them on demand (idempotently), before a
match that seats them is stored or rated. Each name is one bot, parameters included:
``search:samples=16`` is rated apart from ``search``. A built-in bot has no owner and
never holds a token.
"""

from __future__ import annotations

import json
import math
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Final, Self

from arena.errors import ArenaError
from arena.metrics import observe_store_write
from arena.rating.pools import PERSON_PREFIX, is_person

__all__ = [
    "BALANCE_STATUSES",
    "BUILTIN_KIND",
    "CANCELLED",
    "MATCH_RESULTS",
    "PERSON_KIND",
    "RATING_SYSTEMS",
    "SCHEMA_VERSION",
    "TOKEN_KINDS",
    "TOURNAMENT_STATUSES",
    "Account",
    "BalanceBatch",
    "BalanceRun",
    "Bot",
    "ConductTotals",
    "HeadToHead",
    "MatchFilter",
    "MatchListing",
    "Rating",
    "RatingChange",
    "RatingUpdate",
    "Results",
    "Standing",
    "Store",
    "StoreError",
    "StoredMatch",
    "Token",
    "Tournament",
    "match_result",
]

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

_MIN_SQLITE: Final = (3, 24, 0)  # UPSERT
_PAGE: Final = 256  # matches read per query while iterating
_INT64 = range(-(2**63), 2**63)


class StoreError(ArenaError):
    """The store cannot be opened, or a read or write failed; the message names the path."""


# ---------------------------------------------------------------------------
# Values


def _check(condition: bool, message: str) -> None:
    if not condition:
        raise StoreError(message)


def _finite(value: float | None) -> bool:
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
        _check(bool(self.id), "a match needs a non-empty id")
        _check(
            self.seed is None or (isinstance(self.seed, int) and self.seed in _INT64),
            f"match {self.id!r}: seed {self.seed!r} is not a 64-bit integer",
        )
        _check(
            all(isinstance(name, str) and name for name in self.seating),
            f"match {self.id!r}: seating {self.seating!r} must be bot names",
        )
        _check(
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
        _check(
            self.system in RATING_SYSTEMS,
            f"unknown rating system {self.system!r} (expected one of {', '.join(RATING_SYSTEMS)})",
        )
        _check(
            _finite(self.after) and _finite(self.sigma),
            f"rating of {self.bot!r}: value {self.after!r} and sigma {self.sigma!r} "
            "must be finite numbers",
        )
        _check(self.sigma is None or self.sigma >= 0, f"rating of {self.bot!r}: sigma < 0")


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
        _check(
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


def _entries(record: dict[str, Any], mark: str) -> int:
    """How many of the record's entries are the clock mark ``mark``."""
    deals = record.get("deals")
    count = 0
    for deal in deals if isinstance(deals, list) else ():
        actions = deal.get("actions") if isinstance(deal, dict) else None
        for entry in actions if isinstance(actions, list) else ():
            if isinstance(entry, str) and (entry == mark or entry.startswith(mark + " ")):
                count += 1
    return count


def _summary_row(match: StoredMatch, rated: bool, finished_at: str) -> tuple[Any, ...]:
    """The ``match_summaries`` row of a match (without its number)."""
    given = match.outcome.get("totals")
    totals = [t for t in given if isinstance(t, int)] if isinstance(given, list) else []
    return (
        match.id,
        match.variant,
        match.tournament_id,
        _dumps(match.options, f"match {match.id!r}: options"),
        _dumps(list(match.seating), f"match {match.id!r}: seating"),
        match_result(match.outcome),
        match.winner_team,
        _dumps(totals, f"match {match.id!r}: totals"),
        match.deals,
        match.end_reason,
        int(rated),
        _entries(match.record, AUTO_ENTRY),
        _entries(match.record, FLED_ENTRY),
        finished_at,
    )


def _player_rows(number: int, match: StoredMatch, result: str) -> list[tuple[Any, ...]]:
    """The ``match_players`` rows of a match: each bot's result on its first seat."""
    teams: dict[str, set[int]] = {}
    for seat, bot in enumerate(match.seating):
        teams.setdefault(bot, set()).add(seat % 2)
    rows: list[tuple[Any, ...]] = []
    seen: set[str] = set()
    for seat, bot in enumerate(match.seating):
        team = seat % 2
        score: float | None = None
        if result != "aborted" and len(teams[bot]) == 1 and bot not in seen:
            score = 0.5 if result == "draw" else 1.0 if result == f"team{team}" else 0.0
        seen.add(bot)
        rows.append((number, seat, bot, match.variant, team, score))
    return rows


def _insert_summary(conn: sqlite3.Connection, match: StoredMatch, rated: bool, at: str) -> None:
    """Add a stored match's summary and players (inside the caller's transaction)."""
    row = _summary_row(match, rated, at)
    cursor = conn.execute(
        f"INSERT INTO match_summaries ({_SUMMARY_COLUMNS}) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        row,
    )
    number = cursor.lastrowid
    assert number is not None
    players = _player_rows(number, match, row[5])
    conn.executemany(
        "INSERT INTO match_players (number, seat, bot, variant, team, score) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        players,
    )
    results: dict[str, tuple[int, int, int]] = {}  # each seated bot once
    for _, _, bot, _, _, score in players:
        counted = (int(score == 1), int(score == 0.5), int(score == 0))
        results[bot] = counted if score is not None else results.get(bot, (0, 0, 0))
    conn.executemany(
        "INSERT INTO bot_results (variant, bot, wins, draws, losses) VALUES (?, ?, ?, ?, ?) "
        "ON CONFLICT (variant, bot) DO UPDATE SET wins = wins + excluded.wins, "
        "draws = draws + excluded.draws, losses = losses + excluded.losses",
        [(match.variant, bot, *counted) for bot, counted in results.items()],
    )


def _fill_summaries(conn: sqlite3.Connection) -> None:
    """Schema 6: a summary and players for every match stored before, in stored order."""
    last = 0
    while True:
        rows = conn.execute(
            f"SELECT rowid, {_MATCH_COLUMNS}, EXISTS (SELECT 1 FROM rating_history h "
            "WHERE h.match_id = matches.id) AS rated FROM matches WHERE rowid > ? "
            f"ORDER BY rowid LIMIT {_PAGE}",
            (last,),
        ).fetchall()
        for row in rows:
            match = _summarised(row)
            _insert_summary(conn, match, bool(row["rated"]), row["finished_at"])
        if len(rows) < _PAGE:
            return
        last = rows[-1]["rowid"]


def _summarised(row: sqlite3.Row) -> StoredMatch:
    """A stored match as its summary reads it: JSON that cannot be read (a row changed
    by hand) counts as empty, so that the store still opens with every row listed."""

    def read(column: str, kind: type[dict[str, Any]] | type[list[Any]]) -> Any:
        try:
            value = _loads(row[column])
        except StoreError:
            return kind()
        return value if isinstance(value, kind) else kind()

    seating = read("seating_json", list)
    return StoredMatch(
        id=row["id"],
        tournament_id=row["tournament_id"],
        variant=row["variant"],
        options=read("options_json", dict),
        seed=row["seed"],
        seating=tuple(name for name in seating if isinstance(name, str) and name),
        outcome=read("outcome_json", dict),
        record=read("record_json", dict),
        deals=row["deals"],
        decisions=row["decisions"],
        finished_at=row["finished_at"],
    )


def _listing_from_row(row: sqlite3.Row) -> MatchListing:
    return MatchListing(
        number=row["number"],
        id=row["id"],
        variant=row["variant"],
        tournament_id=row["tournament_id"],
        options=_loads(row["options_json"]),
        players=tuple(_loads(row["players_json"])),
        result=row["result"],
        winner_team=row["winner_team"],
        totals=tuple(_loads(row["totals_json"])),
        deals=row["deals"],
        end_reason=row["end_reason"],
        rated=bool(row["rated"]),
        auto_plays=row["auto_plays"],
        flights=row["flights"],
        finished_at=row["finished_at"],
    )


BROAD_SEATS: Final = 2_000
"""Seats of the bots a search matches from which it reads matches newest first, checking
each, rather than gathering every match of those bots (:meth:`Store.broad_text`)."""


def _like(text: str) -> str:
    """A LIKE pattern (escape ``\\``) finding ``text`` anywhere."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _where(wanted: MatchFilter, broad: bool = False) -> tuple[str, list[object]]:
    """The WHERE clause (over ``match_summaries s``) of a filter, and its parameters;
    ``broad``: the text matches many matches' bots (:meth:`Store.broad_text`), so each
    match is checked in turn as the newest are read, instead of gathering them all."""
    clauses: list[str] = []
    params: list[object] = []
    for clause, value in (
        ("s.variant = ?", wanted.variant),
        ("s.tournament_id = ?", wanted.tournament_id),
        ("s.result = ?", wanted.result),
        ("s.finished_at >= ?", wanted.since),
        ("s.finished_at < ?", wanted.until),
        ("s.number IN (SELECT number FROM match_players WHERE bot = ?)", wanted.bot),
        (f"(s.end_reason = '{CANCELLED}') = ?", wanted.cancelled),
    ):
        if value is not None:
            clauses.append(clause)
            params.append(value)
    if wanted.text and broad:  # +p.bot: each match's players by its number, not by bot
        clauses.append(
            "(s.id LIKE ? ESCAPE '\\' OR EXISTS (SELECT 1 FROM match_players p "
            "WHERE p.number = s.number AND +p.bot IN "
            "(SELECT bot FROM bot_results WHERE bot LIKE ? ESCAPE '\\')))"
        )
        params += [_like(wanted.text), _like(wanted.text)]
    elif wanted.text:  # the ids (their index alone is read) and the bots seated in a variant
        clauses.append(
            "s.number IN (SELECT number FROM match_summaries INDEXED BY match_summaries_id "
            "WHERE id LIKE ? ESCAPE '\\' UNION SELECT number FROM match_players WHERE bot IN "
            "(SELECT bot FROM bot_results WHERE bot LIKE ? ESCAPE '\\'))"
        )
        params += [_like(wanted.text), _like(wanted.text)]
    return (" AND ".join(clauses) or "1"), params


# ---------------------------------------------------------------------------
# Schema

_SCHEMA_V1: Final = (
    """CREATE TABLE bots (
        name TEXT PRIMARY KEY NOT NULL CHECK (name <> ''),
        kind TEXT NOT NULL,
        owner TEXT,
        version TEXT,
        created_at TEXT NOT NULL
    )""",
    """CREATE TABLE tournaments (
        id TEXT PRIMARY KEY NOT NULL CHECK (id <> ''),
        name TEXT NOT NULL,
        variant TEXT NOT NULL,
        options_json TEXT NOT NULL,
        config_json TEXT NOT NULL,
        created_at TEXT NOT NULL,
        status TEXT NOT NULL
            CHECK (status IN ('pending', 'running', 'finished', 'aborted'))
    )""",
    """CREATE TABLE matches (
        id TEXT PRIMARY KEY NOT NULL CHECK (id <> ''),
        tournament_id TEXT REFERENCES tournaments (id),
        variant TEXT NOT NULL,
        options_json TEXT NOT NULL,
        seed INTEGER,
        seating_json TEXT NOT NULL,
        outcome_json TEXT NOT NULL,
        record_json TEXT NOT NULL,
        deals INTEGER NOT NULL CHECK (deals >= 0),
        decisions INTEGER NOT NULL CHECK (decisions >= 0),
        finished_at TEXT NOT NULL
    )""",
    "CREATE INDEX matches_tournament ON matches (tournament_id)",
    "CREATE INDEX matches_variant ON matches (variant)",
    """CREATE TABLE ratings (
        bot TEXT NOT NULL REFERENCES bots (name),
        variant TEXT NOT NULL,
        system TEXT NOT NULL CHECK (system IN ('elo', 'openskill', 'room')),
        value REAL NOT NULL,
        sigma REAL,
        matches INTEGER NOT NULL CHECK (matches >= 0),
        updated_at TEXT NOT NULL,
        PRIMARY KEY (bot, variant, system)
    )""",
    """CREATE TABLE rating_history (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        match_id TEXT NOT NULL REFERENCES matches (id),
        bot TEXT NOT NULL,
        variant TEXT NOT NULL,
        system TEXT NOT NULL,
        "before" REAL,
        after REAL NOT NULL,
        sigma REAL,
        at TEXT NOT NULL,
        FOREIGN KEY (bot, variant, system) REFERENCES ratings (bot, variant, system)
    )""",
    "CREATE INDEX rating_history_key ON rating_history (bot, variant, system, id)",
    "CREATE INDEX rating_history_match ON rating_history (match_id)",
)

_SCHEMA_V2: Final = (
    """CREATE TABLE tokens (
        token_id TEXT PRIMARY KEY NOT NULL CHECK (token_id <> ''),
        bot TEXT REFERENCES bots (name),
        hash TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL CHECK (kind IN ('bot', 'admin')),
        created_at TEXT NOT NULL,
        revoked_at TEXT,
        CHECK ((kind = 'bot') = (bot IS NOT NULL))
    )""",
    "CREATE INDEX tokens_bot ON tokens (bot)",
)

_SCHEMA_V3: Final = ("ALTER TABLE bots ADD COLUMN games_json TEXT",)

_SCHEMA_V4: Final = (
    """CREATE TABLE rounds (
        tournament_id TEXT NOT NULL REFERENCES tournaments (id),
        number INTEGER NOT NULL CHECK (number >= 0),
        pairings_json TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (tournament_id, number)
    )""",
)

_SCHEMA_V5: Final = (
    "ALTER TABLE bots ADD COLUMN description TEXT",
    "ALTER TABLE bots ADD COLUMN owner_name TEXT",
)

_SCHEMA_V6: Final = (
    """CREATE TABLE match_summaries (
        number INTEGER PRIMARY KEY,
        id TEXT NOT NULL REFERENCES matches (id),
        variant TEXT NOT NULL,
        tournament_id TEXT,
        options_json TEXT NOT NULL,
        players_json TEXT NOT NULL,
        result TEXT NOT NULL CHECK (result IN ('team0', 'team1', 'draw', 'aborted')),
        winner_team INTEGER,
        totals_json TEXT NOT NULL,
        deals INTEGER NOT NULL,
        end_reason TEXT NOT NULL,
        rated INTEGER NOT NULL,
        auto_plays INTEGER NOT NULL,
        flights INTEGER NOT NULL,
        finished_at TEXT NOT NULL
    )""",
    "CREATE UNIQUE INDEX match_summaries_id ON match_summaries (id)",
    "CREATE INDEX match_summaries_variant ON match_summaries (variant, number)",
    "CREATE INDEX match_summaries_tournament ON match_summaries (tournament_id, number)",
    "CREATE INDEX match_summaries_result ON match_summaries (result, number)",
    "CREATE INDEX match_summaries_finished ON match_summaries (finished_at)",
    """CREATE TABLE match_players (
        number INTEGER NOT NULL REFERENCES match_summaries (number),
        seat INTEGER NOT NULL CHECK (seat >= 0),
        bot TEXT NOT NULL,
        variant TEXT NOT NULL,
        team INTEGER NOT NULL CHECK (team IN (0, 1)),
        score REAL CHECK (score IN (0, 0.5, 1)),
        PRIMARY KEY (number, seat)
    ) WITHOUT ROWID""",
    "CREATE INDEX match_players_bot ON match_players (bot, number)",
    """CREATE TABLE bot_results (
        variant TEXT NOT NULL,
        bot TEXT NOT NULL,
        wins INTEGER NOT NULL CHECK (wins >= 0),
        draws INTEGER NOT NULL CHECK (draws >= 0),
        losses INTEGER NOT NULL CHECK (losses >= 0),
        PRIMARY KEY (variant, bot)
    ) WITHOUT ROWID""",
    "CREATE INDEX bot_results_bot ON bot_results (bot)",
    "CREATE INDEX ratings_rank ON ratings (variant, system, value)",
)

_SCHEMA_V7: Final = (
    """CREATE TABLE balance_runs (
        id TEXT PRIMARY KEY NOT NULL CHECK (id <> ''),
        definition_json TEXT NOT NULL,
        command TEXT NOT NULL,
        status TEXT NOT NULL
            CHECK (status IN ('running', 'interrupted', 'failed', 'finished')),
        report_json TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    )""",
    """CREATE TABLE balance_batches (
        run_id TEXT NOT NULL REFERENCES balance_runs (id),
        variant INTEGER NOT NULL CHECK (variant >= 0),
        number INTEGER NOT NULL CHECK (number >= 0),
        deals INTEGER NOT NULL CHECK (deals >= 0),
        counts_json TEXT NOT NULL,
        stored_at TEXT NOT NULL,
        PRIMARY KEY (run_id, variant, number)
    ) WITHOUT ROWID""",
)

_SCHEMA_V8: Final = (
    """CREATE TABLE people (
        player TEXT PRIMARY KEY NOT NULL REFERENCES bots (name),
        password_hash TEXT NOT NULL CHECK (password_hash <> ''),
        created_at TEXT NOT NULL
    )""",
)

_MIGRATIONS: Final[dict[int, tuple[str, ...]]] = {
    1: _SCHEMA_V1,
    2: _SCHEMA_V2,
    3: _SCHEMA_V3,
    4: _SCHEMA_V4,
    5: _SCHEMA_V5,
    6: _SCHEMA_V6,
    7: _SCHEMA_V7,
    8: _SCHEMA_V8,
}
"""Statements taking the schema from version ``n - 1`` to version ``n``."""

_SUMMARY_COLUMNS: Final = (
    "id, variant, tournament_id, options_json, players_json, result, winner_team, "
    "totals_json, deals, end_reason, rated, auto_plays, flights, finished_at"
)

_FILLS: Final[dict[int, Callable[[sqlite3.Connection], None]]] = {6: _fill_summaries}
"""What fills the tables version ``n`` adds from the rows stored before."""

_MATCH_COLUMNS: Final = (
    "id, tournament_id, variant, options_json, seed, seating_json, outcome_json, "
    "record_json, deals, decisions, finished_at"
)


_PERSON_NAMES: Final = (PERSON_PREFIX, PERSON_PREFIX[:-1] + chr(ord(PERSON_PREFIX[-1]) + 1))
"""Every person's player name sorts in [first, second) (an index range, not a LIKE)."""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def _dumps(value: object, what: str) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as err:
        raise StoreError(f"{what} is not JSON-ready: {err}") from None


def _loads(text: str) -> Any:
    """Stored JSON text; a :class:`StoreError` if it cannot be read back (a store changed
    by hand: numbers of thousands of digits, nesting deeper than Python follows)."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as err:
        raise StoreError(f"stored JSON cannot be read: {err}") from None


_BOT_COLUMNS: Final = "name, kind, owner, version, created_at, games_json, description, owner_name"


def _bot_from_row(row: sqlite3.Row) -> Bot:
    games = row["games_json"]
    return Bot(
        name=row["name"],
        kind=row["kind"],
        owner=row["owner"],
        version=row["version"],
        created_at=row["created_at"],
        games=None if games is None else tuple(_loads(games)),
        description=row["description"],
        owner_name=row["owner_name"],
    )


def _tournament_from_row(row: sqlite3.Row) -> Tournament:
    return Tournament(
        id=row["id"],
        name=row["name"],
        variant=row["variant"],
        options=_loads(row["options_json"]),
        config=_loads(row["config_json"]),
        status=row["status"],
        created_at=row["created_at"],
    )


_BALANCE_RUN_QUERY: Final = (
    "SELECT r.id, r.definition_json, r.command, r.status, r.report_json, r.created_at, "
    "r.updated_at, count(b.number) AS batches, coalesce(sum(b.deals), 0) AS deals "
    "FROM balance_runs r LEFT JOIN balance_batches b ON b.run_id = r.id"
)


def _balance_run_from_row(row: sqlite3.Row) -> BalanceRun:
    report = row["report_json"]
    return BalanceRun(
        id=row["id"],
        definition=_loads(row["definition_json"]),
        command=row["command"],
        status=row["status"],
        report=None if report is None else _loads(report),
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        batches=row["batches"],
        deals=row["deals"],
    )


def _match_from_row(row: sqlite3.Row) -> StoredMatch:
    return StoredMatch(
        id=row["id"],
        tournament_id=row["tournament_id"],
        variant=row["variant"],
        options=_loads(row["options_json"]),
        seed=row["seed"],
        seating=tuple(_loads(row["seating_json"])),
        outcome=_loads(row["outcome_json"]),
        record=_loads(row["record_json"]),
        deals=row["deals"],
        decisions=row["decisions"],
        finished_at=row["finished_at"],
    )


# ---------------------------------------------------------------------------
# The store


class Store:
    """An open arena store. Use :meth:`Store.open`; close it, or use it as a context manager."""

    def __init__(self, conn: sqlite3.Connection, path: str) -> None:
        self._conn: sqlite3.Connection | None = conn
        self._lock = threading.RLock()
        self.path = path

    # -- opening and closing ------------------------------------------------

    @classmethod
    def open(cls, path: str | Path, *, timeout: float = 30.0, read_only: bool = False) -> Store:
        """Open (creating if needed) the store at ``path``; ``":memory:"`` for a private one.

        ``timeout`` is how long, in seconds, a write waits for another writer. With
        ``read_only`` the store must already exist, and nothing is ever written to it
        (no schema is created or upgraded): what commands that only read use.
        """
        name = str(path)
        if sqlite3.sqlite_version_info < _MIN_SQLITE:
            raise StoreError(
                f"store {name}: SQLite {sqlite3.sqlite_version} is too old "
                f"(need {'.'.join(map(str, _MIN_SQLITE))} or newer)"
            )
        if read_only and not Path(name).exists():
            raise StoreError(f"no store at {name}: the file does not exist")
        target = Path(name).resolve().as_uri() + "?mode=ro" if read_only else name
        try:
            conn = sqlite3.connect(
                target,
                timeout=timeout,
                isolation_level=None,
                check_same_thread=False,
                uri=read_only,
            )
        except sqlite3.Error as err:
            raise StoreError(f"cannot open store {name}: {err}") from None
        conn.row_factory = sqlite3.Row
        store = cls(conn, name)
        try:
            store._prepare(timeout, read_only)
        except BaseException:
            conn.close()
            raise
        return store

    def _prepare(self, timeout: float, read_only: bool) -> None:
        conn = self._connection()
        with self._errors("cannot open store"):
            conn.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            app_id = conn.execute("PRAGMA application_id").fetchone()[0]
            tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if (tables or version) and app_id != APPLICATION_ID:
            raise StoreError(f"store {self.path}: an SQLite file, but not an arena store")
        self._check_version(version)
        if read_only:
            if not version:
                raise StoreError(f"store {self.path} is empty: not an arena store yet")
            return
        with self._errors("cannot open store"):
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if mode.lower() not in ("wal", "memory"):
                raise StoreError(
                    f"store {self.path}: cannot use write-ahead logging here "
                    f"(journal mode stays {mode!r}; a network file system?)"
                )
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute("PRAGMA foreign_keys = ON")
        if version < SCHEMA_VERSION:
            with self._write("cannot create the schema of store", "schema"):
                version = conn.execute("PRAGMA user_version").fetchone()[0]
                self._check_version(version)
                for target in range(version + 1, SCHEMA_VERSION + 1):
                    for statement in _MIGRATIONS[target]:
                        conn.execute(statement)
                    fill = _FILLS.get(target)
                    if fill is not None:
                        fill(conn)
                conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    @property
    def schema_version(self) -> int:
        """The schema version of the file (older than :data:`SCHEMA_VERSION` only when
        opened read-only: opening for writing brings it up to date)."""
        with self._lock, self._errors("cannot read store"):
            version: int = self._connection().execute("PRAGMA user_version").fetchone()[0]
        return version

    def _check_version(self, version: int) -> None:
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"store {self.path} has schema version {version}, newer than this arena "
                f"understands ({SCHEMA_VERSION}): upgrade arena to use it"
            )

    def close(self) -> None:
        """Close the store (idempotent)."""
        with self._lock:
            if self._conn is not None:
                conn, self._conn = self._conn, None
                conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._conn is None else "open"
        return f"<Store {self.path} ({state})>"

    # -- plumbing --------------------------------------------------------------

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreError(f"store {self.path} is closed")
        return self._conn

    @contextmanager
    def _errors(self, doing: str) -> Iterator[None]:
        """Turn SQLite errors into a StoreError naming the path."""
        try:
            yield
        except sqlite3.Error as err:
            raise StoreError(f"{doing} {self.path}: {err}") from None

    @contextmanager
    def _write(self, doing: str, operation: str) -> Iterator[sqlite3.Connection]:
        """One write transaction: committed if the block ends normally, else rolled back;
        timed (and failures counted) in the metrics under ``operation``."""
        with observe_store_write(operation), self._lock, self._errors(doing):
            conn = self._connection()
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
                if conn.in_transaction:  # the block may have rolled back on purpose
                    conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.rollback()
                raise

    def _read(self, sql: str, params: Sequence[object] = ()) -> list[sqlite3.Row]:
        with self._lock, self._errors("cannot read store"):
            return self._connection().execute(sql, params).fetchall()

    # -- bots ------------------------------------------------------------------

    def add_bot(
        self, name: str, kind: str, owner: str | None = None, version: str | None = None
    ) -> bool:
        """Register a bot; False if it already is, with the same attributes.

        The same name with another kind, owner or version is an error.
        """
        _check(bool(name), "a bot needs a non-empty name")
        with self._write("cannot add a bot to store", "add_bot") as conn:
            row = conn.execute(
                "SELECT kind, owner, version FROM bots WHERE name = ?", (name,)
            ).fetchone()
            if row is not None:
                if tuple(row) != (kind, owner, version):
                    raise StoreError(
                        f"store {self.path}: bot {name!r} is already registered as "
                        f"kind={row['kind']!r} owner={row['owner']!r} version={row['version']!r}"
                    )
                return False
            conn.execute(
                "INSERT INTO bots (name, kind, owner, version, created_at) VALUES (?, ?, ?, ?, ?)",
                (name, kind, owner, version, _now()),
            )
            return True

    def add_builtin_bots(self, names: Iterable[str]) -> list[str]:
        """Make built-in bots known (kind :data:`BUILTIN_KIND`, no owner), in one
        transaction; those already known are left as they are. The names added.

        A name held by a bot of another kind is an error (nothing is added)."""
        wanted = sorted(set(names))
        _check(all(wanted), "a bot needs a non-empty name")
        added: list[str] = []
        with self._write("cannot add built-in bots to store", "add_builtin_bots") as conn:
            for name in wanted:
                row = conn.execute("SELECT kind FROM bots WHERE name = ?", (name,)).fetchone()
                if row is None:
                    conn.execute(
                        "INSERT INTO bots (name, kind, created_at) VALUES (?, ?, ?)",
                        (name, BUILTIN_KIND, _now()),
                    )
                    added.append(name)
                elif row["kind"] != BUILTIN_KIND:
                    raise StoreError(
                        f"store {self.path}: {name!r} is a built-in bot's name, but a bot "
                        f"of kind {row['kind']!r} holds it"
                    )
        return added

    def bots(self) -> list[Bot]:
        """Every registered bot, by name."""
        rows = self._read(f"SELECT {_BOT_COLUMNS} FROM bots ORDER BY name")
        return [_bot_from_row(row) for row in rows]

    def bot(self, name: str) -> Bot | None:
        """The bot ``name``, or None."""
        rows = self._read(f"SELECT {_BOT_COLUMNS} FROM bots WHERE name = ?", (name,))
        return _bot_from_row(rows[0]) if rows else None

    # -- people -------------------------------------------------------------------

    def add_person(self, player: str, password_hash: str) -> bool:
        """Give ``player`` (``person:NAME``) an account: a row of ``bots`` (kind
        :data:`PERSON_KIND`) and of ``people``, together. False, adding nothing, if the
        name is taken (by a person or a bot)."""
        _check(is_person(player) and player != PERSON_PREFIX, f"{player!r} is no person's")
        _check(bool(password_hash), f"{player!r}: an account needs a password hash")
        with self._write("cannot add a person to store", "add_person") as conn:
            if conn.execute("SELECT 1 FROM bots WHERE name = ?", (player,)).fetchone():
                return False
            at = _now()
            conn.execute(
                "INSERT INTO bots (name, kind, created_at) VALUES (?, ?, ?)",
                (player, PERSON_KIND, at),
            )
            conn.execute(
                "INSERT INTO people (player, password_hash, created_at) VALUES (?, ?, ?)",
                (player, password_hash, at),
            )
            return True

    def accounts(self) -> list[Account]:
        """Every person's account, by name."""
        rows = self._read("SELECT player, created_at FROM people ORDER BY player")
        return [Account(*row) for row in rows]

    def password_hash(self, player: str) -> str | None:
        """The stored password hash of the person ``player``, or None (no account)."""
        rows = self._read("SELECT password_hash FROM people WHERE player = ?", (player,))
        return str(rows[0][0]) if rows else None

    def set_password_hash(self, player: str, password_hash: str) -> None:
        """A new password hash for the person ``player`` (StoreError: no account)."""
        _check(bool(password_hash), f"{player!r}: an account needs a password hash")
        with self._write("cannot update store", "set_password_hash") as conn:
            cursor = conn.execute(
                "UPDATE people SET password_hash = ? WHERE player = ?", (password_hash, player)
            )
            if cursor.rowcount == 0:
                raise StoreError(f"store {self.path}: no person {player!r}")

    def people_results(self, variant: str, player: str | None = None) -> dict[str, Results]:
        """Each player's (or only ``player``'s) won, drawn and lost rated matches of
        ``variant`` at which a person sat (the people's pool's matches), people and bots
        alike."""
        one = "" if player is None else "AND p.bot = ? "
        rows = self._read(
            "SELECT p.bot, sum(p.score = 1), sum(p.score = 0.5), sum(p.score = 0) "
            "FROM match_players p JOIN match_summaries s ON s.number = p.number "
            f"WHERE s.rated = 1 AND p.score IS NOT NULL {one}AND p.number IN ("
            "SELECT number FROM match_players WHERE variant = ? AND bot >= ? AND bot < ?) "
            "GROUP BY p.bot",
            (*([] if player is None else [player]), variant, *_PERSON_NAMES),
        )
        return {row[0]: Results(*row) for row in rows}

    def rated_match_ids(self, pool: str) -> set[str]:
        """The ids of the matches that changed a rating of ``pool`` (a variant, or
        ``people:VARIANT``)."""
        rows = self._read("SELECT DISTINCT match_id FROM rating_history WHERE variant = ?", (pool,))
        return {row[0] for row in rows}

    def set_bot_games(self, name: str, games: Sequence[str] | None) -> None:
        """The variants a registered bot plays (None: every variant)."""
        games_json = None if games is None else _dumps(list(games), f"bot {name!r}: games")
        with self._write("cannot update store", "set_bot_games") as conn:
            cursor = conn.execute(
                "UPDATE bots SET games_json = ? WHERE name = ?", (games_json, name)
            )
            if cursor.rowcount == 0:
                raise StoreError(f"store {self.path}: no bot {name!r}")

    def set_bot_profile(
        self,
        name: str,
        *,
        version: str | None,
        description: str | None,
        owner_name: str | None,
    ) -> None:
        """What a registered remote bot's owner says of it (each registration again)."""
        with self._write("cannot update store", "set_bot_profile") as conn:
            cursor = conn.execute(
                "UPDATE bots SET version = ?, description = ?, owner_name = ? WHERE name = ?",
                (version, description, owner_name, name),
            )
            if cursor.rowcount == 0:
                raise StoreError(f"store {self.path}: no bot {name!r}")

    # -- tokens ------------------------------------------------------------------

    _TOKEN_COLUMNS: Final = "token_id, bot, hash, kind, created_at, revoked_at"

    def add_token(self, token_id: str, bot: str | None, hash: str, kind: str = "bot") -> Token:
        """Store a token's hash: a ``bot`` token names a registered bot, an ``admin`` one none."""
        _check(kind in TOKEN_KINDS, f"unknown token kind {kind!r} (expected bot or admin)")
        _check(
            (kind == "bot") == (bot is not None),
            f"a {kind} token {'needs' if kind == 'bot' else 'names no'} bot",
        )
        created_at = _now()
        with self._write("cannot add a token to store", "add_token") as conn:
            if bot is not None:
                row = conn.execute("SELECT kind FROM bots WHERE name = ?", (bot,)).fetchone()
                if row is None:
                    raise StoreError(f"store {self.path}: no bot {bot!r}")
                if row["kind"] == BUILTIN_KIND:
                    raise StoreError(
                        f"store {self.path}: {bot!r} is a built-in bot: it holds no token"
                    )
            conn.execute(
                f"INSERT INTO tokens ({self._TOKEN_COLUMNS}) VALUES (?, ?, ?, ?, ?, NULL)",
                (token_id, bot, hash, kind, created_at),
            )
        return Token(token_id, bot, hash, kind, created_at, None)

    def token(self, *, token_id: str | None = None, hash: str | None = None) -> Token | None:
        """The token with this handle or this hash (exactly one of them), or None."""
        _check((token_id is None) != (hash is None), "give a token_id or a hash")
        column, value = ("token_id", token_id) if token_id is not None else ("hash", hash)
        rows = self._read(f"SELECT {self._TOKEN_COLUMNS} FROM tokens WHERE {column} = ?", (value,))
        return Token(*rows[0]) if rows else None

    def tokens(self, bot: str) -> list[Token]:
        """Every token of a bot, revoked or not, oldest first."""
        rows = self._read(
            f"SELECT {self._TOKEN_COLUMNS} FROM tokens WHERE bot = ? ORDER BY created_at, rowid",
            (bot,),
        )
        return [Token(*row) for row in rows]

    def revoke_tokens(self, *, token_id: str | None = None, bot: str | None = None) -> int:
        """Revoke one token (by handle) or every token of a bot; how many were not revoked yet."""
        _check((token_id is None) != (bot is None), "give a token_id or a bot")
        column, value = ("token_id", token_id) if token_id is not None else ("bot", bot)
        with self._write("cannot revoke tokens in store", "revoke_tokens") as conn:
            cursor = conn.execute(
                f"UPDATE tokens SET revoked_at = ? WHERE {column} = ? AND revoked_at IS NULL",
                (_now(), value),
            )
            return cursor.rowcount

    # -- tournaments -------------------------------------------------------------

    def add_tournament(
        self,
        id: str,
        name: str,
        variant: str,
        options: dict[str, Any] | None = None,
        config: dict[str, Any] | None = None,
        status: str = "pending",
    ) -> bool:
        """Create a tournament; False if it exists already with the same definition.

        The same id with another name, variant, options or config is an error
        (resuming a tournament under a changed definition); one stored without a config
        (``{}``: an older arena kept none) takes the config given.
        """
        _check(bool(id), "a tournament needs a non-empty id")
        self._check_status(status)
        options_json = _dumps(options or {}, f"tournament {id!r}: options")
        config_json = _dumps(config or {}, f"tournament {id!r}: config")
        with self._write("cannot add a tournament to store", "add_tournament") as conn:
            row = conn.execute(
                "SELECT name, variant, options_json, config_json FROM tournaments WHERE id = ?",
                (id,),
            ).fetchone()
            if row is not None:
                if tuple(row) == (name, variant, options_json, "{}"):
                    conn.execute(
                        "UPDATE tournaments SET config_json = ? WHERE id = ?", (config_json, id)
                    )
                    return False
                if tuple(row) != (name, variant, options_json, config_json):
                    raise StoreError(
                        f"store {self.path}: tournament {id!r} already exists "
                        "with another definition"
                    )
                return False
            conn.execute(
                "INSERT INTO tournaments (id, name, variant, options_json, config_json, "
                "created_at, status) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (id, name, variant, options_json, config_json, _now(), status),
            )
            return True

    def tournament(self, id: str) -> Tournament | None:
        """The tournament ``id``, or None."""
        rows = self._read(
            "SELECT id, name, variant, options_json, config_json, status, created_at "
            "FROM tournaments WHERE id = ?",
            (id,),
        )
        return _tournament_from_row(rows[0]) if rows else None

    def set_tournament_status(self, id: str, status: str) -> None:
        """Set the status of tournament ``id`` (which must exist)."""
        self._check_status(status)
        with self._write("cannot update store", "set_tournament_status") as conn:
            cursor = conn.execute("UPDATE tournaments SET status = ? WHERE id = ?", (status, id))
            if cursor.rowcount == 0:
                raise StoreError(f"store {self.path}: no tournament {id!r}")

    @staticmethod
    def _check_status(status: str) -> None:
        _check(
            status in TOURNAMENT_STATUSES,
            f"unknown tournament status {status!r} "
            f"(expected one of {', '.join(TOURNAMENT_STATUSES)})",
        )

    # -- matches -----------------------------------------------------------------

    def add_match(self, match: StoredMatch, rating_updates: Sequence[RatingUpdate] = ()) -> bool:
        """Store a finished match and the rating changes it causes, in one transaction.

        Returns False, changing nothing, if a match with this id is stored already
        (a retried batch counts once). For each update the current rating becomes
        ``before`` in the history, ``after`` the new value, and the bot's count of
        rated matches grows by one. On any error nothing is stored. When this
        returns True the match is on disk.
        """
        return self.add_matches([(match, rating_updates)]) == 1

    def add_matches(self, matches: Sequence[tuple[StoredMatch, Sequence[RatingUpdate]]]) -> int:
        """Store matches that count together — the two halves of a paired deal — each
        with the rating changes it causes (applied in order), in one transaction: all
        of them or none, across crashes.

        Returns how many were stored: all of them, or 0, changing nothing, if any is
        stored already. Otherwise as :meth:`add_match`.
        """
        if not matches:
            return 0
        rows = [self._match_row(match, updates) for match, updates in matches]
        what = f"match {matches[0][0].id!r}" if len(matches) == 1 else "matches"
        with self._write(f"cannot store {what} in", "add_match") as conn:
            at = _now()
            for (match, updates), row in zip(matches, rows, strict=True):
                if not self._insert_match(conn, match, row, updates, at):
                    conn.rollback()
                    return 0
            return len(matches)

    @staticmethod
    def _match_row(match: StoredMatch, rating_updates: Sequence[RatingUpdate]) -> tuple[Any, ...]:
        """The row of a match, its JSON checked; its updates checked for duplicates."""
        keys = [(u.bot, u.variant, u.system) for u in rating_updates]
        _check(
            len(set(keys)) == len(keys),
            f"match {match.id!r}: two rating updates for the same bot, variant and system",
        )
        what = f"match {match.id!r}"
        return (
            match.id,
            match.tournament_id,
            match.variant,
            _dumps(match.options, f"{what}: options"),
            match.seed,
            _dumps(list(match.seating), f"{what}: seating"),
            _dumps(match.outcome, f"{what}: outcome"),
            _dumps(match.record, f"{what}: record"),
            match.deals,
            match.decisions,
            match.finished_at or _now(),
        )

    def _insert_match(
        self,
        conn: sqlite3.Connection,
        match: StoredMatch,
        row: tuple[Any, ...],
        rating_updates: Sequence[RatingUpdate],
        at: str,
    ) -> bool:
        """Insert a match and apply its rating updates inside the caller's transaction;
        False (nothing written) if the match is stored already."""
        what = f"match {match.id!r}"
        if (
            match.tournament_id is not None
            and not conn.execute(
                "SELECT 1 FROM tournaments WHERE id = ?", (match.tournament_id,)
            ).fetchone()
        ):
            raise StoreError(f"store {self.path}: {what}: no tournament {match.tournament_id!r}")
        cursor = conn.execute(
            f"INSERT INTO matches ({_MATCH_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (id) DO NOTHING",
            row,
        )
        if cursor.rowcount == 0:
            return False
        for update in rating_updates:
            key = (update.bot, update.variant, update.system)
            if not conn.execute("SELECT 1 FROM bots WHERE name = ?", (update.bot,)).fetchone():
                raise StoreError(
                    f"store {self.path}: {what}: rating update for {update.bot!r}, "
                    "which is not a registered bot (add_bot first)"
                )
            old = conn.execute(
                "SELECT value FROM ratings WHERE bot = ? AND variant = ? AND system = ?", key
            ).fetchone()
            conn.execute(
                "INSERT INTO ratings (bot, variant, system, value, sigma, matches, updated_at) "
                "VALUES (?, ?, ?, ?, ?, 1, ?) "
                "ON CONFLICT (bot, variant, system) DO UPDATE SET value = excluded.value, "
                "sigma = excluded.sigma, matches = matches + 1, "
                "updated_at = excluded.updated_at",
                (*key, float(update.after), update.sigma, at),
            )
            conn.execute(
                'INSERT INTO rating_history (match_id, bot, variant, system, "before", '
                "after, sigma, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    match.id,
                    *key,
                    None if old is None else old[0],
                    float(update.after),
                    update.sigma,
                    at,
                ),
            )
        _insert_summary(conn, match, bool(rating_updates), row[-1])
        return True

    def match(self, id: str) -> StoredMatch | None:
        """The match ``id``, or None."""
        rows = self._read(f"SELECT {_MATCH_COLUMNS} FROM matches WHERE id = ?", (id,))
        return _match_from_row(rows[0]) if rows else None

    def match_ids(self, tournament_id: str) -> set[str]:
        """The ids of the matches stored for a tournament (to resume it)."""
        rows = self._read("SELECT id FROM matches WHERE tournament_id = ?", (tournament_id,))
        return {row[0] for row in rows}

    def stored_ids(self, ids: Iterable[str]) -> set[str]:
        """Which of these match ids are stored."""
        wanted = list(dict.fromkeys(ids))
        found: set[str] = set()
        for i in range(0, len(wanted), _PAGE):
            page = wanted[i : i + _PAGE]
            rows = self._read(
                f"SELECT id FROM matches WHERE id IN ({', '.join('?' * len(page))})", page
            )
            found.update(row[0] for row in rows)
        return found

    # -- rounds ------------------------------------------------------------------

    def fix_round(
        self, tournament_id: str, number: int, pairings: Sequence[Sequence[Sequence[str]]]
    ) -> list[list[list[str]]]:
        """The pairings of round ``number`` of a tournament, fixed once: the first call
        stores ``pairings``; every later call returns those, whatever it is given."""
        _check(number >= 0, f"round {number}: a round number is 0 or more")
        pairings_json = _dumps(
            [[list(team) for team in meeting] for meeting in pairings],
            f"tournament {tournament_id!r}: round {number}",
        )
        with self._write("cannot fix a round in store", "fix_round") as conn:
            if not conn.execute(
                "SELECT 1 FROM tournaments WHERE id = ?", (tournament_id,)
            ).fetchone():
                raise StoreError(f"store {self.path}: no tournament {tournament_id!r}")
            conn.execute(
                "INSERT INTO rounds (tournament_id, number, pairings_json, created_at) "
                "VALUES (?, ?, ?, ?) ON CONFLICT (tournament_id, number) DO NOTHING",
                (tournament_id, number, pairings_json, _now()),
            )
            row = conn.execute(
                "SELECT pairings_json FROM rounds WHERE tournament_id = ? AND number = ?",
                (tournament_id, number),
            ).fetchone()
        fixed: list[list[list[str]]] = _loads(row[0])
        return fixed

    def matches(
        self, variant: str | None = None, tournament_id: str | None = None
    ) -> Iterator[StoredMatch]:
        """The stored matches, filtered, in the order they were stored.

        Read a page at a time: no lock is held between pages, and memory stays small.
        """
        where = ["rowid > ?"]
        params: list[object] = []
        if variant is not None:
            where.append("variant = ?")
            params.append(variant)
        if tournament_id is not None:
            where.append("tournament_id = ?")
            params.append(tournament_id)
        sql = (
            f"SELECT rowid, {_MATCH_COLUMNS} FROM matches WHERE {' AND '.join(where)} "
            f"ORDER BY rowid LIMIT {_PAGE}"
        )
        last = 0
        while True:
            rows = self._read(sql, (last, *params))
            for row in rows:
                yield _match_from_row(row)
            if len(rows) < _PAGE:
                return
            last = rows[-1]["rowid"]

    def latest_matches(
        self,
        *,
        variant: str | None = None,
        tournament_id: str | None = None,
        bot: str | None = None,
        limit: int = 50,
    ) -> list[StoredMatch]:
        """The last ``limit`` matches stored that pass the filters, newest first
        (``bot``: a bot that played in them)."""
        where = ["1"]
        params: list[object] = []
        for column, value in (("variant", variant), ("tournament_id", tournament_id)):
            if value is not None:
                where.append(f"{column} = ?")
                params.append(value)
        if bot is not None:  # the name, quoted as in the seating's JSON
            where.append("instr(seating_json, ?) > 0")
            params.append(json.dumps(bot, ensure_ascii=False))
        rows = self._read(
            f"SELECT {_MATCH_COLUMNS} FROM matches WHERE {' AND '.join(where)} "
            "ORDER BY rowid DESC LIMIT ?",
            (*params, limit),
        )
        found = [_match_from_row(row) for row in rows]
        return [m for m in found if bot is None or bot in m.seating]

    # -- lists (match_summaries, match_players) -----------------------------------

    def match_listings(
        self, wanted: MatchFilter = MatchFilter(), *, offset: int = 0, limit: int = 50
    ) -> list[MatchListing]:
        """Stored matches that pass ``wanted``, newest first: ``limit`` from ``offset``."""
        _check(
            offset in _INT64 and limit in _INT64 and offset >= 0 and limit >= 0,
            f"offset {offset} and limit {limit}: 0 or more, 64-bit integers",
        )
        where, params = _where(wanted, self.broad_text(wanted.text))
        rows = self._read(
            f"SELECT number, {_SUMMARY_COLUMNS} FROM match_summaries s WHERE {where} "
            "ORDER BY s.number DESC LIMIT ? OFFSET ?",
            (*params, limit, offset),
        )
        return [_listing_from_row(row) for row in rows]

    def count_matches(self, wanted: MatchFilter = MatchFilter(), most: int | None = None) -> int:
        """How many stored matches pass ``wanted``; counted no further than ``most``
        (newest first) if given."""
        where, params = _where(wanted, self.broad_text(wanted.text))
        if most is None:
            rows = self._read(f"SELECT count(*) FROM match_summaries s WHERE {where}", params)
        else:
            _check(most in _INT64 and most >= 0, f"most {most}: 0 or more, a 64-bit integer")
            rows = self._read(
                f"SELECT count(*) FROM (SELECT 1 FROM match_summaries s WHERE {where} "
                "ORDER BY s.number DESC LIMIT ?)",
                (*params, most),
            )
        count: int = rows[0][0]
        return count

    def broad_text(self, text: str | None) -> bool:
        """Whether a search for ``text`` matches the bots of many matches: at least
        :data:`BROAD_SEATS` seats, and one in a hundred of the matches stored."""
        if not text:
            return False
        rows = self._read(
            "SELECT total(wins + draws + losses) FROM bot_results WHERE bot LIKE ? ESCAPE '\\'",
            (_like(text),),
        )
        seats: float = rows[0][0]
        return seats >= max(BROAD_SEATS, self.last_match_number() / 100)

    def last_match_number(self) -> int:
        """The ``number`` of the match stored last (0: none): it grows with every match
        stored, and ratings and results change only then."""
        rows = self._read("SELECT max(number) FROM match_summaries")
        number: int = rows[0][0] or 0
        return number

    def match_listing(self, id: str) -> MatchListing | None:
        """The stored match ``id`` as lists show it, or None."""
        rows = self._read(
            f"SELECT number, {_SUMMARY_COLUMNS} FROM match_summaries WHERE id = ?", (id,)
        )
        return _listing_from_row(rows[0]) if rows else None

    def results(
        self, variant: str | None = None, *, tournament_id: str | None = None
    ) -> dict[str, Results]:
        """Each bot's won, drawn and lost matches: in a variant, or in one tournament."""
        if tournament_id is not None:
            sql = (
                "SELECT p.bot, sum(p.score = 1), sum(p.score = 0.5), sum(p.score = 0) "
                "FROM match_summaries s JOIN match_players p ON p.number = s.number "
                "WHERE s.tournament_id = ? AND p.score IS NOT NULL GROUP BY p.bot"
            )
            params: tuple[object, ...] = (tournament_id,)
        else:
            sql = "SELECT bot, wins, draws, losses FROM bot_results WHERE variant = ?"
            params = (variant,)
        return {row[0]: Results(*row) for row in self._read(sql, params)}

    def standings(self, variant: str) -> list[Standing]:
        """Every bot rated in a variant or with results there, best Elo first (those
        without an Elo last, by name): one query over ``ratings`` and ``bot_results``."""
        rows = self._read(
            "SELECT bot, max(CASE WHEN system = 'elo' THEN value END) AS elo, "
            "max(CASE WHEN system = 'openskill' THEN value END), "
            "max(CASE WHEN system = 'openskill' THEN sigma END), "
            "max(CASE WHEN system = 'room' THEN value END), "
            "sum(wins), sum(draws), sum(losses) FROM ("
            "SELECT bot, system, value, sigma, 0 AS wins, 0 AS draws, 0 AS losses "
            "FROM ratings WHERE variant = ? UNION ALL "
            "SELECT bot, NULL, NULL, NULL, wins, draws, losses FROM bot_results "
            "WHERE variant = ?) GROUP BY bot ORDER BY elo IS NULL, elo DESC, bot",
            (variant, variant),
        )
        return [Standing(*row) for row in rows]

    def bot_results(self, bot: str) -> dict[str, Results]:
        """A bot's won, drawn and lost matches in each variant it played."""
        rows = self._read(
            "SELECT variant, wins, draws, losses FROM bot_results WHERE bot = ? ORDER BY variant",
            (bot,),
        )
        return {row[0]: Results(bot, row[1], row[2], row[3]) for row in rows}

    def head_to_head(self, bot: str) -> list[HeadToHead]:
        """A bot's results against each bot it met on the other team, most met first."""
        rows = self._read(
            "SELECT opponent, count(*), sum(score = 1), sum(score = 0.5), sum(score = 0) "
            "FROM (SELECT DISTINCT m.number, o.bot AS opponent, m.score AS score "
            "FROM match_players m JOIN match_players o "
            "ON o.number = m.number AND o.team <> m.team "
            "WHERE m.bot = ? AND m.score IS NOT NULL) "
            "GROUP BY opponent ORDER BY count(*) DESC, opponent",
            (bot,),
        )
        return [HeadToHead(*row) for row in rows]

    def conduct_totals(self, bot: str) -> ConductTotals:
        """The bot's refused answers and timed-out decisions summed over its seats in
        stored matches whose outcome keeps them (``conduct``); the matches that do not
        (stored before it was kept, or changed by hand) are counted as ``unknown``."""
        rows = self._read(
            "SELECT total(json_extract(c, '$.illegal[' || seat || ']')), "
            "total(json_extract(c, '$.malformed[' || seat || ']')), "
            "total(json_extract(c, '$.timeouts[' || seat || ']')), "
            "count(DISTINCT CASE WHEN c IS NULL THEN number END) "
            "FROM (SELECT p.number, p.seat, CASE WHEN json_valid(m.outcome_json) THEN "
            "CASE json_type(m.outcome_json, '$.conduct') "
            "WHEN 'object' THEN json_extract(m.outcome_json, '$.conduct') END END AS c "
            "FROM match_players p JOIN match_summaries s ON s.number = p.number "
            "JOIN matches m ON m.id = s.id WHERE p.bot = ?)",
            (bot,),
        )
        illegal, malformed, timeouts, unknown = rows[0]
        return ConductTotals(int(illegal), int(malformed), int(timeouts), unknown)

    def refused_match_ids(self, bot: str, limit: int = 10) -> list[str]:
        """The bot's last ``limit`` stored matches in which the server refused any of its
        answers (illegal or malformed, as their outcome's ``conduct`` keeps), newest first."""
        rows = self._read(
            "SELECT DISTINCT s.id, s.number FROM match_players p "
            "JOIN match_summaries s ON s.number = p.number JOIN matches m ON m.id = s.id "
            "WHERE p.bot = ? AND CASE WHEN json_valid(m.outcome_json) THEN "
            "coalesce(json_extract(m.outcome_json, '$.conduct.illegal[' || p.seat || ']'), 0) "
            "+ coalesce(json_extract(m.outcome_json, '$.conduct.malformed[' || p.seat || ']'), 0)"
            " > 0 ELSE 0 END ORDER BY s.number DESC LIMIT ?",
            (bot, limit),
        )
        return [row[0] for row in rows]

    def incident_listings(self, bot: str, limit: int = 200) -> list[MatchListing]:
        """The bot's last ``limit`` matches whose records hold a clock mark (an automatic
        play, a flight), newest first."""
        rows = self._read(
            f"SELECT number, {_SUMMARY_COLUMNS} FROM match_summaries s "
            "WHERE s.number IN (SELECT number FROM match_players WHERE bot = ?) "
            "AND (s.auto_plays > 0 OR s.flights > 0) ORDER BY s.number DESC LIMIT ?",
            (bot, limit),
        )
        return [_listing_from_row(row) for row in rows]

    def tournaments(self) -> list[Tournament]:
        """Every tournament, newest first."""
        rows = self._read(
            "SELECT id, name, variant, options_json, config_json, status, created_at "
            "FROM tournaments ORDER BY created_at DESC, id"
        )
        return [_tournament_from_row(row) for row in rows]

    # -- balance runs ------------------------------------------------------------

    def add_balance_run(self, id: str, definition: dict[str, Any], command: str) -> bool:
        """Create balance run ``id`` (status ``running``); False if it exists already with
        the same definition (a resumed run: its status becomes ``running`` again). The
        same id with another definition is an error naming both ways out."""
        _check(bool(id), "a balance run needs a non-empty id")
        definition_json = _dumps(definition, f"balance run {id!r}: definition")
        with self._write("cannot add a balance run to store", "add_balance_run") as conn:
            row = conn.execute(
                "SELECT definition_json FROM balance_runs WHERE id = ?", (id,)
            ).fetchone()
            now = _now()
            if row is None:
                conn.execute(
                    "INSERT INTO balance_runs (id, definition_json, command, status, "
                    "created_at, updated_at) VALUES (?, ?, ?, 'running', ?, ?)",
                    (id, definition_json, command, now, now),
                )
                return True
            if _loads(row[0]) != _loads(definition_json):
                raise StoreError(
                    f"store {self.path}: balance run {id!r} exists with another definition "
                    "(resume it with --resume, or give this run another --name)"
                )
            conn.execute(
                "UPDATE balance_runs SET status = 'running', updated_at = ? WHERE id = ?",
                (now, id),
            )
            return False

    def add_balance_batch(self, run_id: str, batch: BalanceBatch) -> bool:
        """Store a finished batch of a run; False, changing nothing, if it is stored
        already (a batch counts once). On disk when this returns."""
        counts_json = _dumps(batch.counts, f"balance run {run_id!r}: batch counts")
        with self._write("cannot store a balance batch in", "add_balance_batch") as conn:
            cursor = conn.execute(
                "INSERT INTO balance_batches (run_id, variant, number, deals, counts_json, "
                "stored_at) VALUES (?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (run_id, variant, number) DO NOTHING",
                (
                    run_id,
                    batch.variant,
                    batch.number,
                    batch.deals,
                    counts_json,
                    _now(),
                ),
            )
            return cursor.rowcount == 1

    def balance_batches(self, run_id: str) -> list[BalanceBatch]:
        """The stored batches of a run, by batch then variant."""
        rows = self._read(
            "SELECT variant, number, deals, counts_json FROM balance_batches "
            "WHERE run_id = ? ORDER BY number, variant",
            (run_id,),
        )
        return [BalanceBatch(row[0], row[1], row[2], _loads(row[3])) for row in rows]

    def set_balance_status(
        self, id: str, status: str, report: dict[str, Any] | None = None
    ) -> None:
        """Set a run's status, and its report when one is given (which must exist)."""
        _check(
            status in BALANCE_STATUSES,
            f"unknown balance run status {status!r} "
            f"(expected one of {', '.join(BALANCE_STATUSES)})",
        )
        report_json = None if report is None else _dumps(report, f"balance run {id!r}: report")
        with self._write("cannot update store", "set_balance_status") as conn:
            cursor = conn.execute(
                "UPDATE balance_runs SET status = ?, updated_at = ?, "
                "report_json = coalesce(?, report_json) WHERE id = ?",
                (status, _now(), report_json, id),
            )
            if cursor.rowcount == 0:
                raise StoreError(f"store {self.path}: no balance run {id!r}")

    def balance_run(self, id: str) -> BalanceRun | None:
        """Balance run ``id``, or None."""
        rows = self._read(f"{_BALANCE_RUN_QUERY} WHERE r.id = ? GROUP BY r.id", (id,))
        return _balance_run_from_row(rows[0]) if rows else None

    def balance_runs(self) -> list[BalanceRun]:
        """Every balance run, newest first."""
        rows = self._read(f"{_BALANCE_RUN_QUERY} GROUP BY r.id ORDER BY r.created_at DESC, r.id")
        return [_balance_run_from_row(row) for row in rows]

    def tournament_counts(self) -> dict[str, int]:
        """The number of stored matches of each tournament that has any."""
        rows = self._read(
            "SELECT tournament_id, count(*) FROM match_summaries "
            "WHERE tournament_id IS NOT NULL GROUP BY tournament_id"
        )
        return {row[0]: row[1] for row in rows}

    def bot_ratings(self, bot: str) -> list[Rating]:
        """A bot's current ratings in every variant and system."""
        rows = self._read(
            "SELECT bot, variant, system, value, sigma, matches, updated_at FROM ratings "
            "WHERE bot = ? ORDER BY variant, system",
            (bot,),
        )
        return [Rating(*row) for row in rows]

    def elo_rank(self, variant: str, elo: float) -> int:
        """The rank an Elo of ``elo`` has in a variant (1: none higher)."""
        rows = self._read(
            "SELECT count(*) FROM ratings WHERE variant = ? AND system = 'elo' AND value > ?",
            (variant, elo),
        )
        rank: int = rows[0][0] + 1
        return rank

    def bot_rating_history(self, bot: str) -> list[RatingChange]:
        """Every change of every rating of a bot (all variants and systems), oldest first."""
        rows = self._read(
            'SELECT id, match_id, bot, variant, system, "before", after, sigma, at '
            "FROM rating_history WHERE bot = ? ORDER BY id",
            (bot,),
        )
        return [RatingChange(*row) for row in rows]

    # -- ratings -----------------------------------------------------------------

    def ratings(self, variant: str, system: str | None = None) -> list[Rating]:
        """Current ratings in a variant (all systems, or one), best first within a system."""
        sql = (
            "SELECT bot, variant, system, value, sigma, matches, updated_at FROM ratings "
            "WHERE variant = ?"
        )
        params: list[object] = [variant]
        if system is not None:
            sql += " AND system = ?"
            params.append(system)
        rows = self._read(sql + " ORDER BY system, value DESC, bot", params)
        return [Rating(*row) for row in rows]

    def rating_history(self, bot: str, variant: str, system: str) -> list[RatingChange]:
        """Every change of one rating, oldest first."""
        rows = self._read(
            'SELECT id, match_id, bot, variant, system, "before", after, sigma, at '
            "FROM rating_history WHERE bot = ? AND variant = ? AND system = ? ORDER BY id",
            (bot, variant, system),
        )
        return [RatingChange(*row) for row in rows]
