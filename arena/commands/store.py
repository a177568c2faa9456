"""``arena store copy FROM TO``: a whole store moved between SQLite and PostgreSQL.

FROM is opened read-only; TO must be new or empty: its schema is made by the open, every
table copied in one transaction and checked row for row against FROM before it is
committed. A failure leaves TO empty and is one line naming what was wrong.
"""

from __future__ import annotations

import argparse
import time

from arena.commands import Subcommands
from arena.commands.arguments import database
from arena.plural import counted
from arena.store import Store
from arena.store.copy import copy_store


def add_parser(sub: Subcommands) -> None:
    """``arena store copy FROM TO``."""
    parser = sub.add_parser(
        "store",
        help="the store itself: copy it between SQLite and PostgreSQL",
        description="The store as a whole (an SQLite file or a postgresql:// URL).",
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    copy = actions.add_parser(
        "copy",
        help="copy a whole store into a new or empty one, checked row for row",
        description="Copy every table of the store FROM into TO (new, or empty), in one "
        "transaction, then check every row equal in both. Either may be an SQLite file or "
        "a PostgreSQL URL (postgresql://user:password@host/database).",
    )
    copy.add_argument("source", metavar="FROM", type=database, help="the store to copy")
    copy.add_argument("target", metavar="TO", type=database, help="a new or empty store")
    copy.set_defaults(handler=run_copy)


def run_copy(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    with Store.open(args.source, read_only=True) as source, Store.open(args.target) as target:
        copied = copy_store(source, target)
        names = source.path, target.path
    seconds = time.perf_counter() - started
    print(f"copied {names[0]} into {names[1]}, checked row for row:")
    width = max(len(table.table) for table in copied)
    for table in copied:
        print(f"  {table.table:<{width}}  {table.rows:>9,}")
    total = sum(table.rows for table in copied)
    rows, tables = counted(total, "row", spec=","), counted(len(copied), "table")
    print(f"{rows} in {tables}, {seconds:.1f} s")
    return 0
