"""``arena people``: the accounts people play under at a server's tables.

``list`` shows them (never their passwords); ``password NAME`` sets a new password for
one, for a person who lost theirs (read from the terminal, twice, or from standard
input with ``--stdin``). Accounts are made on the web face (``/account``).
"""

from __future__ import annotations

import argparse
import getpass
import sys

from rich.console import Console
from rich.table import Table

from arena.commands import Subcommands, add_db_argument, print_json
from arena.errors import ConfigError
from arena.rating.pools import PERSON_PREFIX
from arena.store import Store
from arena.web.accounts import hash_password, password_problem
from arena.web.people import person_name_problem


def add_parser(sub: Subcommands) -> None:
    """``arena people list | password NAME``."""
    parser = sub.add_parser(
        "people",
        help="the accounts people play under: list them, set a new password",
        description="The accounts of people who play at the server's tables (made on the "
        "web face, /account).",
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    listing = actions.add_parser("list", help="every account, by name")
    add_db_argument(listing)
    listing.add_argument("--json", action="store_true", help="JSON for machines")
    listing.set_defaults(handler=run_list)
    password = actions.add_parser("password", help="a new password for an account")
    password.add_argument("name", help="the account's name (as shown at the tables)")
    password.add_argument(
        "--stdin", action="store_true", help="read the password from standard input"
    )
    add_db_argument(password)
    password.set_defaults(handler=run_password)


def run_list(args: argparse.Namespace) -> int:
    with Store.open(args.db, read_only=True) as store:
        accounts = store.accounts()
    rows = [
        {"name": a.player.removeprefix(PERSON_PREFIX), "player": a.player, "since": a.created_at}
        for a in accounts
    ]
    if args.json:
        print_json({"people": rows})
        return 0
    if not rows:
        print(f"{store.path}: no accounts yet (people make them on the web face, /account)")
        return 0
    table = Table(title="people")
    for column in ("name", "player", "since"):
        table.add_column(column)
    for row in rows:
        table.add_row(row["name"], row["player"], row["since"])
    Console().print(table)
    return 0


def _new_password(from_stdin: bool) -> str:
    if from_stdin:
        return sys.stdin.readline().rstrip("\n")
    first = getpass.getpass("new password: ")
    if getpass.getpass("again: ") != first:
        raise ConfigError("the two passwords differ: nothing changed")
    return first


def run_password(args: argparse.Namespace) -> int:
    problem = person_name_problem(args.name)
    if problem is not None:
        raise ConfigError(str(problem))
    player = PERSON_PREFIX + args.name
    with Store.open(args.db) as store:
        if store.password_hash(player) is None:
            raise ConfigError(f"{store.path}: no account {args.name!r} ('arena people list')")
        password = _new_password(args.stdin)
        refused = password_problem(password)
        if refused is not None:
            raise ConfigError(f"{refused}: nothing changed")
        store.set_password_hash(player, hash_password(password))
    print(f"{args.name}: new password set")
    return 0
