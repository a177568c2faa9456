"""The store: schema, round trips, exactly-once matches, atomicity, crashes, bad files."""

from __future__ import annotations

import dataclasses
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from arena.errors import ArenaError
from arena.rating.pools import people_pool
from arena.store import (
    APPLICATION_ID,
    BUILTIN_KIND,
    SCHEMA_VERSION,
    BalanceBatch,
    Bot,
    MatchFilter,
    RatingUpdate,
    Store,
    StoredMatch,
    StoreError,
)
from arena.store.legacy import MIGRATIONS

ROOT = Path(__file__).resolve().parent.parent


def make_match(n: int, tournament_id: str | None = "t1", variant: str = "guandan") -> StoredMatch:
    return StoredMatch(
        id=f"m{n}",
        tournament_id=tournament_id,
        variant=variant,
        options={"decks": 2, "名": "掼蛋"},
        seed=2**62 + n,
        seating=("alice", "bob", "alice", "bob"),
        outcome={"match_winner": n % 2, "totals": [n, 0]},
        record={"format": "arena-record/1", "deals": [{"actions": ["pass"] * n}]},
        deals=n % 5 + 1,
        decisions=n * 3,
    )


def updates(after_a: float, after_b: float, variant: str = "guandan") -> list[RatingUpdate]:
    return [
        RatingUpdate("alice", variant, "elo", after_a),
        RatingUpdate("bob", variant, "elo", after_b),
    ]


@pytest.fixture
def store(store_target: str) -> Iterator[Store]:
    """A store with two bots and a tournament: in an SQLite file, and in PostgreSQL."""
    with Store.open(store_target) as s:
        s.add_bot("alice", "builtin", owner="ann", version="1")
        s.add_bot("bob", "remote")
        s.add_tournament("t1", "spring", "guandan", {"decks": 2}, {"rounds": 3})
        yield s


def count(path: Path, table: str) -> int:
    conn = sqlite3.connect(path)
    try:
        n: int = conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
        return n
    finally:
        conn.close()


# -- opening -------------------------------------------------------------------


def test_open_sets_pragmas_and_schema(tmp_path: Path) -> None:
    path = tmp_path / "arena.db"
    with Store.open(path) as s:
        conn = s._connection()
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == 30000
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    # Reopening an existing store keeps it as it was.
    with Store.open(str(path)) as s:
        assert s.bots() == []


def test_schema_is_the_contract(tmp_path: Path) -> None:
    with Store.open(tmp_path / "arena.db") as s:
        conn = s._connection()

        def columns(table: str) -> list[str]:
            return [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]

        assert columns("bots") == [
            "name", "kind", "owner", "version", "created_at", "games_json", "description",
            "owner_name",
        ]  # fmt: skip
        assert columns("tournaments") == [
            "id", "name", "variant", "options_json", "config_json", "created_at", "status",
        ]  # fmt: skip
        assert columns("matches") == [
            "id", "tournament_id", "variant", "options_json", "seed", "seating_json",
            "outcome_json", "record_json", "deals", "decisions", "finished_at",
        ]  # fmt: skip
        assert columns("ratings") == [
            "bot", "variant", "system", "value", "sigma", "matches", "updated_at",
        ]  # fmt: skip
        assert columns("rating_history") == [
            "id", "match_id", "bot", "variant", "system", "before", "after", "sigma", "at",
        ]  # fmt: skip


def old_store(path: Path, version: int) -> None:
    """A store file as an older arena left it: the schema up to ``version``."""
    conn = sqlite3.connect(path)
    for target in range(1, version + 1):
        for statement in MIGRATIONS[target]:
            conn.execute(statement)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute(f"PRAGMA user_version = {version}")
    conn.execute(
        "INSERT INTO bots (name, kind, owner, version, created_at) "
        "VALUES ('old', 'remote', 'ann', NULL, '2024-01-01')"
    )
    conn.commit()
    conn.close()


