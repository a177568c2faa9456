"""Balance reports: the JSON files ``arena balance --json FILE`` writes (a run's report,
or with several ``--bots`` the report of several populations), read from one folder by
a checked name (letters, digits, ``.``, ``_``, ``-``; the file ``NAME.json`` of the
folder itself, never a link leading out). A file that is not a report is listed with
why, never a crash."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from pydantic import BaseModel, ConfigDict, ValidationError

from arena.errors import quoted
from arena.plural import counted

__all__ = [
    "MAX_REPORT_BYTES",
    "REPORT_NAME",
    "ReportMissing",
    "ReportRow",
    "read_report",
    "report_rows",
]

MAX_REPORT_BYTES: Final = 20_000_000
REPORT_NAME: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
"""A report's name: its file's name in the reports folder without ``.json``."""


class ReportMissing(Exception):
    """No readable report of that name; the message names it and says why."""


@dataclass(frozen=True)
class ReportRow:
    name: str
    modified: str
    size: int
    variants: tuple[str, ...]
    deals_per_variant: int | None
    complete: bool | None
    error: str | None
    """Why the file cannot be read as a report (listed as broken); None when fine."""
    stored: str | None = None
    """A run of the store (``arena balance`` keeps every run): its status; None: a file."""
    populations: tuple[str, ...] = ()
    """A report of several populations: their names (its variants: the first one's)."""


class _ReportVariant(BaseModel):
    model_config = ConfigDict(extra="allow")

    name: str
    game: str
    deals: int


class _Report(BaseModel):
    """What a row needs of a balance report (``arena balance --json``)."""

    model_config = ConfigDict(extra="allow")

    deals_per_variant: int
    complete: bool
    variants: list[_ReportVariant]


class _Populations(BaseModel):
    """What a row needs of a report of several populations (``--bots`` more than once)."""

    model_config = ConfigDict(extra="allow")

    complete: bool
    population_names: list[str]
    populations: list[_Report]
    style: list[dict[str, Any]]


def report_rows(folder: Path) -> list[ReportRow]:
    """A row for each report file of ``folder``, by name; broken files included."""
    if not folder.is_dir():
        return []
    files = sorted(p for p in folder.glob("*.json") if REPORT_NAME.fullmatch(p.stem))
    rows = (_report_row(path) for path in files if _inside(folder, path))
    return [row for row in rows if row is not None]


def read_report(folder: Path, name: str) -> dict[str, Any]:
    """The JSON of report ``name``; :class:`ReportMissing` for a bad name, a missing
    file or one that is not a report."""
    path = folder / f"{name}.json"
    if not REPORT_NAME.fullmatch(name) or not _inside(folder, path):
        raise ReportMissing(f"no report {quoted(name)}")
    data, error = _read_report(path)
    if error is not None or data is None:
        raise ReportMissing(f"report {quoted(name)} cannot be read: {error}")
    return data


def _inside(folder: Path, path: Path) -> bool:
    """Whether ``path`` is a file of ``folder`` itself (a link leading out is not)."""
    return path.is_file() and path.resolve().parent == folder.resolve()


def _read_report(path: Path) -> tuple[dict[str, Any] | None, str | None]:
    """A report file's JSON, or why it is not a report."""
    try:
        size = path.stat().st_size
        if size > MAX_REPORT_BYTES:
            return (
                None,
                f"{counted(size, 'byte', spec=',')}: a report is at most {MAX_REPORT_BYTES:,}",
            )
        data = json.loads(path.read_text(encoding="utf-8"))
        kind = _Populations if isinstance(data, dict) and "populations" in data else _Report
        kind.model_validate(data)
    except OSError as err:
        return None, err.strerror or type(err).__name__
    except ValidationError as err:
        where = ".".join(str(part) for part in err.errors()[0]["loc"])
        return None, f"not a balance report: {where}: {err.errors()[0]['msg']}"
    except (ValueError, RecursionError) as err:  # not UTF-8, not JSON
        return None, f"not JSON: {str(err).splitlines()[0] if str(err) else type(err).__name__}"
    return data, None


def _report_row(path: Path) -> ReportRow | None:
    """A report file's row; None if it went away while the folder was read."""
    data, error = _read_report(path)
    try:
        stat = path.stat()
    except OSError:
        return None
    modified = datetime.fromtimestamp(stat.st_mtime, UTC).isoformat(timespec="seconds")
    populations: tuple[str, ...] = ()
    first = data
    if data is not None and "populations" in data:
        populations = tuple(data["population_names"])
        first = data["populations"][0] if data["populations"] else None
    return ReportRow(
        name=path.stem,
        modified=modified,
        size=stat.st_size,
        variants=() if first is None else tuple(v["name"] for v in first["variants"]),
        deals_per_variant=None if first is None else first["deals_per_variant"],
        complete=None if data is None else data["complete"],
        error=error,
        populations=populations,
    )
