"""``arena store copy``: a store of every kind of row goes from SQLite to PostgreSQL and
back, every table equal at each step (read from the databases themselves), the copies
read the same through the store, and take new rows after the copied ones; a target with
rows, a missing source, an unreachable server and a failure half-way are refused, the
target left empty."""

from __future__ import annotations

import itertools
import re
import socket
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import psycopg
import pytest
from postgres import fresh_database
from sqlalchemy import make_url
from stores import PASSWORD

from arena.cli import main
from arena.rating.pools import people_pool
from arena.sim import TournamentConfig
from arena.sim.driver import play_tournament
from arena.sim.jobs import MatchJob, MatchReport
from arena.sim.league import League
from arena.sim.worker import play_job
from arena.store import BalanceBatch, Store
from arena.store import copy as store_copy
from arena.store.postgres import is_url
from arena.web.accounts import hash_password

VARIANTS = ("guandan", "shengji-1", "shengji-2", "shengji-3", "shengji-4", "sanfu")
TABLES = {
    "balance_batches",
    "balance_runs",
    "bot_results",
    "bots",
    "match_players",
    "match_summaries",
    "matches",
    "people",
    "rating_history",
    "ratings",
    "rounds",
    "tokens",
    "tournaments",
}
"""The store's tables, every one of which the store built here fills."""


class InProcess:
    """Plays a tournament's jobs here, in order (what Ray's runner does, without Ray)."""

    def run(self, jobs: Sequence[MatchJob], batch_size: int) -> Iterator[MatchReport]:
        for job in jobs:
            yield play_job(job)


def play(store: Store, definition: dict[str, Any]) -> None:
    """A short tournament played and stored as ``arena tournament`` stores it."""
    config = TournamentConfig.from_mapping({"deals": 1, "matches": 2, **definition})
    store.add_tournament(
        config.id, config.name, config.variant, dict(config.options), config.definition()
    )
    store.add_builtin_bots({bot for team in config.teams for bot in team})
    for _ in play_tournament(config, store, League(store, config.variant), InProcess(), 4):
        pass
    store.set_tournament_status(config.id, "finished")


def fill(store: Store) -> None:
    """Every kind of row: tournaments of each variant (a rated one, with its rounds, and
    a paired one), people at a rated table, remote bots and their tokens, a balance run."""
    for variant in VARIANTS:
        play(store, {"name": f"cup-{variant}", "variant": variant, "bots": ["random", "first"]})
    play(store, {"name": "paired", "bots": ["random", "first"], "paired": True})
    play(
        store,
        {
            "name": "rated",
            "variant": "shengji-2",
            "format": "rated",
            "teams": [["random", "random"], ["first", "first"], ["random", "first"]],
        },
    )
    # people: accounts, and a rated table of theirs (rated in the people's pool)
    for name in ("ann", "Zoë", "Émile"):
        assert store.add_person(f"person:{name}", hash_password(f"{name}'s password"))
    job = MatchJob("table-guandan-1", "guandan", {}, 3, ("random",) * 4, 1)
    people = ("person:ann", "random", "person:Zoë", "first")
    at_table = replace(play_job(job), job=replace(job, players=people))
    League(store, people_pool("guandan")).add(at_table, None)
    cut_short = play_job(replace(job, id="cut-short", seed=5)).stored(None, aborted="cancelled")
    store.add_match(cut_short)
    # remote bots (names whose byte order is not a dictionary's), their tokens, an admin's
    for name, owner in (("Zed", "zoe@example.org"), ("alpha", "al@example.org"), ("b-c", None)):
        store.add_bot(name, "remote", owner, "1.0")
        store.add_token(f"tok-{name}", name, f"hash of {name}")
    store.set_bot_games("alpha", ["guandan", "sanfu"])
    store.set_bot_profile("Zed", version="2.0", description="plays 掼蛋", owner_name="Zoë")
    store.add_token("tok-admin", None, "hash of the admin", kind="admin")
    store.revoke_tokens(token_id="tok-b-c")
    # a balance run with its batches
    store.add_balance_run("balance-1", {"variants": ["guandan"], "deals": 4}, "arena balance")
    for number in range(3):
        batch = BalanceBatch(variant=0, number=number, deals=2, counts={"deals": 2, "wins": number})
        assert store.add_balance_batch("balance-1", batch)
    store.set_balance_status("balance-1", "finished", {"figures": {"wins": 0.5}})


# -- the databases read directly ------------------------------------------------------


def _connect(where: str) -> Any:
    if where.startswith("postgresql://"):
        return psycopg.connect(where)
    return sqlite3.connect(f"file:{where}?mode=ro", uri=True)


def table_rows(where: str) -> dict[str, list[tuple[tuple[str, Any], ...]]]:
    """Every row of every table, read with the database's own driver: each row as its
    (column, value) pairs, a table's rows sorted (the same whatever each database's order)."""
    with _connect(where) as conn:
        if isinstance(conn, sqlite3.Connection):
            listed = (
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            )
        else:
            listed = (
                "SELECT table_name FROM information_schema.tables "
                "WHERE table_schema = current_schema()"
            )
        found = {}
        for (table,) in conn.execute(listed).fetchall():
            cursor = conn.execute(f"SELECT * FROM {table}")
            names = [column[0] for column in cursor.description]
            rows = [tuple(sorted(zip(names, row, strict=True))) for row in cursor.fetchall()]
            found[table] = sorted(rows, key=repr)
    if isinstance(conn, sqlite3.Connection):
        conn.close()
    return found


