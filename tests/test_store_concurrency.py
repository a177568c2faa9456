"""Writers at once: several processes (spawned) write into one store together, on
PostgreSQL and, for comparison, on one SQLite file. Rated matches are stored once each
(a match stored by two processes at once counts once) and every rating's history is one
chain; each write that reads before it writes (a bot, built-in bots, a person, a
tournament, a round's pairings, a balance run) has one outcome, whoever comes first, and
no writer fails. On PostgreSQL a commit waits for the disk whatever the database's
default."""

from __future__ import annotations

import multiprocessing
import time
import traceback
from collections.abc import Callable, Iterator
from multiprocessing.synchronize import Barrier
from pathlib import Path
from typing import Any

import psycopg
import pytest
from postgres import fresh_database

from arena.store import BalanceBatch, RatingUpdate, Store, StoredMatch, StoreError

WRITERS = 4
"""Processes writing at once (the machine's cores matter less: they wait on the store)."""
OWN_MATCHES = 30
"""Rated matches each writer stores of its own."""
SHARED_PAIRS = 6
"""Pairs of matches (two halves counted together) that every writer stores."""
BOTS = ("ann", "bob", "cai", "dan", "eve")
TOURNAMENT = "t1"
SYSTEMS = ("elo", "openskill")
SPAWN = multiprocessing.get_context("spawn")
WAIT = 120.0
"""How long a process waits for the others at a barrier, or the test for a process."""


