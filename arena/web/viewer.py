"""What the web face may show, and the only module of it that reads the store or the
running matches.

Public events come only from the Spectate operations: :func:`stored_messages` for a
stored match, :meth:`MatchSession.watch` (through :class:`LiveFeed`) for a running one,
whose finished deals come first, public messages alone, so that a page reviews them.
All hands come only from a finished match's stored record, the one
``Leaderboard.GetMatchRecord`` gives anyone (:meth:`Viewer.revealed_record`); a running
match never gives out a record. Lists, counts, leaderboards and head-to-head figures are
SQL over the store's summary tables (:class:`~arena.store.MatchFilter`), never Python
over every match. Balance reports are the JSON files ``arena balance --json FILE``
writes, read from one folder by a checked name.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncGenerator, Callable, Iterator, Mapping, Sequence
from contextlib import aclosing
from dataclasses import dataclass, field
from datetime import UTC
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import grpc
from google.protobuf.json_format import MessageToDict

from arena import games
from arena._proto.arena.v1 import arena_pb2
from arena.errors import ArenaError, ParseError, quoted
from arena.log import get_logger
from arena.rating import wilson_interval
from arena.rating.pools import is_person, people_pool, pool_variant
from arena.replay import MatchRecord
from arena.server.services import Failure
from arena.server.spectate import DealOutline, LiveFeed, stored_messages, stored_watch
from arena.sim import TournamentConfig
from arena.sim.driver import expected_matches
from arena.sim.league import ELO, OPENSKILL, ROOM, Ratings
from arena.store import (
    SCHEMA_VERSION,
    BalanceRun,
    ConductTotals,
    HeadToHead,
    MatchFilter,
    MatchListing,
    Rating,
    Results,
    Standing,
    Store,
    StoreError,
    Tournament,
    match_result,
)
from arena.web.incidents import Incidents, match_incidents
from arena.web.paging import Page, pages_of
from arena.web.query import DEFAULT_PER_PAGE, MatchQuery
from arena.web.report_files import ReportMissing, ReportRow, read_report, report_rows

if TYPE_CHECKING:
    from arena.server.session import MatchSession

log = get_logger(__name__)

__all__ = [
    "BotInfo",
    "BotPage",
    "BrokenMatch",
    "LeaderRow",
    "MatchPage",
    "MatchQuery",
    "MatchRow",
    "NotFound",
    "ReportRow",
    "TournamentPage",
    "TournamentRow",
    "Viewer",
]

RECENT: Final = 20
SEARCH_AHEAD: Final = 1_000
"""Matches a text search counts past its page's first: the pages it tells of (more may
follow, as it shows)."""
"""Matches a bot page lists."""
INCIDENT_MATCHES: Final = 200
"""The most matches with clock marks a bot page re-plays to count its incidents."""
TEAM0_SCORE: Final = {"team0": 1.0, "team1": 0.0, "draw": 0.5}
"""A played-out match's result as team 0's score (how ratings take it)."""
MESSAGES_KEPT: Final = 16
"""Stored matches whose public messages a viewer keeps once re-played."""
DEALS_KEPT: Final = 64
"""Deals of stored matches whose public messages (and their match's outline) a viewer
keeps once re-played."""
OUTLINES_KEPT: Final = 64
"""Stored matches whose outline a viewer keeps (another of their deals is then
re-played alone)."""
REFUSED_SHOWN: Final = 10
"""Matches with refused answers a bot page links."""
INCIDENT_CACHE: Final = 10_000
"""Matches whose incidents a viewer keeps once counted."""


class NotFound(Exception):
    """An unknown bot, match, tournament or report (a 404); the message names it.
    ``what`` (``match``, ``bot``, ``tournament``, ``report``, ``variant``, ``deal``)
    and ``name`` let a page say it in its own language."""

    def __init__(self, message: str, what: str = "", name: str = "") -> None:
        super().__init__(message)
        self.what = what
        self.name = name


class BrokenMatch(ArenaError):
    """A stored match whose record cannot be re-played (the store was changed by hand)."""


# ---------------------------------------------------------------------------
# Rows


@dataclass(frozen=True)
class LeaderRow:
    """A bot in a leaderboard: its ratings and its played-out matches."""

    rank: int
    bot: str
    elo: float | None
    skill: float | None
    """OpenSkill μ−3σ."""
    room_points: float | None
    """Shengji variants only."""
    matches: int
    wins: int
    draws: int
    losses: int
    win_rate: float | None
    """Won matches, a draw counted half, over matches; None without any."""
    win_low: float
    win_high: float
    """The win rate's Wilson 95% interval."""


@dataclass(frozen=True)
class MatchRow:
    """A match as lists show it, stored or running."""

    id: str
    variant: str
    tournament: str | None
    players: tuple[str, ...]
    status: str
    """``running``, ``scheduled``, ``finished`` or ``aborted`` (cut short)."""
    winner_team: int | None
    totals: tuple[int, ...]
    deals: int
    end_reason: str
    created: str
    """When it finished (stored) or started (running), ISO 8601; empty if not yet."""
    rated: bool
    live: bool
    result: str = ""
    """A finished match's result as the ``result`` filter reads it (``team0``, ``team1``,
    ``draw``, ``aborted``): by team score, so a deal-limit match is won on points; empty
    for a running one."""


MatchPage = Page[MatchRow]


@dataclass(frozen=True)
class BotInfo:
    name: str
    kind: str
    owner: str | None
    """The display name its owner gave."""
    version: str | None
    description: str | None
    games: tuple[str, ...] | None
    """The variants it registered for; None: every variant."""
    created: str | None


@dataclass(frozen=True)
class BotPage:
    bot: BotInfo
    ratings: dict[str, LeaderRow]
    """Per variant it played or is rated in; ``rank`` is its Elo rank there."""
    history: dict[str, dict[str, list[tuple[str, float, str]]]]
    """Per variant, per system (``elo``, ``skill``: OpenSkill μ−3σ as in the leaderboard,
    ``room``): (time, value, match id), oldest first."""
    recent: list[MatchRow]
    head_to_head: list[HeadToHead]
    incidents: Incidents
    incident_matches: list[str] = field(default_factory=list)
    """The matches the incidents happened in, newest first."""
    conduct: ConductTotals = field(default_factory=ConductTotals)
    """Its illegal and malformed answers the server refused (and its timed-out
    decisions) over every stored match that keeps them; ``unknown``: matches that don't."""
    refused_matches: list[str] = field(default_factory=list)
    """Its last matches in which the server refused any of its answers, newest first."""
    person: bool = False
    """A person's page (``person:NAME``): a refused click is no conduct of theirs (the
    page shows their time, not their refused answers)."""


@dataclass(frozen=True)
class TournamentRow:
    id: str
    name: str
    variant: str
    status: str
    created: str
    definition: dict[str, Any]
    planned: int | None
    """Matches planned, when its definition says."""
    played: int
    """Matches stored."""


@dataclass(frozen=True)
class TournamentPage(TournamentRow):
    standings: list[LeaderRow]
    """Rated from its own matches only, in the order they were stored."""
    matches: MatchPage


# ---------------------------------------------------------------------------
# The viewer


def _listing_row(listing: MatchListing) -> MatchRow:
    return MatchRow(
        id=listing.id,
        variant=listing.variant,
        tournament=listing.tournament_id,
        players=listing.players,
        status="aborted" if listing.result == "aborted" else "finished",
        winner_team=listing.winner_team,
        totals=listing.totals,
        deals=listing.deals,
        end_reason=listing.end_reason,
        created=listing.finished_at,
        rated=listing.rated,
        live=False,
        result=listing.result,
    )


def _live_row(summary: arena_pb2.MatchSummary) -> MatchRow:
    info = summary.info
    started = summary.started_at.ToDatetime(UTC) if summary.HasField("started_at") else None
    running = summary.status == arena_pb2.MATCH_STATUS_RUNNING
    return MatchRow(
        id=info.match_id,
        variant=info.variant,
        tournament=info.tournament_id or None,
        players=tuple(info.players),
        status="running" if running else "scheduled",
        winner_team=None,
        totals=tuple(summary.totals),
        deals=summary.deals,
        end_reason="",
        created="" if started is None else started.isoformat(timespec="microseconds"),
        rated=info.rated,
        live=True,
    )


def message_dict(message: arena_pb2.WatchMessage) -> dict[str, Any]:
    """A Watch message as the web face passes it on (proto field names, defaults left out)."""
    return MessageToDict(message, preserving_proto_field_name=True)


def _keep_last(cache: dict[Any, Any], most: int) -> None:
    """Drop the oldest entries of ``cache`` beyond ``most``."""
    while len(cache) > most:
        del cache[next(iter(cache))]


def _outline_dict(outline: DealOutline) -> dict[str, Any]:
    """A deal's outline as the table takes it (its start and result as in messages)."""
    return {
        "deal_started": MessageToDict(outline.started, preserving_proto_field_name=True),
        "deal_result": MessageToDict(outline.result, preserving_proto_field_name=True),
        "events_before": outline.events_before,
        "kinds": [[[kind, seat] for kind, seat in batch] for batch in outline.kinds],
    }


def _value(rated: Mapping[str, Rating], system: str) -> float | None:
    rating = rated.get(system)
    return None if rating is None else rating.value


def _ranked(
    standings: Sequence[Standing], results: Callable[[Standing], Results]
) -> list[LeaderRow]:
    """Leaderboard rows of standings in their order, ranked 1, 2, …"""
    return [
        _leader_row(rank, row.bot, row.elo, row.mu, row.sigma, row.room, results(row))
        for rank, row in enumerate(standings, start=1)
    ]


def _leader_row(
    rank: int,
    bot: str,
    elo: float | None,
    mu: float | None,
    sigma: float | None,
    room: float | None,
    results: Results,
) -> LeaderRow:
    n = results.matches
    won = results.wins + results.draws / 2
    low, high = wilson_interval(won, n) if n else (0.0, 1.0)
    return LeaderRow(
        rank=rank,
        bot=bot,
        elo=elo,
        skill=None if mu is None else _conservative(mu, sigma),
        room_points=room,
        matches=n,
        wins=results.wins,
        draws=results.draws,
        losses=results.losses,
        win_rate=won / n if n else None,
        win_low=low,
        win_high=high,
    )


def _conservative(mu: float, sigma: float | None) -> float:
    return mu - 3.0 * sigma if sigma is not None else mu


class Viewer:
    """Read-only access to a store and the running matches, as a web page may see them."""

    def __init__(
        self,
        store: Store,
        sessions: Mapping[str, MatchSession] | None = None,
        reports: Path | None = None,
    ) -> None:
        if store.schema_version < SCHEMA_VERSION:
            raise StoreError(
                f"store {store.path} has schema version {store.schema_version}, older than "
                f"this arena's {SCHEMA_VERSION}: open it once for writing (a command that "
                "stores, e.g. arena serve) to bring it up to date"
            )
        self._store = store
        self._sessions: Mapping[str, MatchSession] = sessions if sessions is not None else {}
        self._reports = reports
        self._incidents: dict[str, dict[str, Incidents]] = {}
        self._leaders: dict[str, tuple[int, list[LeaderRow]]] = {}
        self._messages: dict[str, str] = {}
        self._deals: dict[tuple[str, int], str] = {}
        self._outlines: dict[str, list[DealOutline]] = {}
        self._lock = threading.Lock()

    # -- variants and leaderboards ------------------------------------------------

    def variants(self) -> list[str]:
        return games.names()

    def leaderboard(
        self, variant: str, *, tournament: str | None = None, people: bool = False
    ) -> list[LeaderRow]:
        """A variant's leaderboard (stored ratings: its bots', or ``people``: its people's
        pool, with the bots that sat at their rated tables), or one tournament's
        standings."""
        if tournament is not None:
            found = self._store.tournament(tournament)
            if found is None:
                raise NotFound(f"no tournament {quoted(tournament)}", "tournament", tournament)
            return self._kept(f"tournament {tournament}", lambda: self._standings(found))
        if variant not in games.names():
            known = ", ".join(games.names())
            raise NotFound(f"no variant {quoted(variant)} (known: {known})", "variant", variant)
        if people:
            return self._kept(f"people {variant}", lambda: self._people_rows(variant))
        return self._kept(f"variant {variant}", lambda: self._variant_rows(variant))

    def _kept(self, key: str, make: Callable[[], list[LeaderRow]]) -> list[LeaderRow]:
        """Rows made once for each state of the store: ratings and results change only
        when a match is stored, so they are made again only after one was."""
        last = self._store.last_match_number()
        with self._lock:
            kept = self._leaders.get(key)
        if kept is not None and kept[0] == last:
            return list(kept[1])
        rows = make()
        with self._lock:
            self._leaders[key] = (last, rows)
        return list(rows)

    def _variant_rows(self, variant: str) -> list[LeaderRow]:
        """The bots' league: people who sat at casual tables are in no bot's ranks."""
        standings = [row for row in self._store.standings(variant) if not is_person(row.bot)]
        return _ranked(standings, lambda row: Results(row.bot, row.wins, row.draws, row.losses))

    def _people_rows(self, variant: str) -> list[LeaderRow]:
        results = self._store.people_results(variant)
        standings = self._store.standings(people_pool(variant))
        return _ranked(standings, lambda row: results.get(row.bot, Results(row.bot)))

    def _standings(self, tournament: Tournament) -> list[LeaderRow]:
        """Rated afresh from the tournament's played-out matches, in stored order (as
        ``arena leaderboard --tournament``)."""
        ratings = Ratings(tournament.variant)
        for players, result, record in self._played(tournament):
            if result != "aborted":
                ratings.apply(ratings.rate(players, TEAM0_SCORE[result], record))
        results = self._store.results(tournament_id=tournament.id)
        bots = set(ratings.elo) | set(ratings.skill) | set(ratings.room) | set(results)
        elo = ratings.elo
        ranked = sorted(bots, key=lambda bot: (bot not in elo, -elo.get(bot, 0.0), bot))
        rows = []
        for rank, bot in enumerate(ranked, start=1):
            skill = ratings.skill.get(bot)
            rows.append(
                _leader_row(
                    rank,
                    bot,
                    elo.get(bot),
                    None if skill is None else skill.mu,
                    None if skill is None else skill.sigma,
                    ratings.room.get(bot),
                    results.get(bot, Results(bot)),
                )
            )
        return rows

    def _played(
        self, tournament: Tournament
    ) -> Iterator[tuple[tuple[str, ...], str, dict[str, Any]]]:
        """A tournament's matches, oldest first: players, result and the record where
        rating needs it (Shengji's room points), else from the summaries alone."""
        if tournament.variant.startswith("shengji-"):
            for match in self._store.matches(tournament_id=tournament.id):
                yield match.seating, match_result(match.outcome), match.record
            return
        wanted = MatchFilter(tournament_id=tournament.id)
        total = self._store.count_matches(wanted)
        listings: list[MatchListing] = []
        for offset in range(0, total, 1000):
            listings += self._store.match_listings(wanted, offset=offset, limit=1000)
        for listing in reversed(listings):
            yield listing.players, listing.result, {}

    # -- bots ---------------------------------------------------------------------------

    def bot(self, name: str) -> BotPage:
        """A bot's page; NotFound for a name neither registered nor seated in a match."""
        store = self._store
        bot = store.bot(name)
        recent = store.match_listings(MatchFilter(bot=name), limit=RECENT)
        if bot is None and not recent:
            raise NotFound(f"no bot {quoted(name)}", "bot", name)
        info = BotInfo(
            name=name,
            kind=bot.kind if bot is not None else "person" if is_person(name) else "unregistered",
            owner=bot.owner_name if bot is not None else None,
            version=bot.version if bot is not None else None,
            description=bot.description if bot is not None else None,
            games=bot.games if bot is not None else None,
            created=bot.created_at if bot is not None else None,
        )
        incidents, where = self._bot_incidents(name)
        person = is_person(name)
        return BotPage(
            bot=info,
            ratings=self._bot_ratings(name),
            history=self._history(name),
            recent=[_listing_row(listing) for listing in recent],
            head_to_head=store.head_to_head(name),
            incidents=incidents,
            incident_matches=where,
            conduct=ConductTotals() if person else store.conduct_totals(name),
            refused_matches=[] if person else store.refused_match_ids(name, REFUSED_SHOWN),
            person=person,
        )

    def _bot_ratings(self, name: str) -> dict[str, LeaderRow]:
        """A bot's row in each pool it is rated or has results in (a people's pool: its
        rated matches at people's tables)."""
        results = self._store.bot_results(name)
        by_variant: dict[str, dict[str, Rating]] = {}
        for rating in self._store.bot_ratings(name):
            by_variant.setdefault(rating.variant, {})[rating.system] = rating
            variant = pool_variant(rating.variant)
            if variant != rating.variant and rating.variant not in results:
                played = self._store.people_results(variant, name).get(name, Results(name))
                results[rating.variant] = played
        rows = {}
        for variant in sorted(set(by_variant) | set(results)):
            ratings = by_variant.get(variant, {})
            elo, skill = _value(ratings, ELO), ratings.get(OPENSKILL)
            rows[variant] = _leader_row(
                self._store.elo_rank(variant, elo) if elo is not None else 0,
                name,
                elo,
                None if skill is None else skill.value,
                None if skill is None else skill.sigma,
                _value(ratings, ROOM),
                results.get(variant, Results(name)),
            )
        return rows

    def _history(self, name: str) -> dict[str, dict[str, list[tuple[str, float, str]]]]:
        history: dict[str, dict[str, list[tuple[str, float, str]]]] = {}
        for change in self._store.bot_rating_history(name):
            value = (
                _conservative(change.after, change.sigma)
                if change.system == OPENSKILL
                else change.after
            )
            system = "skill" if change.system == OPENSKILL else change.system
            points = history.setdefault(change.variant, {}).setdefault(system, [])
            points.append((change.at, value, change.match_id))
        return history

    def _bot_incidents(self, name: str) -> tuple[Incidents, list[str]]:
        """The bot's incidents in its last matches with clock marks (re-played once each)."""
        total = Incidents()
        where: list[str] = []
        for listing in self._store.incident_listings(name, INCIDENT_MATCHES):
            mine = self._match_incidents(listing.id).get(name, Incidents())
            if mine:
                total += mine
                where.append(listing.id)
        return total, where

    def _match_incidents(self, id: str) -> dict[str, Incidents]:
        """Each bot's incidents in a stored match, re-played once (the last
        :data:`INCIDENT_CACHE` matches asked are kept)."""
        with self._lock:
            found = self._incidents.get(id)
        if found is None:
            try:
                found = match_incidents(self._record(id))
            except (ArenaError, ValueError, KeyError) as err:  # a record changed by hand
                log.warning("incidents_unreadable", match_id=id, error=str(err))
                found = {}
            with self._lock:
                self._incidents[id] = found
                while len(self._incidents) > INCIDENT_CACHE:
                    del self._incidents[next(iter(self._incidents))]
        return found

    # -- tournaments --------------------------------------------------------------------

    def tournaments(self) -> list[TournamentRow]:
        counts = self._store.tournament_counts()
        return [_tournament_row(t, counts.get(t.id, 0)) for t in self._store.tournaments()]

    def tournament(
        self, id: str, page: int = 1, per_page: int = DEFAULT_PER_PAGE
    ) -> TournamentPage:
        found = self._store.tournament(id)
        if found is None:
            raise NotFound(f"no tournament {quoted(id)}", "tournament", id)
        played = self._store.count_matches(MatchFilter(tournament_id=id))
        row = _tournament_row(found, played)
        return TournamentPage(
            **{name: getattr(row, name) for name in TournamentRow.__dataclass_fields__},
            standings=self.leaderboard(found.variant, tournament=id),
            matches=self.matches(MatchQuery(tournament=id, page=page, per_page=per_page)),
        )

    # -- matches ------------------------------------------------------------------------

    def matches(self, query: MatchQuery) -> MatchPage:
        """A page of stored matches, newest first; a page past the last is empty. A text
        search is counted no further than :data:`SEARCH_AHEAD` matches past the page's
        first (``more``: there may be others, on pages further on)."""
        wanted = query.filter()
        offset = (query.page - 1) * query.per_page
        most = None if query.text is None else offset + SEARCH_AHEAD
        counted = self._store.count_matches(wanted, None if most is None else most + 1)
        more = most is not None and counted > most
        total = most if more and most is not None else counted
        listings = (
            self._store.match_listings(wanted, offset=offset, limit=query.per_page)
            if offset < total
            else []
        )
        return MatchPage(
            rows=[_listing_row(listing) for listing in listings],
            total=total,
            page=query.page,
            pages=pages_of(total, query.per_page),
            per_page=query.per_page,
            more=more,
        )

    def live_matches(self) -> list[MatchRow]:
        """The matches being played now."""
        return [_live_row(session.summary()) for session in list(self._sessions.values())]

    def match(self, id: str) -> MatchRow:
        listing = self._store.match_listing(id)
        if listing is not None:
            return _listing_row(listing)
        session = self._sessions.get(id)
        if session is not None:
            return _live_row(session.summary())
        raise NotFound(f"no match {quoted(id)}", "match", id)

    def watch_messages(self, id: str, after_seq: int = 0) -> list[dict[str, Any]]:
        """A stored match's public messages (the Spectate stream), as dicts of their own.

        A stored match never changes: the whole stream of the last
        :data:`MESSAGES_KEPT` matches asked is kept (as JSON text), so that the page,
        its table and its stream do not re-play the match each."""
        if after_seq == 0:
            with self._lock:
                kept = self._messages.get(id)
            if kept is not None:
                copied: list[dict[str, Any]] = json.loads(kept)
                return copied
        try:
            messages = stored_messages(self._store, id, after_seq)
        except Failure as failure:
            if failure.code == grpc.StatusCode.NOT_FOUND:
                raise NotFound(f"no match {quoted(id)}", "match", id) from None
            raise BrokenMatch(failure.message) from None
        found = [message_dict(message) for message in messages]
        if after_seq == 0:
            text = json.dumps(found, ensure_ascii=False, separators=(",", ":"))
            with self._lock:
                self._messages[id] = text
                while len(self._messages) > MESSAGES_KEPT:
                    del self._messages[next(iter(self._messages))]
        return found

    def deal_messages(
        self, id: str, deal: int
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """One deal of a stored match: its public messages (:func:`stored_messages`
        restricted to ``deal``, numbered as in the whole stream) and the outline of every
        deal (``deal_started``, ``deal_result``, ``events_before``, ``kinds``: each
        event batch's (kind, seat)), from one re-play; NotFound for an unknown match or
        deal. The last :data:`DEALS_KEPT` deals asked are kept, and the outlines of the
        last :data:`OUTLINES_KEPT` matches: another deal of theirs is re-played alone."""
        with self._lock:
            kept = self._deals.get((id, deal))
        if kept is None:
            with self._lock:
                outline = self._outlines.get(id)
            try:
                watch = stored_watch(self._store, id, deal=deal, outline=outline)
            except Failure as failure:
                if failure.code == grpc.StatusCode.NOT_FOUND:
                    if self._store.match_listing(id) is None:
                        raise NotFound(f"no match {quoted(id)}", "match", id) from None
                    said = f"deal: match {quoted(id)} has no deal {deal}"
                    raise NotFound(said, "deal", str(deal)) from None
                raise BrokenMatch(failure.message) from None
            found = {
                "messages": [message_dict(message) for message in watch.messages],
                "outline": [_outline_dict(item) for item in watch.outline],
            }
            kept = json.dumps(found, ensure_ascii=False, separators=(",", ":"))
            with self._lock:
                self._deals[(id, deal)] = kept
                self._outlines[id] = watch.outline
                _keep_last(self._deals, DEALS_KEPT)
                _keep_last(self._outlines, OUTLINES_KEPT)
        copied: dict[str, list[dict[str, Any]]] = json.loads(kept)
        return copied["messages"], copied["outline"]

    def revealed_record(self, id: str) -> MatchRecord | None:
        """The record (every hand) of a stored match, as ``GetMatchRecord`` gives it;
        None for a match still running; NotFound for an unknown one."""
        if self._store.match_listing(id) is None:
            if id in self._sessions:
                return None
            raise NotFound(f"no match {quoted(id)}", "match", id)
        return self._record(id)

    def _record(self, id: str) -> MatchRecord:
        try:
            stored = self._store.match(id)
        except StoreError as err:  # its row cannot be read back
            raise BrokenMatch(f"match {quoted(id)}: {err}") from None
        if stored is None:
            raise NotFound(f"no match {quoted(id)}", "match", id)
        try:
            return MatchRecord.from_dict(stored.record)
        except ParseError as err:
            raise BrokenMatch(f"match {quoted(id)}: its record cannot be read: {err}") from None

    async def follow(self, id: str, after_seq: int = 0) -> AsyncGenerator[dict[str, Any], None]:
        """A running match: its catch-up (the match, its finished deals, the current deal so
        far), then every public message up to its result. A stored one: its stored
        messages. NotFound for an unknown match."""
        session = self._sessions.get(id)
        if session is not None:
            feed = LiveFeed(session)
            if await feed.open(after_seq, history=True):
                async with aclosing(feed.messages()) as live:  # unwatched when left
                    async for message in live:
                        yield message_dict(message)
                return
        for stored in await asyncio.to_thread(self.watch_messages, id, after_seq):
            yield stored

    # -- balance reports ----------------------------------------------------------------

    def reports(self) -> list[ReportRow]:
        """The balance reports in the reports folder, by name (broken files included),
        then the runs of the store that have a report, newest first (a file of the same
        name hides a run)."""
        files = [] if self._reports is None else report_rows(self._reports)
        named = {row.name for row in files}
        runs = [
            _stored_report_row(run)
            for run in self._store.balance_runs()
            if run.report is not None and run.id not in named
        ]
        return files + runs

    def report(self, name: str) -> dict[str, Any]:
        """A report's JSON: the file of that name, else the stored run's last report;
        NotFound for a bad name, a missing report or a broken file."""
        problem = f"no report {quoted(name)}"
        if self._reports is not None:
            try:
                return read_report(self._reports, name)
            except ReportMissing as err:
                problem = str(err)
        run = self._store.balance_run(name)
        if run is not None and run.report is not None:
            return run.report
        raise NotFound(problem, "report", name)


def _stored_report_row(run: BalanceRun) -> ReportRow:
    report = run.report or {}
    return ReportRow(
        name=run.id,
        modified=run.updated_at,
        size=0,
        variants=tuple(str(v.get("name")) for v in report.get("variants", ())),
        deals_per_variant=report.get("deals_per_variant"),
        complete=bool(report.get("complete", True)),
        error=None,
        stored=run.status,
    )


def _tournament_row(tournament: Tournament, played: int) -> TournamentRow:
    return TournamentRow(
        id=tournament.id,
        name=tournament.name,
        variant=tournament.variant,
        status=tournament.status,
        created=tournament.created_at,
        definition=tournament.config,
        planned=_planned(tournament.config),
        played=played,
    )


def _planned(config: Mapping[str, Any]) -> int | None:
    """Matches a stored definition plans: a fixture's (a paired one plays each twice), or
    a tournament definition's; None when the store holds no definition."""
    matches = config.get("matches")
    if config.get("fixture") is True:
        if isinstance(matches, int) and matches > 0:
            return matches * (2 if config.get("paired") else 1)
        return None
    if not config:
        return None
    try:
        return expected_matches(TournamentConfig.from_mapping(dict(config)))
    except (ArenaError, ValueError, TypeError):
        return None
