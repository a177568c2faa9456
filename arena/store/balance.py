"""Balance runs (``arena balance``: ``balance_runs``) and their finished batches
(``balance_batches``), kept so that a run can be resumed, listed and opened later."""

from __future__ import annotations

from typing import Any, Final

from arena.store.database import Database, run
from arena.store.rows import balance_run_from_row, dumps, in_bytes, loads, now
from arena.store.values import BALANCE_STATUSES, BalanceBatch, BalanceRun, StoreError, check

_RUN_QUERY: Final = (
    "SELECT r.id, r.definition_json, r.command, r.status, r.report_json, r.created_at, "
    "r.updated_at, count(b.number) AS batches, coalesce(sum(b.deals), 0) AS deals "
    "FROM balance_runs r LEFT JOIN balance_batches b ON b.run_id = r.id"
)


class BalanceRuns(Database):
    """Balance runs and their batches: a batch counts once, across resumes."""

    def add_balance_run(self, id: str, definition: dict[str, Any], command: str) -> bool:
        """Create balance run ``id`` (status ``running``); False if it exists already with
        the same definition (a resumed run: its status becomes ``running`` again). The
        same id with another definition is an error naming both ways out."""
        check(bool(id), "a balance run needs a non-empty id")
        definition_json = dumps(definition, f"balance run {id!r}: definition")
        with self._write("cannot add a balance run to store", "add_balance_run") as conn:
            stored = run(
                conn, "SELECT definition_json FROM balance_runs WHERE id = :id", {"id": id}
            ).scalar()
            at = now()
            if stored is None:
                run(
                    conn,
                    "INSERT INTO balance_runs (id, definition_json, command, status, "
                    "created_at, updated_at) VALUES (:id, :definition, :command, 'running', "
                    ":at, :at)",
                    {"id": id, "definition": definition_json, "command": command, "at": at},
                )
                return True
            if loads(stored) != loads(definition_json):
                raise StoreError(
                    f"store {self.path}: balance run {id!r} exists with another definition "
                    "(resume it with --resume, or give this run another --name)"
                )
            run(
                conn,
                "UPDATE balance_runs SET status = 'running', updated_at = :at WHERE id = :id",
                {"at": at, "id": id},
            )
            return False

    def add_balance_batch(self, run_id: str, batch: BalanceBatch) -> bool:
        """Store a finished batch of a run; False, changing nothing, if it is stored
        already (a batch counts once). On disk when this returns."""
        counts_json = dumps(batch.counts, f"balance run {run_id!r}: batch counts")
        with self._write("cannot store a balance batch in", "add_balance_batch") as conn:
            cursor = run(
                conn,
                "INSERT INTO balance_batches (run_id, variant, number, deals, counts_json, "
                "stored_at) VALUES (:run, :variant, :number, :deals, :counts, :at) "
                "ON CONFLICT (run_id, variant, number) DO NOTHING",
                {
                    "run": run_id,
                    "variant": batch.variant,
                    "number": batch.number,
                    "deals": batch.deals,
                    "counts": counts_json,
                    "at": now(),
                },
            )
            stored: bool = cursor.rowcount == 1
            return stored

    def balance_batches(self, run_id: str) -> list[BalanceBatch]:
        """The stored batches of a run, by batch then variant."""
        rows = self._read(
            "SELECT variant, number, deals, counts_json FROM balance_batches "
            "WHERE run_id = :run ORDER BY number, variant",
            {"run": run_id},
        )
        return [BalanceBatch(row[0], row[1], row[2], loads(row[3])) for row in rows]

    def set_balance_status(
        self, id: str, status: str, report: dict[str, Any] | None = None
    ) -> None:
        """Set a run's status, and its report when one is given (which must exist)."""
        check(
            status in BALANCE_STATUSES,
            f"unknown balance run status {status!r} "
            f"(expected one of {', '.join(BALANCE_STATUSES)})",
        )
        report_json = None if report is None else dumps(report, f"balance run {id!r}: report")
        self._update(
            "set_balance_status",
            "UPDATE balance_runs SET status = :status, updated_at = :at, "
            "report_json = coalesce(:report, report_json) WHERE id = :id",
            {"status": status, "at": now(), "report": report_json, "id": id},
            f"balance run {id!r}",
        )

    def balance_run(self, id: str) -> BalanceRun | None:
        """Balance run ``id``, or None."""
        rows = self._read(f"{_RUN_QUERY} WHERE r.id = :id GROUP BY r.id", {"id": id})
        return balance_run_from_row(rows[0]) if rows else None

    def balance_runs(self) -> list[BalanceRun]:
        """Every balance run, newest first."""
        rows = self._read(
            f"{_RUN_QUERY} GROUP BY r.id "
            f"ORDER BY r.created_at DESC, {in_bytes('r.id', self.dialect)}"
        )
        return [balance_run_from_row(row) for row in rows]