@pytest.fixture(params=["sqlite", "postgresql"])
def where(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty store's name: an SQLite file, or a PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "arena.sqlite")
    return fresh_database(request.getfixturevalue("postgres_url"))


def match(id: str, seating: tuple[str, ...], n: int) -> StoredMatch:
    return StoredMatch(
        id=id,
        tournament_id=TOURNAMENT,
        variant="guandan",
        options={},
        seed=n,
        seating=seating,
        outcome={"match_winner": n % 2, "totals": [n % 7, 3]},
        record={"format": "arena-record/1", "deals": [{"actions": ["pass"]}]},
        deals=1,
        decisions=n,
    )


def rated(id: str, n: int, after: float) -> tuple[StoredMatch, list[RatingUpdate]]:
    """A match of four of the bots (which four turns with ``n``), each rated in both
    systems, every new value ``after`` plus a step per bot: no two changes alike."""
    seating = tuple(BOTS[(n + seat) % len(BOTS)] for seat in range(4))
    updates = [
        RatingUpdate(bot, "guandan", system, after + step, 1.0 if system == "openskill" else None)
        for step, bot in enumerate(seating)
        for system in SYSTEMS
    ]
    return match(id, seating, n), updates


def shared_pair(k: int) -> list[tuple[StoredMatch, list[RatingUpdate]]]:
    """The two halves of shared pair ``k``: the same matches and values from every writer."""
    return [rated(f"shared-{k}-{half}", k + half, -1000.0 * (k + 1) - half) for half in (0, 1)]


def run_writer(
    where: str,
    barrier: Barrier,
    results: Any,
    work: Callable[[Store, int, Barrier], list[Any]],
    writer: int,
) -> None:
    """One process: open the store with the others at once (an empty one gets its
    schema), do ``work``, and put ``(writer, its answers, the error or None)`` on
    ``results``."""
    answers: list[Any] = []
    try:
        barrier.wait(WAIT)
        with Store.open(where) as store:
            answers = work(store, writer, barrier)
    except BaseException:
        results.put((writer, answers, traceback.format_exc()))
        raise
    results.put((writer, answers, None))


def in_processes(
    where: str, work: Callable[[Store, int, Barrier], list[Any]]
) -> dict[int, list[Any]]:
    """Each writer's answers, ``work`` done by :data:`WRITERS` processes at once; any
    error in one of them fails the test with its traceback."""
    barrier = SPAWN.Barrier(WRITERS)
    results = SPAWN.Queue()
    processes = [
        SPAWN.Process(target=run_writer, args=(where, barrier, results, work, writer))
        for writer in range(WRITERS)
    ]
    for process in processes:
        process.start()
    try:
        reports = [results.get(timeout=WAIT * 3) for _ in processes]
    finally:
        for process in processes:
            process.join(WAIT)
            if process.is_alive():
                process.kill()
                process.join()
    errors = [f"writer {writer}:\n{error}" for writer, _, error in reports if error is not None]
    assert not errors, "\n".join(errors)
    assert [process.exitcode for process in processes] == [0] * WRITERS
    return {writer: answers for writer, answers, _ in reports}


@pytest.fixture
def league(where: str) -> Iterator[str]:
    """The store with the bots and the tournament."""
    with Store.open(where) as store:
        for bot in BOTS:
            store.add_bot(bot, "remote")
        store.add_tournament(TOURNAMENT, "spring", "guandan")
    yield where


def store_rated_matches(store: Store, writer: int, barrier: Barrier) -> list[Any]:
    """A writer's own matches, one at a time, and every shared pair (each a
    transaction of two) between them: the ids it stored."""
    stored: list[str] = []
    for n in range(OWN_MATCHES):
        if n % (OWN_MATCHES // SHARED_PAIRS) == 0:
            pair = shared_pair(n // (OWN_MATCHES // SHARED_PAIRS))
            if store.add_matches(pair) == 2:
                stored.extend(m.id for m, _ in pair)
        own, updates = rated(f"w{writer}-{n}", writer + n, 100.0 * writer + n)
        if store.add_match(own, updates):
            stored.append(own.id)
    return stored


def test_rated_matches_stored_at_once_are_each_stored_once_and_every_history_is_one_chain(
    league: str,
) -> None:
    answers = in_processes(league, store_rated_matches)
    shared = {m.id for k in range(SHARED_PAIRS) for m, _ in shared_pair(k)}
    own = {f"w{writer}-{n}" for writer in range(WRITERS) for n in range(OWN_MATCHES)}
    claimed = [id for stored in answers.values() for id in stored]
    assert sorted(claimed) == sorted(own | shared)  # each one stored by exactly one writer
    with Store.open(league) as store:
        assert store.match_ids(TOURNAMENT) == own | shared
        assert store.tournament_counts() == {TOURNAMENT: len(own | shared)}
        changes = 0
        for bot in BOTS:
            for system in SYSTEMS:
                history = store.rating_history(bot, "guandan", system)
                befores = [change.before for change in history]
                afters = [change.after for change in history]
                assert befores == [None, *afters[:-1]], f"{bot} {system}: not one chain"
                [rating] = [r for r in store.bot_ratings(bot) if r.system == system]
                assert (rating.value, rating.matches) == (afters[-1], len(history))
                changes += len(history)
        assert changes == 4 * len(SYSTEMS) * len(own | shared)  # four bots a match


PAIRINGS = [[[["ann", "bob"], ["cai", "dan"]]], [[["ann", "cai"], ["bob", "dan"]]]]
"""Two ways to pair round 0 (each one meeting of two teams), offered by the writers."""


def each_at_once(store: Store, writer: int, barrier: Barrier) -> list[Any]:
    """Every write that reads before it writes, each begun by every writer at once
    (a barrier before each): what each answered."""
    steps: list[Callable[[], Any]] = [
        lambda: store.add_bot("zed", "remote", owner="zoe"),
        lambda: store.add_builtin_bots(["first", "random", *(["heuristic"] * (writer % 2))]),
        lambda: store.add_person("person:lin", "scrypt$hash"),
        lambda: store.add_tournament("t2", "autumn", "guandan", {}, {"rounds": 2}),
        lambda: store.fix_round("t2", 0, PAIRINGS[writer % 2]),
        lambda: store.add_balance_run("b1", {"deals": 10}, "arena balance"),
        lambda: store.add_balance_batch("b1", BalanceBatch(0, 0, 10, {"dealer_wins": 4})),
    ]
    answers = []
    for step in steps:
        barrier.wait(WAIT)
        answers.append(step())
    return answers


def test_writes_that_read_first_begun_at_once_have_one_outcome(where: str) -> None:
    answers = in_processes(where, each_at_once)
    bot, builtins, person, tournament, fixed, run, batch = zip(*answers.values(), strict=True)
    for name, firsts in [
        ("add_bot", bot),
        ("add_person", person),
        ("add_tournament", tournament),
        ("add_balance_run", run),
        ("add_balance_batch", batch),
    ]:
        assert sorted(firsts) == [False] * (WRITERS - 1) + [True], name
    added = [name for names in builtins for name in names]
    assert sorted(added) == ["first", "heuristic", "random"]  # each by one writer
    assert len({str(pairings) for pairings in fixed}) == 1  # the first one fixed, for all
    assert fixed[0] in PAIRINGS
    with Store.open(where) as store:
        assert [b.name for b in store.bots()] == [
            "first",
            "heuristic",
            "person:lin",
            "random",
            "zed",
        ]
        assert [a.player for a in store.accounts()] == ["person:lin"]
        assert [t.id for t in store.tournaments()] == ["t2"]
        assert store.fix_round("t2", 0, []) == fixed[0]
        assert len(store.balance_batches("b1")) == 1


def test_postgresql_commits_are_on_disk_whatever_the_databases_default(postgres_url: str) -> None:
    """A database set to commit without waiting for the disk: the store's connections
    still wait (``synchronous_commit=on``)."""
    where = fresh_database(postgres_url)
    name = where.rsplit("/", 1)[1]
    with psycopg.connect(postgres_url, autocommit=True) as admin:
        admin.execute(f"ALTER DATABASE {name} SET synchronous_commit = off")
    with psycopg.connect(where) as plain:
        assert plain.execute("SHOW synchronous_commit").fetchone() == ("off",)
    with Store.open(where) as store:
        assert store._read("SHOW synchronous_commit")[0] == ("on",)


def test_postgresql_a_writer_stopped_mid_write_holds_the_others_up_for_its_timeout(
    postgres_url: str,
) -> None:
    """A write left open (its process frozen, its machine cut off) keeps the store's lock
    only until the server ends its idle connection, after the store's timeout: its write
    is rolled back and the next writer goes on. A writer whose own timeout is shorter
    gives up, naming the store."""
    where = fresh_database(postgres_url)
    with (
        Store.open(where, timeout=1.0) as stuck,
        Store.open(where, timeout=0.2) as impatient,
        Store.open(where, timeout=20.0) as other,
    ):
        with (
            pytest.raises(StoreError, match="idle-in-transaction timeout"),
            stuck._write("cannot stall", "stall") as write,
        ):
            write.execute("INSERT INTO bots (name, kind, created_at) VALUES ('gone', 'x', 'now')")
            started = time.monotonic()
            with pytest.raises(StoreError, match=f"add a bot to store {where}: .*lock timeout"):
                impatient.add_bot("bob", "remote")
            assert other.add_bot("ann", "remote")  # waits for the lock
            waited = time.monotonic() - started
            write.execute("SELECT 1")  # the server has ended this connection
        assert 0.9 < waited < 10.0  # its idle time began just before
        assert [bot.name for bot in other.bots()] == ["ann"]