def counts(where: str) -> dict[str, int]:
    return {table: len(rows) for table, rows in table_rows(where).items()}


# -- the same store through its interface --------------------------------------------


def seen(store: Store) -> dict[str, Any]:
    """What the arena reads of a store: leaderboards, histories, matches, people, runs
    (a round's pairings are read only by the write that fixes them: compared as rows)."""
    pools = [*VARIANTS, people_pool("guandan")]
    bots = store.bots()
    tournaments = store.tournaments()
    return {
        "bots": bots,
        "tokens": {bot.name: store.tokens(bot.name) for bot in bots},
        "accounts": store.accounts(),
        "tournaments": tournaments,
        "ratings": {pool: store.ratings(pool) for pool in pools},
        "standings": {pool: store.standings(pool) for pool in pools},
        "history": {
            (bot.name, pool, system): store.rating_history(bot.name, pool, system)
            for bot in bots
            for pool in pools
            for system in ("elo", "openskill", "room")
        },
        "results": {pool: store.results(pool) for pool in VARIANTS},
        "people": store.people_results("guandan"),
        "listings": store.match_listings(limit=1000),
        "matches": list(store.matches()),
        "balance": (store.balance_runs(), store.balance_batches("balance-1")),
    }


# -- fixtures -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def original(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An SQLite store holding every kind of row (read, never changed, by the tests)."""
    path = tmp_path_factory.mktemp("copy") / "original.sqlite"
    with Store.open(path) as store:
        fill(store)
        listed = store.match_listings(limit=1000)
    assert {match.variant for match in listed} == set(VARIANTS)
    assert {match.result for match in listed} >= {"team0", "team1", "aborted"}
    rows = counts(str(path))
    assert {table for table, count in rows.items() if count} == TABLES | {"alembic_version"}
    return path


def with_password(url: str) -> str:
    """The URL with a password (the tests' server trusts every local connection)."""
    return make_url(url).set(password=PASSWORD).render_as_string(hide_password=False)


def shown(target: str) -> str:
    """How messages name a store: a URL without its password."""
    return make_url(target).render_as_string(hide_password=True) if is_url(target) else target


def copy(capsys: pytest.CaptureFixture[str], source: str, target: str) -> tuple[int, str, str]:
    status = main(["store", "copy", source, target])
    out, err = capsys.readouterr()
    return status, out, err


# -- tests ----------------------------------------------------------------------------


