"""Finished matches (``matches``), stored with the rating changes they cause
(``ratings``, ``rating_history``) and their summaries, in one transaction."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Final

from arena.store.database import Database, Write, rollback, run
from arena.store.rows import MATCH_COLUMNS, dumps, match_from_row, now
from arena.store.summaries import insert_summary
from arena.store.values import PAGE, RatingUpdate, StoredMatch, StoreError, check

_MATCH_PARAMS: Final = ", ".join(f":{column}" for column in MATCH_COLUMNS.split(", "))
_STORED: Final = (
    "SELECT s.number, "
    + ", ".join(f"m.{column}" for column in MATCH_COLUMNS.split(", "))
    + " FROM match_summaries s JOIN matches m ON m.id = s.id"
)
"""Matches in the order they were stored (their summary's ``number``)."""


def _match_row(match: StoredMatch, rating_updates: Sequence[RatingUpdate]) -> dict[str, Any]:
    """The row of a match, its JSON checked; its updates checked for duplicates."""
    keys = [(u.bot, u.variant, u.system) for u in rating_updates]
    check(
        len(set(keys)) == len(keys),
        f"match {match.id!r}: two rating updates for the same bot, variant and system",
    )
    what = f"match {match.id!r}"
    return {
        "id": match.id,
        "tournament_id": match.tournament_id,
        "variant": match.variant,
        "options_json": dumps(match.options, f"{what}: options"),
        "seed": match.seed,
        "seating_json": dumps(list(match.seating), f"{what}: seating"),
        "outcome_json": dumps(match.outcome, f"{what}: outcome"),
        "record_json": dumps(match.record, f"{what}: record"),
        "deals": match.deals,
        "decisions": match.decisions,
        "finished_at": match.finished_at or now(),
    }


def _filters(variant: str | None, tournament_id: str | None) -> tuple[str, dict[str, object]]:
    """The conditions (over ``matches m``) of a variant and a tournament, if given."""
    where = "".join(
        f" AND m.{column} = :{column}"
        for column, value in (("variant", variant), ("tournament_id", tournament_id))
        if value is not None
    )
    return where, {"variant": variant, "tournament_id": tournament_id}


class Matches(Database):
    """Stored matches: exactly once by id, with their rating changes."""

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
        rows = [_match_row(match, updates) for match, updates in matches]
        what = f"match {matches[0][0].id!r}" if len(matches) == 1 else "matches"
        with self._write(f"cannot store {what} in", "add_match") as conn:
            at = now()
            for (match, updates), row in zip(matches, rows, strict=True):
                if not self._insert_match(conn, match, row, updates, at):
                    rollback(conn)
                    return 0
            return len(matches)

    def _insert_match(
        self,
        conn: Write,
        match: StoredMatch,
        row: dict[str, Any],
        rating_updates: Sequence[RatingUpdate],
        at: str,
    ) -> bool:
        """Insert a match and apply its rating updates inside the caller's transaction;
        False (nothing written) if the match is stored already."""
        what = f"match {match.id!r}"
        if (
            match.tournament_id is not None
            and not run(
                conn, "SELECT 1 FROM tournaments WHERE id = :id", {"id": match.tournament_id}
            ).first()
        ):
            raise StoreError(f"store {self.path}: {what}: no tournament {match.tournament_id!r}")
        cursor = run(
            conn,
            f"INSERT INTO matches ({MATCH_COLUMNS}) VALUES ({_MATCH_PARAMS}) "
            "ON CONFLICT (id) DO NOTHING",
            row,
        )
        if cursor.rowcount == 0:
            return False
        for update in rating_updates:
            key = {"bot": update.bot, "variant": update.variant, "system": update.system}
            if not run(conn, "SELECT 1 FROM bots WHERE name = :bot", key).first():
                raise StoreError(
                    f"store {self.path}: {what}: rating update for {update.bot!r}, "
                    "which is not a registered bot (add_bot first)"
                )
            before = run(
                conn,
                "SELECT value FROM ratings "
                "WHERE bot = :bot AND variant = :variant AND system = :system",
                key,
            ).scalar()
            change = {
                **key,
                "match": match.id,
                "before": before,
                "after": float(update.after),
                "sigma": update.sigma,
                "at": at,
            }
            run(
                conn,
                "INSERT INTO ratings (bot, variant, system, value, sigma, matches, updated_at) "
                "VALUES (:bot, :variant, :system, :after, :sigma, 1, :at) "
                "ON CONFLICT (bot, variant, system) DO UPDATE SET value = excluded.value, "
                "sigma = excluded.sigma, matches = ratings.matches + 1, "
                "updated_at = excluded.updated_at",
                change,
            )
            run(
                conn,
                'INSERT INTO rating_history (match_id, bot, variant, system, "before", '
                "after, sigma, at) VALUES (:match, :bot, :variant, :system, :before, :after, "
                ":sigma, :at)",
                change,
            )
        insert_summary(conn, match, bool(rating_updates), row["finished_at"])
        return True

    def match(self, id: str) -> StoredMatch | None:
        """The match ``id``, or None."""
        rows = self._read(f"SELECT {MATCH_COLUMNS} FROM matches WHERE id = :id", {"id": id})
        return match_from_row(rows[0]) if rows else None

    def match_ids(self, tournament_id: str) -> set[str]:
        """The ids of the matches stored for a tournament (to resume it)."""
        rows = self._read(
            "SELECT id FROM matches WHERE tournament_id = :tournament",
            {"tournament": tournament_id},
        )
        return {row[0] for row in rows}

    def stored_ids(self, ids: Iterable[str]) -> set[str]:
        """Which of these match ids are stored."""
        wanted = list(dict.fromkeys(ids))
        found: set[str] = set()
        for i in range(0, len(wanted), PAGE):
            page = wanted[i : i + PAGE]
            names = ", ".join(f":id{n}" for n in range(len(page)))
            rows = self._read(
                f"SELECT id FROM matches WHERE id IN ({names})",
                {f"id{n}": id for n, id in enumerate(page)},
            )
            found.update(row[0] for row in rows)
        return found

    def matches(
        self, variant: str | None = None, tournament_id: str | None = None
    ) -> Iterator[StoredMatch]:
        """The stored matches, filtered, in the order they were stored.

        Read a page at a time: no lock is held between pages, and memory stays small.
        """
        where, params = _filters(variant, tournament_id)
        statement = f"{_STORED} WHERE s.number > :last{where} ORDER BY s.number LIMIT {PAGE}"
        last = 0
        while True:
            rows = self._read(statement, {**params, "last": last})
            for row in rows:
                yield match_from_row(row)
            if len(rows) < PAGE:
                return
            last = rows[-1].number

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
        where, params = _filters(variant, tournament_id)
        if bot is not None:
            where += " AND s.number IN (SELECT number FROM match_players WHERE bot = :bot)"
        rows = self._read(
            f"{_STORED} WHERE 1 = 1{where} ORDER BY s.number DESC LIMIT :limit",
            {**params, "bot": bot, "limit": limit},
        )
        found = [match_from_row(row) for row in rows]
        return [m for m in found if bot is None or bot in m.seating]