@pytest.mark.parametrize("version", range(1, SCHEMA_VERSION))
def test_an_older_store_is_brought_up_to_date(tmp_path: Path, version: int) -> None:
    path = tmp_path / "old.db"
    old_store(path, version)
    with Store.open(path) as s:
        assert s.bots() == [Bot("old", "remote", "ann")]
        assert s.add_builtin_bots(["random"]) == ["random"]
        s.set_bot_games("old", ["guandan"])
        assert s.bot("old") == Bot("old", "remote", "ann", games=("guandan",))
    with Store.open(path) as s:
        assert s._connection().execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def sqlite_schema(path: Path) -> dict[str, object]:
    """Each table's columns (name, type, key) and indexes (name, columns, unique)."""
    conn = sqlite3.connect(path)
    try:
        tables = [
            name
            for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            if name not in ("alembic_version", "sqlite_sequence")
        ]
        schema: dict[str, object] = {}
        for table in sorted(tables):
            columns = [(c[1], c[2], c[5]) for c in conn.execute(f"PRAGMA table_info({table})")]
            indexes = sorted(
                (index[1], index[2], [c[2] for c in conn.execute(f"PRAGMA index_info({index[1]})")])
                for index in conn.execute(f"PRAGMA index_list({table})")
                if index[3] == "c"  # made by CREATE INDEX (not by a key)
            )
            schema[table] = (columns, indexes)
        return schema
    finally:
        conn.close()


def test_a_new_store_has_the_schema_an_old_one_is_brought_to(tmp_path: Path) -> None:
    old_store(tmp_path / "old.db", 1)
    Store.open(tmp_path / "old.db").close()
    Store.open(tmp_path / "new.db").close()
    new = sqlite_schema(tmp_path / "new.db")
    assert len(new) == 13 and new == sqlite_schema(tmp_path / "old.db")