def test_a_store_goes_to_postgresql_and_back_every_row_the_same(
    original: Path, tmp_path: Path, postgres_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    url = with_password(fresh_database(postgres_url, dictionary_order=True))
    back = tmp_path / "back.sqlite"
    rows = table_rows(str(original))

    status, out, err = copy(capsys, str(original), url)
    assert (status, err) == (0, "")
    assert table_rows(url) == rows
    assert out.startswith(f"copied {original} into {shown(url)}, checked row for row:\n")
    assert PASSWORD not in out
    for table in TABLES:
        assert re.search(rf"^  {table} +{len(rows[table]):,}$", out, re.MULTILINE), table
    assert f"{sum(len(rows[t]) for t in TABLES):,} rows in {len(TABLES)} tables" in out

    status, out, err = copy(capsys, url, str(back))
    assert (status, err) == (0, "")
    assert out.startswith(f"copied {shown(url)} into {back}, checked row for row:\n")
    assert table_rows(str(back)) == rows

    with Store.open(original, read_only=True) as store:
        before = seen(store)
    with Store.open(back, read_only=True) as store:
        assert seen(store) == before
    with Store.open(url, read_only=True) as store:
        assert seen(store) == before


def test_stores_ordering_text_otherwise_are_compared_in_one_order_page_by_page(
    original: Path,
    tmp_path: Path,
    postgres_url: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Pages of three rows, through a database that sorts 'alpha' before 'Zed' (SQLite
    sorts by bytes), then another PostgreSQL database, then SQLite: every table compared
    page by page in one order on both sides of each copy."""
    monkeypatch.setattr(store_copy, "PAGE", 3)
    rows = table_rows(str(original))
    steps = [
        str(original),
        fresh_database(postgres_url, dictionary_order=True),
        fresh_database(postgres_url),
        str(tmp_path / "again.sqlite"),
    ]
    for source, target in itertools.pairwise(steps):
        assert copy(capsys, source, target)[0] == 0, (source, target)
        assert table_rows(target) == rows, target


def test_a_copy_takes_new_rows_after_the_copied_ones(
    original: Path, store_target: str, capsys: pytest.CaptureFixture[str]
) -> None:
    target = store_target
    assert copy(capsys, str(original), target)[0] == 0
    job = MatchJob("after-the-copy", "guandan", {}, 11, ("random", "first") * 2, 1)
    with Store.open(target) as store:
        last = store.last_match_number()
        history = max(c.id for c in store.rating_history("random", "guandan", "elo"))
        assert League(store, "guandan").add(play_job(job), None) == 1
        assert store.last_match_number() == last + 1
        assert store.match_listings(limit=1)[0].id == "after-the-copy"
        newer = [c.id for c in store.rating_history("random", "guandan", "elo")]
        assert newer[-1] > history and newer == sorted(newer)
        store.add_balance_run("balance-2", {"deals": 2}, "arena balance")
        assert len(store.balance_runs()) == 2


def test_a_target_with_rows_is_refused_and_left_as_it_was(
    original: Path, store_target: str, capsys: pytest.CaptureFixture[str]
) -> None:
    target = store_target
    with Store.open(target) as store:
        store.add_builtin_bots(["random"])
    before = table_rows(target)
    status, out, err = copy(capsys, str(original), target)
    assert status == 2 and out == ""
    assert err == (
        f"arena: store {shown(target)} is not empty (its table bots "
        "has rows): copy into a new or empty store; nothing was copied\n"
    )
    assert table_rows(target) == before


def test_an_empty_store_is_a_target_like_a_new_one(
    original: Path, postgres_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    target = fresh_database(postgres_url)
    Store.open(target).close()  # the schema, no rows
    assert copy(capsys, str(original), target)[0] == 0
    assert table_rows(target) == table_rows(str(original))


def test_a_missing_source_is_an_error_and_no_target_is_made(
    tmp_path: Path, postgres_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nothing-here.sqlite"
    target = tmp_path / "target.sqlite"
    status, out, err = copy(capsys, str(missing), str(target))
    assert (status, out) == (2, "")
    assert err == f"arena: no store at {missing}: the file does not exist\n"
    assert not target.exists()
    url = fresh_database(postgres_url)
    assert copy(capsys, str(missing), url)[0] == 2
    assert table_rows(url) == {}  # not even a schema


def test_an_unreachable_server_is_an_error_naming_it_without_its_password(
    original: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as probe:  # a port no server listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"postgresql://arena:s3cret@127.0.0.1:{port}/arena"
    status, out, err = copy(capsys, str(original), url)
    assert (status, out) == (2, "")
    assert err.startswith(
        f"arena: cannot open store postgresql://arena:***@127.0.0.1:{port}/arena: "
    )
    assert "s3cret" not in err and err.count("\n") == 1


def test_a_failure_half_way_leaves_the_target_empty(
    original: Path, tmp_path: Path, postgres_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A token naming a bot the store lacks (an SQLite file changed by hand, its foreign
    keys unchecked) fails the copy after the tables before it are copied."""
    broken = tmp_path / "broken.sqlite"
    broken.write_bytes(original.read_bytes())
    with sqlite3.connect(broken) as conn:
        conn.execute(
            "INSERT INTO tokens (token_id, bot, hash, kind, created_at) "
            "VALUES ('tok-stray', 'nobody', 'a hash', 'bot', '2026-12-08T00:00:00+00:00')"
        )
    conn.close()
    for target in (fresh_database(postgres_url), str(tmp_path / "t.sqlite")):
        status, out, err = copy(capsys, str(broken), target)
        assert (status, out) == (2, "")
        assert (
            err.startswith(f"arena: cannot copy into store {target}: ")
            and "FOREIGN KEY" in err.upper()
        )
        assert set(counts(target).values()) == {0, 1}  # alembic_version alone has its row
        assert counts(target)["alembic_version"] == 1


def test_a_copy_that_differs_is_an_error_naming_the_table_and_key_and_keeps_nothing(
    original: Path,
    postgres_url: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    insert = store_copy._insert

    def insert_then_change(write: Any, table: store_copy.Table, source: Any) -> None:
        insert(write, table, source)
        if table.name == "ratings":
            write.execute(
                "UPDATE ratings SET value = value + 1 "
                "WHERE bot = 'random' AND variant = 'sanfu' AND system = 'elo'"
            )

    monkeypatch.setattr(store_copy, "_insert", insert_then_change)
    target = fresh_database(postgres_url)
    status, out, err = copy(capsys, str(original), target)
    assert (status, out) == (2, "")
    assert err == (
        f"arena: the copy of store {original} in {target} differs from it in table ratings "
        "at key ('random', 'sanfu', 'elo'): nothing was copied\n"
    )
    assert sum(counts(target).values()) == 1  # alembic_version's row


def test_a_table_added_by_hand_is_refused_by_name(
    original: Path, tmp_path: Path, postgres_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    changed = tmp_path / "changed.sqlite"
    changed.write_bytes(original.read_bytes())
    with sqlite3.connect(changed) as conn:
        conn.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, note TEXT)")
    conn.close()
    target = fresh_database(postgres_url)
    status, out, err = copy(capsys, str(changed), target)
    assert (status, out) == (2, "")
    assert err == (
        f"arena: the tables of store {changed} are not those of store {target}: notes differ "
        "(a table added or changed by hand?); nothing was copied\n"
    )
    assert sum(counts(target).values()) == 1  # alembic_version's row
