"""What lists and pages read of stored matches without opening their records:
``match_summaries``, ``match_players`` and ``bot_results``."""

from __future__ import annotations

import json
from typing import Final

from arena.store.database import Database
from arena.store.rows import SUMMARY_COLUMNS, in_bytes, listing_from_row, tally
from arena.store.values import (
    CANCELLED,
    INT64,
    ConductTotals,
    HeadToHead,
    MatchFilter,
    MatchListing,
    Results,
    StoreError,
    check,
)

BROAD_SEATS: Final = 2_000
"""Seats of the bots a search matches from which it reads matches newest first, checking
each, rather than gathering every match of those bots (:meth:`Listings.broad_text`)."""

EVERY_MATCH: Final = MatchFilter()
"""The filter that passes every match."""

_LISTED: Final = f"SELECT number, {SUMMARY_COLUMNS} FROM match_summaries s"


def _pg_count(conduct: str, kind: str, seat: str = "seat") -> str:
    """PostgreSQL: the number ``conduct`` (jsonb) keeps of ``kind`` for ``seat``; NULL if
    it keeps none, or something else than a number (an outcome changed by hand)."""
    value = f"({conduct}) -> '{kind}' -> {seat}"
    return f"CASE WHEN jsonb_typeof({value}) = 'number' THEN ({value})::numeric END"


_PG_SEAT_CONDUCT: Final = (
    "SELECT id, number, seat, CASE jsonb_typeof(o -> 'conduct') WHEN 'object' "
    "THEN o -> 'conduct' END AS c FROM (SELECT s.id, p.number, p.seat, "
    "m.outcome_json::jsonb AS o FROM match_players p "
    "JOIN match_summaries s ON s.number = p.number JOIN matches m ON m.id = s.id "
    "WHERE p.bot = :bot OFFSET 0) AS parsed OFFSET 0"
)
"""PostgreSQL: each seat of a bot, its match's id and number and the ``conduct`` object
its outcome keeps (``c``, NULL if none). Each outcome is parsed once: ``OFFSET 0`` keeps
the planner from folding a subquery into the query over it, which would parse the
outcome again at each use of ``c`` (six times a seat for the conduct totals)."""

_SEAT_OUTCOMES: Final = (
    "SELECT p.number, p.seat, m.outcome_json FROM match_players p "
    "JOIN match_summaries s ON s.number = p.number JOIN matches m ON m.id = s.id "
    "WHERE p.bot = :bot ORDER BY p.number DESC, p.seat"
)
"""Each seat of a bot and its match's outcome, newest first (read here, not in the
database, when the database cannot read an outcome)."""

_CONDUCT: Final = {
    "sqlite": (
        "SELECT total(json_extract(c, '$.illegal[' || seat || ']')), "
        "total(json_extract(c, '$.malformed[' || seat || ']')), "
        "total(json_extract(c, '$.timeouts[' || seat || ']')), "
        "count(DISTINCT CASE WHEN c IS NULL THEN number END) "
        "FROM (SELECT p.number, p.seat, CASE WHEN json_valid(m.outcome_json) THEN "
        "CASE json_type(m.outcome_json, '$.conduct') "
        "WHEN 'object' THEN json_extract(m.outcome_json, '$.conduct') END END AS c "
        "FROM match_players p JOIN match_summaries s ON s.number = p.number "
        "JOIN matches m ON m.id = s.id WHERE p.bot = :bot) AS seats"
    ),
    "postgresql": (
        f"SELECT coalesce(sum({_pg_count('c', 'illegal')}), 0), "
        f"coalesce(sum({_pg_count('c', 'malformed')}), 0), "
        f"coalesce(sum({_pg_count('c', 'timeouts')}), 0), "
        f"count(DISTINCT CASE WHEN c IS NULL THEN number END) FROM ({_PG_SEAT_CONDUCT}) AS seats"
    ),
}
"""A bot's conduct summed over its seats (JSON read in the database). PostgreSQL before
16 cannot test whether text is JSON: an outcome that is not (a store changed by hand)
fails its query, and :meth:`Listings.conduct_totals` reads the outcomes here instead."""

