"""Migrations by Alembic: the revisions under ``migrations/versions``, the first of which
(``schema_8``) is the schema the hand-written SQLite migrations ended at.

:func:`upgrade` runs inside the transaction the store opened to bring its schema up to
date, so that a store is either wholly migrated or left as it was. A store of version 8
made before Alembic (no ``alembic_version`` table) is stamped ``schema_8`` first.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any, Final

from alembic.operations import Operations
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection

logging.getLogger("alembic").setLevel(logging.WARNING)  # each revision run is no news

FIRST: Final = "schema_8"
"""The first revision: schema version 8."""


@cache
def scripts() -> ScriptDirectory:
    """The revisions this arena knows (read once per process)."""
    return ScriptDirectory(str(Path(__file__).with_name("migrations")))


def head() -> str:
    """The newest revision."""
    newest = scripts().get_current_head()
    assert newest is not None
    return newest


def current(conn: Connection) -> str | None:
    """The store's revision (None: not under Alembic yet)."""
    return MigrationContext.configure(conn).get_current_revision()


def known(revision: str) -> bool:
    """Whether this arena knows ``revision`` (an unknown one is a newer arena's)."""
    return revision in {script.revision for script in scripts().walk_revisions()}


def upgrade(conn: Connection, *, stamp_first: bool) -> None:
    """Bring the store to the newest revision inside the caller's transaction;
    ``stamp_first``: its tables are schema 8 already, made before Alembic."""
    script = scripts()
    if stamp_first and current(conn) is None:
        MigrationContext.configure(conn).stamp(script, FIRST)

    def steps(revision: Any, _: MigrationContext) -> Iterable[Any]:
        return script._upgrade_revs("head", revision)

    context = MigrationContext.configure(conn, opts={"fn": steps, "script": script})
    with Operations.context(context):
        context.run_migrations()
