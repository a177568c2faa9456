"""Persistence: bots, tournaments, matches and ratings, in one SQLite file (the embedded
default) or a PostgreSQL database (a league on several processes).

The schema below is the contract: other parts of the project, dashboards and
operators read these tables directly, so a change to it is a new Alembic revision
(``arena/store/migrations/versions``), never an edit in place.

One interface
    :class:`Store` is the whole of it: the rest of the arena opens one and calls its
    methods. Behind it each concern is a module of its own, a class over the one
    connection (:mod:`arena.store.database`): bots and their tokens
    (:mod:`~arena.store.bots`), people's accounts (:mod:`~arena.store.people`),
    tournaments and rounds (:mod:`~arena.store.tournaments`), matches with the rating
    changes they cause (:mod:`~arena.store.matches`), what lists read of them
    (:mod:`~arena.store.listings`), ratings (:mod:`~arena.store.ratings`) and balance
    runs (:mod:`~arena.store.balance`). SQL is written once, with named parameters, and
    run by SQLAlchemy Core; what differs between databases is in
    :mod:`~arena.store.sqlite` and :mod:`~arena.store.postgres`. A whole store is copied
    into a new one, from either database to either, by :mod:`~arena.store.copy`.

Opening
    :meth:`Store.open` creates the file and the schema if needed, or checks an
    existing file: a file that is not SQLite, an SQLite file of another
    application, or a schema newer than this code gives a :class:`StoreError`
    naming the path. ``":memory:"`` opens a private in-memory store (tests). A URL
    ``postgresql://…`` opens a store in that database.

Migrations
    Alembic's revisions (:mod:`arena.store.migrate`); the first, ``schema_8``, is schema
    version 8 below. An SQLite store of versions 1 to 7 is first brought to version 8 by
    the hand-written migrations it was made under (:mod:`arena.store.legacy`), in the
    same transaction, every row kept. ``schema_9`` collates every text column ``"C"`` on
    PostgreSQL (by bytes, as SQLite compares text), so that text keys' indexes serve
    the order the store reads them in. A new revision: ``scripts/new_store_revision.py``.

Durability
    A stored match stays stored, on both databases: when :meth:`Store.add_match`
    returns, its commit is on disk. SQLite: ``journal_mode=WAL``, so readers (a
    leaderboard, a dashboard) read while the writer writes, each seeing the last
    committed state; ``synchronous=FULL``, so every commit is synced to disk before the
    write returns. In WAL mode ``NORMAL`` already survives a killed process, but not a
    power cut or an OS crash, after which the last commits can be lost; a match costs
    seconds to play and one sync per match is negligible. ``foreign_keys=ON``; a busy
    timeout (30 s by default) lets a second writer wait for the first instead of failing
    at once. One writer process at a time (the match driver) is the intended use of an
    SQLite store; open one :class:`Store` per process. PostgreSQL: the store's
    connections commit with ``synchronous_commit=on`` whatever the server's, the
    database's or the role's default, so a commit returns once it is flushed to the
    server's disk (given the server's ``fsync``, on unless its operator turned it off);
    readers read the last committed state and never wait for a writer.

Atomicity
    Every write is one transaction, rolled back on any error, and the writes to one store
    take turns, whichever processes make them: ``BEGIN IMMEDIATE`` … ``COMMIT`` on
    SQLite; ``BEGIN`` (``READ COMMITTED``), the store's transaction-scoped advisory lock,
    … ``COMMIT`` on PostgreSQL (:mod:`~arena.store.postgres` says why one lock rather
    than row locks). A second writer waits for the first, up to the store's timeout; then
    its write fails with a :class:`StoreError` naming the store, nothing of it kept. So,
    on both databases and with any number of writer processes: a process killed at any
    moment leaves each match either wholly stored (row, rating changes, rating history,
    summary) or absent; a match stored by several processes at once is stored once (the
    others are told it was stored already); each rating's history is one chain in the
    order of its ``id`` — each change's ``before`` is the ``after`` of the change before
    it, and the rating's ``matches`` counts its changes; and each write that reads
    before it writes (a bot, built-in bots, a person, a tournament, a round's pairings, a
    balance run) has one outcome, whoever comes first. Matches that count together (the
    two halves of a paired deal, :meth:`Store.add_matches`) are one transaction: all
    stored, or none; a round's pairings (:meth:`Store.fix_round`) are stored once, before
    any of its matches.

    The store does not compute ratings: a :class:`RatingUpdate` brings the new value,
    computed by the caller from the ratings it holds (:mod:`arena.sim.league` keeps a
    copy in memory). Two processes rating the same bot at once each compute from their
    own copy: the history stays one chain, but a new value need not take the other
    process's match into account. Keeping ratings computed by several processes
    consistent is the caller's concern.

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

from arena.store.listings import BROAD_SEATS
from arena.store.store import Store
from arena.store.values import (
    APPLICATION_ID,
    AUTO_ENTRY,
    BALANCE_STATUSES,
    BUILTIN_KIND,
    CANCELLED,
    FLED_ENTRY,
    MATCH_RESULTS,
    PERSON_KIND,
    RATING_SYSTEMS,
    SCHEMA_VERSION,
    TOKEN_KINDS,
    TOURNAMENT_STATUSES,
    Account,
    BalanceBatch,
    BalanceRun,
    Bot,
    ConductTotals,
    HeadToHead,
    MatchFilter,
    MatchListing,
    Rating,
    RatingChange,
    RatingUpdate,
    Results,
    Standing,
    StoredMatch,
    StoreError,
    Token,
    Tournament,
    match_result,
)

__all__ = [
    "APPLICATION_ID",
    "AUTO_ENTRY",
    "BALANCE_STATUSES",
    "BROAD_SEATS",
    "BUILTIN_KIND",
    "CANCELLED",
    "FLED_ENTRY",
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
