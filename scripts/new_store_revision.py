"""A new revision of the store's schema, chained onto the newest:

    .venv/bin/python scripts/new_store_revision.py "index matches by finished_at"

writes ``arena/store/migrations/versions/schema_9_index_matches_by_finished_at.py``
(revision ``schema_9`` after ``schema_8``) from ``migrations/script.py.mako``, for its
``upgrade`` to be written. Every store runs it when it is next opened for writing, in
the transaction that opens it (:mod:`arena.store.migrate`).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory

MIGRATIONS = Path(__file__).resolve().parent.parent / "arena" / "store" / "migrations"


def next_revision(head: str | None) -> str:
    """The id after ``head``: ``schema_9`` after ``schema_8``."""
    found = re.fullmatch(r"schema_(\d+)", head or "")
    if found is None:
        raise SystemExit(f"the newest revision {head!r} is not named schema_N")
    return f"schema_{int(found.group(1)) + 1}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("message", help="what the revision changes, in a few words")
    parser.add_argument("--migrations", type=Path, default=MIGRATIONS, help="the migrations folder")
    args = parser.parse_args(argv)
    config = Config()
    config.set_main_option("script_location", str(args.migrations))
    config.set_main_option("file_template", "%%(rev)s_%%(slug)s")
    head = ScriptDirectory.from_config(config).get_current_head()
    script = command.revision(config, message=args.message, rev_id=next_revision(head))
    if script is None or isinstance(script, list):
        raise SystemExit("no revision was written")
    print(script.path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
