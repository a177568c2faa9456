"""Tournaments (``tournaments``) and the pairings of their rounds (``rounds``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena.store.database import Database, run
from arena.store.rows import (
    TOURNAMENT_COLUMNS,
    dumps,
    in_bytes,
    loads,
    now,
    tournament_from_row,
)
from arena.store.values import TOURNAMENT_STATUSES, StoreError, Tournament, check


def _check_status(status: str) -> None:
    check(
        status in TOURNAMENT_STATUSES,
        f"unknown tournament status {status!r} (expected one of {', '.join(TOURNAMENT_STATUSES)})",
    )


class Tournaments(Database):
    """Sets of matches played under one configuration, and their rounds."""

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
        check(bool(id), "a tournament needs a non-empty id")
        _check_status(status)
        options_json = dumps(options or {}, f"tournament {id!r}: options")
        config_json = dumps(config or {}, f"tournament {id!r}: config")
        with self._write("cannot add a tournament to store", "add_tournament") as conn:
            row = run(
                conn,
                "SELECT name, variant, options_json, config_json FROM tournaments WHERE id = :id",
                {"id": id},
            ).first()
            if row is not None:
                if tuple(row) == (name, variant, options_json, "{}"):
                    run(
                        conn,
                        "UPDATE tournaments SET config_json = :config WHERE id = :id",
                        {"config": config_json, "id": id},
                    )
                    return False
                if tuple(row) != (name, variant, options_json, config_json):
                    raise StoreError(
                        f"store {self.path}: tournament {id!r} already exists "
                        "with another definition"
                    )
                return False
            run(
                conn,
                "INSERT INTO tournaments (id, name, variant, options_json, config_json, "
                "created_at, status) VALUES (:id, :name, :variant, :options, :config, :at, "
                ":status)",
                {
                    "id": id,
                    "name": name,
                    "variant": variant,
                    "options": options_json,
                    "config": config_json,
                    "at": now(),
                    "status": status,
                },
            )
            return True

    def tournament(self, id: str) -> Tournament | None:
        """The tournament ``id``, or None."""
        rows = self._read(
            f"SELECT {TOURNAMENT_COLUMNS} FROM tournaments WHERE id = :id", {"id": id}
        )
        return tournament_from_row(rows[0]) if rows else None

    def tournaments(self) -> list[Tournament]:
        """Every tournament, newest first."""
        rows = self._read(
            f"SELECT {TOURNAMENT_COLUMNS} FROM tournaments "
            f"ORDER BY created_at DESC, {in_bytes('id', self.dialect)}"
        )
        return [tournament_from_row(row) for row in rows]

    def set_tournament_status(self, id: str, status: str) -> None:
        """Set the status of tournament ``id`` (which must exist)."""
        _check_status(status)
        self._update(
            "set_tournament_status",
            "UPDATE tournaments SET status = :status WHERE id = :id",
            {"status": status, "id": id},
            f"tournament {id!r}",
        )

    def tournament_counts(self) -> dict[str, int]:
        """The number of stored matches of each tournament that has any."""
        rows = self._read(
            "SELECT tournament_id, count(*) FROM match_summaries "
            "WHERE tournament_id IS NOT NULL GROUP BY tournament_id"
        )
        return {row[0]: row[1] for row in rows}

    def fix_round(
        self, tournament_id: str, number: int, pairings: Sequence[Sequence[Sequence[str]]]
    ) -> list[list[list[str]]]:
        """The pairings of round ``number`` of a tournament, fixed once: the first call
        stores ``pairings``; every later call returns those, whatever it is given."""
        check(number >= 0, f"round {number}: a round number is 0 or more")
        pairings_json = dumps(
            [[list(team) for team in meeting] for meeting in pairings],
            f"tournament {tournament_id!r}: round {number}",
        )
        key = {"tournament": tournament_id, "number": number}
        with self._write("cannot fix a round in store", "fix_round") as conn:
            if not run(conn, "SELECT 1 FROM tournaments WHERE id = :tournament", key).first():
                raise StoreError(f"store {self.path}: no tournament {tournament_id!r}")
            run(
                conn,
                "INSERT INTO rounds (tournament_id, number, pairings_json, created_at) "
                "VALUES (:tournament, :number, :pairings, :at) "
                "ON CONFLICT (tournament_id, number) DO NOTHING",
                {**key, "pairings": pairings_json, "at": now()},
            )
            fixed_json: str = run(
                conn,
                "SELECT pairings_json FROM rounds "
                "WHERE tournament_id = :tournament AND number = :number",
                key,
            ).scalar()
        fixed: list[list[list[str]]] = loads(fixed_json)
        return fixed