_REFUSED: Final = {
    "sqlite": (
        "SELECT DISTINCT s.id, s.number FROM match_players p "
        "JOIN match_summaries s ON s.number = p.number JOIN matches m ON m.id = s.id "
        "WHERE p.bot = :bot AND CASE WHEN json_valid(m.outcome_json) THEN "
        "coalesce(json_extract(m.outcome_json, '$.conduct.illegal[' || p.seat || ']'), 0) "
        "+ coalesce(json_extract(m.outcome_json, '$.conduct.malformed[' || p.seat || ']'), 0)"
        " > 0 ELSE 0 END ORDER BY s.number DESC LIMIT :limit"
    ),
    "postgresql": (
        f"SELECT DISTINCT id, number FROM ({_PG_SEAT_CONDUCT}) AS seats "
        f"WHERE coalesce({_pg_count('c', 'illegal')}, 0) "
        f"+ coalesce({_pg_count('c', 'malformed')}, 0) > 0 ORDER BY number DESC LIMIT :limit"
    ),
}
"""The ids and numbers of a bot's last ``:limit`` matches in which the server refused any
of its answers (illegal or malformed), newest first."""


def _conduct(outcome_json: str) -> dict[str, object] | None:
    """The ``conduct`` an outcome keeps, or None: not kept, or not JSON."""
    try:
        outcome = json.loads(outcome_json)
    except (ValueError, RecursionError):
        return None
    conduct = outcome.get("conduct") if isinstance(outcome, dict) else None
    return conduct if isinstance(conduct, dict) else None


def _kept(conduct: dict[str, object], kind: str, seat: int) -> float:
    """The number ``conduct`` keeps of ``kind`` for ``seat`` (0: none, or no number)."""
    counts = conduct.get(kind)
    value = counts[seat] if isinstance(counts, list) and seat < len(counts) else None
    return value if isinstance(value, int | float) and not isinstance(value, bool) else 0


_LIKE: Final = {"sqlite": "LIKE", "postgresql": 'COLLATE "C" ILIKE'}
"""The operator of a text search: its ASCII letters in either case, every other character
as it is, on every database (SQLite's LIKE; PostgreSQL's LIKE minds case, and its ILIKE
under the database's own collation may fold other letters too)."""


def _like(text: str) -> str:
    """A LIKE pattern (escape ``\\``) finding ``text`` anywhere."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _where(
    wanted: MatchFilter, broad: bool = False, sqlite: bool = True
) -> tuple[str, dict[str, object]]:
    """The WHERE clause (over ``match_summaries s``) of a filter, and its parameters;
    ``broad``: the text matches many matches' bots (:meth:`Listings.broad_text`), so each
    match is checked in turn as the newest are read, instead of gathering them all.
    ``sqlite``: with SQLite's hints to its planner."""
    clauses: list[str] = []
    params: dict[str, object] = {}
    like = _LIKE["sqlite" if sqlite else "postgresql"]
    for name, clause, value in (
        ("variant", "s.variant = :variant", wanted.variant),
        ("tournament", "s.tournament_id = :tournament", wanted.tournament_id),
        ("result", "s.result = :result", wanted.result),
        ("since", "s.finished_at >= :since", wanted.since),
        ("until", "s.finished_at < :until", wanted.until),
        ("bot", "s.number IN (SELECT number FROM match_players WHERE bot = :bot)", wanted.bot),
        ("cancelled", f"(s.end_reason = '{CANCELLED}') = :cancelled", wanted.cancelled),
    ):
        if value is not None:
            clauses.append(clause)
            params[name] = value
    if wanted.text:
        params["text"] = _like(wanted.text)
    if wanted.text and broad:  # +p.bot: each match's players by its number, not by bot
        clauses.append(
            f"(s.id {like} :text ESCAPE '\\' OR EXISTS (SELECT 1 FROM match_players p "
            f"WHERE p.number = s.number AND {'+' if sqlite else ''}p.bot IN "
            f"(SELECT bot FROM bot_results WHERE bot {like} :text ESCAPE '\\')))"
        )
    elif wanted.text:  # the ids (their index alone is read) and the bots seated in a variant
        hint = " INDEXED BY match_summaries_id" if sqlite else ""
        clauses.append(
            f"s.number IN (SELECT number FROM match_summaries{hint} "
            f"WHERE id {like} :text ESCAPE '\\' UNION SELECT number FROM match_players "
            f"WHERE bot IN (SELECT bot FROM bot_results WHERE bot {like} :text ESCAPE '\\'))"
        )
    return (" AND ".join(clauses) or "1 = 1"), params