def test_a_store_of_an_unknown_revision_is_a_newer_arenas(tmp_path: Path) -> None:
    path = tmp_path / "future.db"
    Store.open(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE alembic_version SET version_num = 'later'")
    conn.close()
    with pytest.raises(StoreError, match=r"future\.db.*revision 'later', newer"):
        Store.open(path)


def test_builtin_bots_are_added_on_demand_once_and_hold_no_token(store: Store) -> None:
    assert store.add_builtin_bots(["random", "search:samples=16", "random"]) == [
        "random",
        "search:samples=16",
    ]
    assert store.add_builtin_bots(["random", "first"]) == ["first"]
    assert store.bot("search:samples=16") == Bot("search:samples=16", BUILTIN_KIND)
    with pytest.raises(StoreError, match="'bob' is a built-in bot's name, but a bot of kind"):
        store.add_builtin_bots(["heuristic", "bob"])
    assert store.bot("heuristic") is None  # one transaction: nothing added
    with pytest.raises(StoreError, match="'random' is a built-in bot: it holds no token"):
        store.add_token("tok-1", "random", "0" * 64)
    assert store.tokens("random") == []


def test_tokens_of_the_same_moment_are_listed_by_handle_on_every_database(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Oldest first; tokens made at the same microsecond by handle, not in the order the
    database happens to keep them (SQLite's rowid, a PostgreSQL heap)."""
    monkeypatch.setattr("arena.store.bots.now", lambda: "2026-01-01T00:00:00.000000+00:00")
    for token_id in ("tok-c", "tok-a", "tok-b"):
        store.add_token(token_id, "bob", token_id * 8)
    monkeypatch.setattr("arena.store.bots.now", lambda: "2025-12-31T00:00:00.000000+00:00")
    store.add_token("tok-z", "bob", "z" * 64)
    assert [t.token_id for t in store.tokens("bob")] == ["tok-z", "tok-a", "tok-b", "tok-c"]


def test_text_holding_nul_is_looked_up_as_in_no_row(store: Store) -> None:
    """An id or a name with NUL in it (a web address, a gRPC call) is in no row: PostgreSQL,
    which refuses such text, answers as SQLite does, never with an error."""
    assert store.bot("alice\0") is None and store.tournament("t1\0") is None
    assert store.match("\0") is None and store.match_listing("m\0") is None
    assert store.match_listings(MatchFilter(bot="alice\0", text="a\0")) == []
    assert store.count_matches(MatchFilter(tournament_id="t1\0")) == 0
    assert store.tokens("bob\0") == [] and store.password_hash("person:\0") is None


@pytest.mark.parametrize("broad", [False, True])
def test_a_text_search_finds_ascii_letters_in_either_case_on_every_database(
    store: Store, monkeypatch: pytest.MonkeyPatch, broad: bool
) -> None:
    """An id or a bot name found by text: ASCII letters in either case, other letters as
    they are, the same on SQLite and PostgreSQL, gathered or read match by match."""
    monkeypatch.setattr(Store, "broad_text", lambda self, text: broad)
    seating = ("Élodie", "alice", "Élodie", "alice")
    store.add_match(StoredMatch("Cup-1", None, "guandan", {}, 1, seating, {}, {}, 1, 1))
    store.add_match(StoredMatch("other", None, "guandan", {}, 2, ("x",) * 4, {}, {}, 1, 1))
    for text in ("ALICE", "Alice", "cup-1", "CUP", "ÉLODIE", "Élodie", "p-"):
        assert [m.id for m in store.match_listings(MatchFilter(text=text))] == ["Cup-1"], text
        assert store.count_matches(MatchFilter(text=text)) == 1, text
    for text in ("élodie", "Cup_1", "%", "bob"):  # another letter; _ and % stand for themselves
        assert store.count_matches(MatchFilter(text=text)) == 0, text


def test_text_is_listed_in_its_characters_order_whatever_the_databases_collation(
    postgres_url: str, tmp_path: Path
) -> None:
    """A PostgreSQL database whose collation follows a language (here ICU's English, as a
    server's locale often does: case and punctuation weighed after the letters) lists
    bots, accounts, ratings, standings and opponents in the order SQLite does, ties
    included, and finds the people's matches (``person:…`` names) as SQLite does."""
    name = f"collated_{os.getpid()}"
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(
            f"CREATE DATABASE {name} TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C.UTF-8' "
            "LOCALE_PROVIDER icu ICU_LOCALE 'en-US'"
        )
    seen = []
    for where in (str(tmp_path / "arena.db"), postgres_url.rsplit("/", 1)[0] + "/" + name):
        with Store.open(where) as store:
            store.add_builtin_bots(["b", "B", "a-b", "ab", "A_"])
            for player in ("person:zed", "person:Amy"):
                store.add_person(player, "a hash")
            won = {"winner": 0, "totals": [2, -2, 2, -2], "team_score": 1.0}
            for id, pool, seating in (
                ("m1", people_pool("guandan"), ("person:zed", "b", "B", "ab")),
                ("m2", "guandan", ("a-b", "A_", "b", "B")),
            ):
                match = StoredMatch(id, None, "guandan", {}, 1, seating, won, {}, 1, 1)
                store.add_match(match, [RatingUpdate(bot, pool, "elo", 1500) for bot in seating])
            seen.append(
                (
                    [bot.name for bot in store.bots()],
                    [account.player for account in store.accounts()],
                    [rating.bot for rating in store.ratings("guandan")],
                    [standing.bot for standing in store.standings("guandan")],
                    sorted(store.people_results("guandan")),
                    [met.opponent for met in store.head_to_head("b")],
                )
            )
    assert seen[0][0] == ["A_", "B", "a-b", "ab", "b", "person:Amy", "person:zed"]
    assert seen[0][4] == ["B", "ab", "b", "person:zed"]
    assert seen[1] == seen[0]


@pytest.mark.parametrize(
    "url", ["postgresql://ann:s3cret@127.0.0.1:port/arena", "postgres://ann:s3@cret@host:x/db"]
)
def test_a_url_that_cannot_be_read_is_a_store_error_without_its_password(url: str) -> None:
    with pytest.raises(StoreError, match="not a database URL") as info:
        Store.open(url)
    assert "s3" not in str(info.value) and "cret" not in str(info.value)
    assert "ann:***@" in str(info.value)


def test_memory_store_and_context_manager() -> None:
    with Store.open(":memory:") as s:
        assert s.add_bot("x", "builtin")
        assert s.bots() == [Bot("x", "builtin")]
    with pytest.raises(StoreError, match="closed"):
        s.bots()
    s.close()  # idempotent


def test_garbage_file_is_a_store_error(tmp_path: Path) -> None:
    path = tmp_path / "garbage.db"
    path.write_bytes(b"this is not a database, just some text\n" * 200)
    with pytest.raises(StoreError, match=r"garbage\.db") as info:
        Store.open(path)
    assert isinstance(info.value, ArenaError)
    assert info.value.__cause__ is None and info.value.__suppress_context__
    assert path.read_bytes().startswith(b"this is not")  # left untouched


def test_too_new_schema_is_a_store_error(tmp_path: Path) -> None:
    path = tmp_path / "future.db"
    Store.open(path).close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(StoreError, match=r"future\.db.*newer") as info:
        Store.open(path)
    assert info.value.__cause__ is None


def test_foreign_sqlite_file_is_a_store_error(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE things (x)")
    conn.close()
    with pytest.raises(StoreError, match=r"other\.db.*not an arena store"):
        Store.open(path)


def test_unopenable_path_is_a_store_error(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="missing"):
        Store.open(tmp_path / "missing" / "arena.db")
    with pytest.raises(StoreError, match=re.escape(str(tmp_path))):
        Store.open(tmp_path)  # a directory


# -- round trips -----------------------------------------------------------------


def test_bots_round_trip_and_idempotent(store: Store) -> None:
    assert not store.add_bot("alice", "builtin", owner="ann", version="1")
    assert store.bots() == [Bot("alice", "builtin", "ann", "1"), Bot("bob", "remote")]
    assert all(bot.created_at for bot in store.bots())
    with pytest.raises(StoreError, match="already registered"):
        store.add_bot("alice", "builtin", owner="ann", version="2")
    with pytest.raises(StoreError):
        store.add_bot("", "builtin")


def test_tournaments_round_trip(store: Store) -> None:
    t = store.tournament("t1")
    assert t is not None
    assert (t.id, t.name, t.variant, t.options, t.config, t.status) == (
        "t1", "spring", "guandan", {"decks": 2}, {"rounds": 3}, "pending",
    )  # fmt: skip
    assert store.tournament("nope") is None
    assert not store.add_tournament("t1", "spring", "guandan", {"decks": 2}, {"rounds": 3})
    with pytest.raises(StoreError, match="another definition"):
        store.add_tournament("t1", "spring", "guandan", {"decks": 3}, {"rounds": 3})
    store.set_tournament_status("t1", "running")
    t = store.tournament("t1")
    assert t is not None and t.status == "running"
    with pytest.raises(StoreError, match="unknown tournament status"):
        store.set_tournament_status("t1", "paused")
    with pytest.raises(StoreError, match="no tournament"):
        store.set_tournament_status("nope", "finished")


def test_matches_round_trip(store: Store) -> None:
    store.add_tournament("t2", "autumn", "shengji")
    stored = [make_match(1), make_match(2), make_match(3, "t2", "shengji"), make_match(4, None)]
    for m in stored:
        assert store.add_match(m)
    back = store.match("m1")
    assert back == stored[0]
    assert back is not None and back.finished_at and back.seating == stored[0].seating
    assert store.match("nope") is None
    assert store.match_ids("t1") == {"m1", "m2"}
    assert store.match_ids("t2") == {"m3"}
    assert store.match_ids("none") == set()
    assert list(store.matches()) == stored
    assert list(store.matches(variant="guandan")) == [stored[0], stored[1], stored[3]]
    assert list(store.matches(tournament_id="t2")) == [stored[2]]
    assert list(store.matches(variant="shengji", tournament_id="t1")) == []


def test_matches_iterates_past_a_page(store: Store) -> None:
    for n in range(600):
        store.add_match(make_match(n))
    assert [m.id for m in store.matches(variant="guandan")] == [f"m{n}" for n in range(600)]


def test_seed_may_be_none_and_must_fit(store: Store) -> None:
    m = StoredMatch("x", None, "sanfu", {}, None, ("a",), {}, {}, 0, 0)
    assert store.add_match(m)
    assert store.match("x") == m
    with pytest.raises(StoreError, match="64-bit"):
        StoredMatch("y", None, "sanfu", {}, 2**64, ("a",), {}, {}, 0, 0)


def test_ratings_and_history_round_trip(store: Store) -> None:
    store.add_match(make_match(1), updates(1510.0, 1490.0))
    store.add_match(
        make_match(2),
        [*updates(1520.5, 1480.0), RatingUpdate("alice", "guandan", "openskill", 27.0, 8.1)],
    )
    elo = store.ratings("guandan", "elo")
    assert [(r.bot, r.value, r.sigma, r.matches) for r in elo] == [
        ("alice", 1520.5, None, 2),
        ("bob", 1480.0, None, 2),
    ]
    every = store.ratings("guandan")
    assert [(r.bot, r.system) for r in every] == [
        ("alice", "elo"), ("bob", "elo"), ("alice", "openskill"),
    ]  # fmt: skip
    assert every[2].sigma == 8.1 and every[2].matches == 1
    assert store.ratings("shengji") == []
    history = store.rating_history("alice", "guandan", "elo")
    assert [(h.match_id, h.before, h.after) for h in history] == [
        ("m1", None, 1510.0),
        ("m2", 1510.0, 1520.5),
    ]
    assert history[0].id < history[1].id and history[1].at
    (skill,) = store.rating_history("alice", "guandan", "openskill")
    assert (skill.before, skill.after, skill.sigma) == (None, 27.0, 8.1)


# -- exactly once and atomicity ------------------------------------------------------


def test_add_match_twice_stores_once(store: Store) -> None:
    assert store.add_match(make_match(1), updates(1510.0, 1490.0))
    assert not store.add_match(make_match(1), updates(1530.0, 1470.0))
    assert len(list(store.matches())) == 1
    (alice, bob) = store.ratings("guandan", "elo")
    assert (alice.value, alice.matches, bob.value, bob.matches) == (1510.0, 1, 1490.0, 1)
    assert len(store.rating_history("alice", "guandan", "elo")) == 1


def test_failure_inside_the_transaction_leaves_nothing(store: Store) -> None:
    store.add_match(make_match(1), updates(1510.0, 1490.0))
    # The match row goes in first; the second update names an unknown bot and fails.
    bad = [
        RatingUpdate("alice", "guandan", "elo", 1600.0),
        RatingUpdate("zed", "guandan", "elo", 1),
    ]
    with pytest.raises(StoreError, match=r"m2.*'zed', which is not a registered bot"):
        store.add_match(make_match(2), bad)
    assert store.match("m2") is None
    (alice, _) = store.ratings("guandan", "elo")
    assert (alice.value, alice.matches) == (1510.0, 1)
    assert len(store.rating_history("alice", "guandan", "elo")) == 1
    # The store is still usable, and the same match can be stored afterwards.
    assert store.add_match(make_match(2), updates(1520.0, 1480.0))
    assert len(store.bot_rating_history("alice") + store.bot_rating_history("bob")) == 4


def test_unknown_tournament_stores_nothing(store: Store) -> None:
    with pytest.raises(StoreError, match=r"m1.*no tournament 'nope'"):
        store.add_match(make_match(1, "nope"), updates(1510.0, 1490.0))
    assert list(store.matches()) == []
    assert store.ratings("guandan") == []


def test_bad_values_are_refused_before_writing(store: Store) -> None:
    with pytest.raises(StoreError, match="unknown rating system"):
        RatingUpdate("alice", "guandan", "glicko", 1500.0)
    with pytest.raises(StoreError, match="finite"):
        RatingUpdate("alice", "guandan", "elo", float("nan"))
    m = make_match(1)
    nan = StoredMatch(m.id, "t1", "guandan", {}, 1, ("a",), {"x": float("inf")}, {}, 0, 0)
    with pytest.raises(StoreError, match="outcome is not JSON-ready"):
        store.add_match(nan)
    odd = StoredMatch(m.id, "t1", "guandan", {}, 1, ("a",), {}, {"x": object()}, 0, 0)
    with pytest.raises(StoreError, match="record is not JSON-ready"):
        store.add_match(odd)
    twice = [
        RatingUpdate("alice", "guandan", "elo", 1.0),
        RatingUpdate("alice", "guandan", "elo", 2),
    ]
    with pytest.raises(StoreError, match="two rating updates"):
        store.add_match(m, twice)
    assert list(store.matches()) == []


# -- concurrency -----------------------------------------------------------------------


def test_readers_read_while_a_writer_writes(tmp_path: Path) -> None:
    path = tmp_path / "arena.db"
    store = Store.open(path)
    store.add_bot("alice", "builtin")
    store.add_bot("bob", "remote")
    store.add_tournament("t1", "spring", "guandan")
    store.add_match(make_match(1))
    writer = sqlite3.connect(path, isolation_level=None)
    try:
        writer.execute("BEGIN IMMEDIATE")
        writer.execute("DELETE FROM matches WHERE id = 'm1'")
        with Store.open(path, timeout=0.05) as reader:
            assert reader.match_ids("t1") == {"m1"}  # the last committed state
            with pytest.raises(StoreError, match=r"arena\.db.*locked"):
                reader.add_match(make_match(2))
        writer.execute("ROLLBACK")
    finally:
        writer.close()
    assert store.add_match(make_match(2))
    store.close()


# -- a process killed mid-write ------------------------------------------------------------

CHILD = """
import sys
from arena.store import RatingUpdate, Store, StoredMatch

with Store.open(sys.argv[1]) as store:
    store.add_bot("alice", "builtin")
    store.add_bot("bob", "builtin")
    store.add_tournament("t", "crash", "guandan")
    done = store.match_ids("t")
    n = 0
    while True:
        n += 1
        mid = f"m{n}"
        if mid in done:
            continue
        match = StoredMatch(
            mid, "t", "guandan", {"n": n}, n, ("alice", "bob", "alice", "bob"),
            {"winner": n % 2}, {"actions": ["pass"] * (n * 37 % 4000)}, n, n * 10,
        )
        ups = [RatingUpdate("alice", "guandan", "elo", float(n)),
               RatingUpdate("bob", "guandan", "elo", float(-n))]
        if store.add_match(match, ups):
            print(mid, flush=True)
"""


def run_and_kill(path: Path, lines_before_kill: int, extra_delay: float) -> list[str]:
    """Start the writer, SIGKILL it mid-stream, and return the ids it reported as stored."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=ROOT,
    )
    assert child.stdout is not None
    reported: list[str] = []
    try:
        while len(reported) < lines_before_kill:
            line = child.stdout.readline()
            if not line:
                break
            reported.append(line.decode().strip())
        time.sleep(extra_delay)
    finally:
        child.send_signal(signal.SIGKILL)
        rest, err = child.communicate()
    assert child.returncode == -signal.SIGKILL, err.decode()
    # Only whole lines count: a line cut by the kill was not reported.
    reported += [line.decode() for line in rest.split(b"\n")[:-1]]
    return reported


def test_killed_writer_loses_nothing_and_leaves_no_half_match(tmp_path: Path) -> None:
    path = tmp_path / "crash.db"
    reported: list[str] = []
    for lines, delay in ((20, 0.0), (15, 0.013), (25, 0.031), (10, 0.0), (12, 0.007), (8, 0.02)):
        reported += run_and_kill(path, lines, delay)
        with Store.open(path) as store:
            conn = store._connection()
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
            stored = {m.id: m for m in store.matches(tournament_id="t")}
            assert set(reported) <= set(stored)
            for mid, m in stored.items():
                n = int(mid[1:])
                assert m.record == {"actions": ["pass"] * (n * 37 % 4000)}
                assert (m.seed, m.outcome, m.deals, m.decisions) == (
                    n,
                    {"winner": n % 2},
                    n,
                    n * 10,
                )
                assert [h.match_id for h in store.rating_history("alice", "guandan", "elo")].count(
                    mid
                ) == 1
            history: list[tuple[Any, ...]] = conn.execute(
                "SELECT match_id, count(*) FROM rating_history GROUP BY match_id"
            ).fetchall()
            assert {row[0]: row[1] for row in history} == dict.fromkeys(stored, 2)
            ratings = {(r.bot, r.matches) for r in store.ratings("guandan", "elo")}
            assert ratings == {("alice", len(stored)), ("bob", len(stored))}
    assert len(reported) >= 90 and len(set(reported)) == len(reported)


BALANCE_DEFINITION = {"variants": [{"name": "guandan", "game": "guandan", "options": {}}]}


def test_a_balance_run_keeps_each_batch_once_across_resumes(store: Store) -> None:
    assert store.add_balance_run("b1", BALANCE_DEFINITION, "arena balance --variant guandan")
    first = BalanceBatch(0, 0, 5, {"deals": 5, "scored": 5})
    assert store.add_balance_batch("b1", first)
    assert not store.add_balance_batch("b1", BalanceBatch(0, 0, 5, {"deals": 99}))
    store.set_balance_status("b1", "interrupted", {"complete": False})
    assert not store.add_balance_run("b1", BALANCE_DEFINITION, "again")  # resumed
    assert store.add_balance_batch("b1", BalanceBatch(0, 1, 3, {"deals": 3}))
    run = store.balance_run("b1")
    assert run is not None and run.status == "running" and run.command.endswith("guandan")
    assert (run.batches, run.deals, run.report) == (2, 8, {"complete": False})
    assert store.balance_batches("b1") == [first, BalanceBatch(0, 1, 3, {"deals": 3})]
    store.set_balance_status("b1", "finished")  # no report given: the last one stays
    assert store.balance_run("b1").report == {"complete": False}  # type: ignore[union-attr]
    with Store.open(store.path, read_only=True) as reader:
        assert [r.id for r in reader.balance_runs()] == ["b1"]


def test_a_balance_run_refuses_another_definition_and_unknown_statuses(store: Store) -> None:
    store.add_balance_run("b1", BALANCE_DEFINITION, "arena balance")
    with pytest.raises(StoreError, match="exists with another definition"):
        store.add_balance_run("b1", {"variants": []}, "arena balance")
    with pytest.raises(StoreError, match="unknown balance run status 'paused'"):
        store.set_balance_status("b1", "paused")
    with pytest.raises(StoreError, match="no balance run 'b2'"):
        store.set_balance_status("b2", "finished")
    with pytest.raises(StoreError, match=r"(?i)foreign key"):
        store.add_balance_batch("b2", BalanceBatch(0, 0, 1, {}))
    assert store.balance_run("b2") is None


def test_standings_put_the_best_elo_first_and_the_unrated_last(store: Store) -> None:
    store.add_bot("carol", "remote")
    match = dataclasses.replace(make_match(1), seating=("carol", "bob", "alice", "bob"))
    store.add_match(match, updates(1490.0, 1510.0))
    standings = store.standings("guandan")
    assert [(s.bot, s.elo) for s in standings] == [
        ("bob", 1510.0),
        ("alice", 1490.0),
        ("carol", None),
    ]
    assert [s.wins + s.draws + s.losses for s in standings] == [1, 1, 1]