def _check_page(**bounds: int) -> None:
    check(
        all(value in INT64 and value >= 0 for value in bounds.values()),
        " and ".join(f"{name} {value}" for name, value in bounds.items())
        + f": 0 or more, {'a 64-bit integer' if len(bounds) == 1 else '64-bit integers'}",
    )


class Listings(Database):
    """Stored matches as lists show them, and each bot's results."""

    def _filtered(self, wanted: MatchFilter) -> tuple[str, dict[str, object]]:
        broad = self.broad_text(wanted.text)
        return _where(wanted, broad, self.dialect == "sqlite")

    def match_listings(
        self, wanted: MatchFilter = EVERY_MATCH, *, offset: int = 0, limit: int = 50
    ) -> list[MatchListing]:
        """Stored matches that pass ``wanted``, newest first: ``limit`` from ``offset``."""
        _check_page(offset=offset, limit=limit)
        where, params = self._filtered(wanted)
        rows = self._read(
            f"{_LISTED} WHERE {where} ORDER BY s.number DESC LIMIT :limit OFFSET :offset",
            {**params, "limit": limit, "offset": offset},
        )
        return [listing_from_row(row) for row in rows]

    def count_matches(self, wanted: MatchFilter = EVERY_MATCH, most: int | None = None) -> int:
        """How many stored matches pass ``wanted``; counted no further than ``most``
        (newest first) if given."""
        where, params = self._filtered(wanted)
        if most is None:
            rows = self._read(f"SELECT count(*) FROM match_summaries s WHERE {where}", params)
        else:
            _check_page(most=most)
            rows = self._read(
                f"SELECT count(*) FROM (SELECT 1 FROM match_summaries s WHERE {where} "
                "ORDER BY s.number DESC LIMIT :most) AS counted",
                {**params, "most": most},
            )
        count: int = rows[0][0]
        return count

    def broad_text(self, text: str | None) -> bool:
        """Whether a search for ``text`` matches the bots of many matches: at least
        :data:`BROAD_SEATS` seats, and one in a hundred of the matches stored."""
        if not text:
            return False
        rows = self._read(
            "SELECT coalesce(sum(wins + draws + losses), 0) FROM bot_results "
            f"WHERE bot {_LIKE[self.dialect]} :text ESCAPE '\\'",
            {"text": _like(text)},
        )
        seats = float(rows[0][0])
        return seats >= max(BROAD_SEATS, self.last_match_number() / 100)

    def last_match_number(self) -> int:
        """The ``number`` of the match stored last (0: none): it grows with every match
        stored, and ratings and results change only then."""
        rows = self._read("SELECT max(number) FROM match_summaries")
        number: int = rows[0][0] or 0
        return number

    def match_listing(self, id: str) -> MatchListing | None:
        """The stored match ``id`` as lists show it, or None."""
        rows = self._read(f"{_LISTED} WHERE id = :id", {"id": id})
        return listing_from_row(rows[0]) if rows else None

    def incident_listings(self, bot: str, limit: int = 200) -> list[MatchListing]:
        """The bot's last ``limit`` matches whose records hold a clock mark (an automatic
        play, a flight), newest first."""
        rows = self._read(
            f"{_LISTED} WHERE s.number IN (SELECT number FROM match_players WHERE bot = :bot) "
            "AND (s.auto_plays > 0 OR s.flights > 0) ORDER BY s.number DESC LIMIT :limit",
            {"bot": bot, "limit": limit},
        )
        return [listing_from_row(row) for row in rows]

    def results(
        self, variant: str | None = None, *, tournament_id: str | None = None
    ) -> dict[str, Results]:
        """Each bot's won, drawn and lost matches: in a variant, or in one tournament."""
        if tournament_id is not None:
            rows = self._read(
                f"SELECT p.bot, {tally('p.score')} "
                "FROM match_summaries s JOIN match_players p ON p.number = s.number "
                "WHERE s.tournament_id = :tournament AND p.score IS NOT NULL GROUP BY p.bot",
                {"tournament": tournament_id},
            )
        else:
            rows = self._read(
                "SELECT bot, wins, draws, losses FROM bot_results WHERE variant = :variant",
                {"variant": variant},
            )
        return {row[0]: Results(*row) for row in rows}

    def bot_results(self, bot: str) -> dict[str, Results]:
        """A bot's won, drawn and lost matches in each variant it played."""
        rows = self._read(
            "SELECT variant, wins, draws, losses FROM bot_results WHERE bot = :bot "
            f"ORDER BY {in_bytes('variant', self.dialect)}",
            {"bot": bot},
        )
        return {row[0]: Results(bot, row[1], row[2], row[3]) for row in rows}

    def head_to_head(self, bot: str) -> list[HeadToHead]:
        """A bot's results against each bot it met on the other team, most met first."""
        rows = self._read(
            f"SELECT opponent, count(*), {tally('score')} "
            "FROM (SELECT DISTINCT m.number, o.bot AS opponent, m.score AS score "
            "FROM match_players m JOIN match_players o "
            "ON o.number = m.number AND o.team <> m.team "
            "WHERE m.bot = :bot AND m.score IS NOT NULL) AS met "
            f"GROUP BY opponent ORDER BY count(*) DESC, {in_bytes('opponent', self.dialect)}",
            {"bot": bot},
        )
        return [HeadToHead(*row) for row in rows]

    def conduct_totals(self, bot: str) -> ConductTotals:
        """The bot's refused answers and timed-out decisions summed over its seats in
        stored matches whose outcome keeps them (``conduct``); the matches that do not
        (stored before it was kept, or changed by hand) are counted as ``unknown``."""
        try:
            rows = self._read(_CONDUCT[self.dialect], {"bot": bot})
        except StoreError:
            if self.dialect == "sqlite":
                raise
            return self._conduct_read_here(bot)  # an outcome that is not JSON (_CONDUCT)
        illegal, malformed, timeouts, unknown = rows[0]
        return ConductTotals(int(illegal), int(malformed), int(timeouts), unknown)

    def _conduct_read_here(self, bot: str) -> ConductTotals:
        """:meth:`conduct_totals`, the outcomes read here rather than in the database."""
        sums = {"illegal": 0.0, "malformed": 0.0, "timeouts": 0.0}
        unknown: set[int] = set()
        for number, seat, outcome_json in self._read(_SEAT_OUTCOMES, {"bot": bot}):
            conduct = _conduct(outcome_json)
            if conduct is None:
                unknown.add(number)
                continue
            for kind in sums:
                sums[kind] += _kept(conduct, kind, seat)
        return ConductTotals(
            int(sums["illegal"]), int(sums["malformed"]), int(sums["timeouts"]), len(unknown)
        )

    def refused_match_ids(self, bot: str, limit: int = 10) -> list[str]:
        """The bot's last ``limit`` stored matches in which the server refused any of its
        answers (illegal or malformed, as their outcome's ``conduct`` keeps), newest first."""
        try:
            rows = self._read(_REFUSED[self.dialect], {"bot": bot, "limit": limit})
        except StoreError:
            if self.dialect == "sqlite":
                raise
            return self._refused_read_here(bot, limit)  # an outcome that is not JSON
        return [row[0] for row in rows]

    def _refused_read_here(self, bot: str, limit: int) -> list[str]:
        """:meth:`refused_match_ids`, the outcomes read here rather than in the database."""
        numbers: list[int] = []
        for number, seat, outcome_json in self._read(_SEAT_OUTCOMES, {"bot": bot}):
            conduct = _conduct(outcome_json)
            refused = conduct is not None and (
                _kept(conduct, "illegal", seat) + _kept(conduct, "malformed", seat) > 0
            )
            if refused and number not in numbers:
                numbers.append(number)
                if len(numbers) == limit:
                    break
        if not numbers:
            return []
        ids = self._read(
            "SELECT number, id FROM match_summaries WHERE number IN ("
            + ", ".join(f":n{k}" for k in range(len(numbers)))
            + ")",
            {f"n{k}": number for k, number in enumerate(numbers)},
        )
        found = dict(ids)
        return [found[number] for number in numbers]
