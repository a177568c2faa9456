"""Helpers for tests that kill Ray and the driver for real: drivers as processes of
their own session, the Ray processes of a session, a store (an SQLite file or a PostgreSQL
database) read from outside."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import psycopg
import pytest
from postgres import fresh_database

from arena.sim import TournamentConfig
from arena.sim.driver import MatchRunner, expected_matches, play_tournament
from arena.sim.jobs import MatchJob, MatchReport
from arena.sim.league import League
from arena.store import Store, StoredMatch
from arena.store.postgres import is_url

REPO = Path(__file__).resolve().parents[1]
SLOW_BOT = "search:samples=4,candidates=2,max_samples=4,reach=0,early=1"
"""A built-in bot slow enough (about a second a deal: it searches every decision) for faults
to land mid-run."""


@dataclass(frozen=True)
class Proc:
    pid: int
    ppid: int
    cmdline: str


def session_processes(sid: int) -> list[Proc]:
    """The live processes of session ``sid`` (zombies left out)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            raw = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        if stat[0] != "Z" and int(stat[3]) == sid:
            found.append(Proc(int(entry), int(stat[1]), raw.replace(b"\0", b" ").decode()))
    return found


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 300.0) -> None:
    """Poll until ``condition`` holds; a hang fails the test instead of blocking it."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"still waiting for {what}")
        time.sleep(0.05)


def count_rows(db: Path | str, table: str) -> int:
    """Rows of ``table`` in the store (an SQLite file, or a PostgreSQL database by URL),
    read as another process would (0 before it exists)."""
    if isinstance(db, str) and is_url(db):
        try:
            with psycopg.connect(db, connect_timeout=30) as conn:
                return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
        except psycopg.errors.UndefinedTable:  # the schema is not created yet
            return 0
    if not Path(db).exists():
        return 0
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30) as conn:
            return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
    except sqlite3.OperationalError:  # the schema is not created yet
        return 0


def new_store(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    """A new store for a driver's ``--db``: an SQLite file in ``tmp_path``, or a fresh
    database of the session's PostgreSQL cluster."""
    if backend == "sqlite":
        return str(tmp_path / "t.sqlite")
    assert backend == "postgresql", backend
    return fresh_database(request.getfixturevalue("postgres_url"))


def stored_count(db: Path | str) -> int:
    """Matches in the store, read as another process would (0 before it exists)."""
    return count_rows(db, "matches")


def clean_env(extra: Mapping[str, str] = {}) -> dict[str, str]:
    """This environment without Ray's variables (an address, a token), plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    env.update(ARENA_LOG_FORMAT="json")
    env.update(extra)
    return env


class Sessions:
    """Processes started in sessions of their own; :meth:`close` kills, by pid, what is
    left of each session."""

    def __init__(self, log_dir: Path) -> None:
        self.log_dir = log_dir
        self.sids: list[int] = []
        self.logs: list[IO[Any]] = []

    def start(self, args: Sequence[str], env: Mapping[str, str]) -> subprocess.Popen[bytes]:
        log = (self.log_dir / f"process-{len(self.logs)}.log").open("wb")
        self.logs.append(log)
        process = subprocess.Popen(
            list(args), cwd=REPO, env=dict(env), stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        self.sids.append(process.pid)
        return process

    def arena(self, args: Sequence[str], env: Mapping[str, str]) -> subprocess.Popen[bytes]:
        return self.start([sys.executable, "-m", "arena.cli", *args], env)

    def output(self, process: subprocess.Popen[bytes]) -> str:
        path = self.log_dir / f"process-{self.sids.index(process.pid)}.log"
        return path.read_text(errors="replace")

    def tail(self, process: subprocess.Popen[bytes], lines: int = 6) -> str:
        """The last lines a process wrote, Ray's state dumps left out."""
        kept = [line for line in self.output(process).splitlines() if "[state-dump]" not in line]
        return "\n".join(kept[-lines:])

    def left(self, sid: int) -> list[Proc]:
        return session_processes(sid)

    def close(self) -> None:
        for sid in self.sids:
            for proc in session_processes(sid):
                with _gone():
                    os.kill(proc.pid, signal.SIGKILL)
        for log in self.logs:
            log.close()


@contextmanager
def _gone() -> Iterator[None]:
    """A process that ended on its own meanwhile is what we wanted."""
    try:
        yield
    except ProcessLookupError:
        return


def kill(pid: int, sig: signal.Signals = signal.SIGKILL) -> None:
    with _gone():
        os.kill(pid, sig)


def raylet(sid: int) -> Proc | None:
    return next((p for p in session_processes(sid) if "/raylet/raylet " in p.cmdline), None)


def node_of(raylet: Proc) -> list[Proc]:
    """A Ray node's processes: its raylet and what the raylet started (workers, agents)."""
    return [raylet, *(p for p in session_processes(os.getsid(raylet.pid)) if p.ppid == raylet.pid)]


def busy_worker(sid: int) -> Proc | None:
    """A Ray worker of the session playing a batch of matches (its process title names
    the task: ``ray::play_batch``)."""
    busy = [p for p in session_processes(sid) if p.cmdline.startswith("ray::play_batch")]
    return busy[0] if busy else None


class FromStore(MatchRunner):
    """Hands back the results a store holds for the jobs asked, in order: the same
    results rated as an uninterrupted run would rate them."""

    def __init__(self, store: Store, tournament_id: str) -> None:
        self.matches: dict[str, StoredMatch] = {
            m.id: m for m in store.matches(tournament_id=tournament_id)
        }

    def run(self, jobs: Sequence[MatchJob], batch_size: int) -> Iterator[MatchReport]:
        for job in jobs:
            match = self.matches[job.id]
            yield MatchReport(
                job=job,
                winner=match.outcome["winner"],
                totals=tuple(match.outcome["totals"]),
                deals=match.deals,
                decisions=match.decisions,
                record=match.record,
            )


# Tournaments of every format, and their check

S = SLOW_BOT
DEFINITIONS: dict[str, dict[str, object]] = {
    "round_robin": {"teams": [[S, "random"], [S, "first"], ["random", "first"]], "matches": 3},
    "gauntlet": {
        "teams": [["random", "random"], ["first", "heuristic"]],
        "format": "gauntlet",
        "reference": [S, "random"],
        "matches": 4,
    },
    "rated": {
        "teams": [[S, "random"], [S, "first"], [S, "heuristic"], ["random", "first"]],
        "format": "rated",
        "matches": 4,
    },
    "paired": {"teams": [[S, "random"], ["first", "first"]], "matches": 4, "paired": True},
}
"""A slow bot in every match: a match lasts about a second, time enough to kill
something while matches remain."""


def definition(tmp_path: Path, name: str, scale: int = 1) -> Path:
    """A small definition file of one of the formats, with a slow bot in it; ``scale``
    times its matches (rounds)."""
    fields = {"name": name, "variant": "guandan", "deals": 1, "seed": 7, **DEFINITIONS[name]}
    fields["matches"] = int(fields["matches"]) * scale  # type: ignore[call-overload]
    path = tmp_path / f"{name}.toml"
    path.write_text("".join(f"{key} = {json.dumps(value)}\n" for key, value in fields.items()))
    return path


def ratings(store: Store) -> list[tuple[object, ...]]:
    return [(r.bot, r.system, r.value, r.sigma, r.matches) for r in store.ratings("guandan")]


def assert_exactly_the_definition(db: Path | str, config: TournamentConfig) -> None:
    """Each defined match stored once, and the ratings of the same results rated in
    plan order without interruption (the rounds too: the same meetings)."""
    with Store.open(db) as store, Store.open(":memory:") as straight:
        assert len(store.match_ids(config.id)) == expected_matches(config)
        straight.add_tournament(config.id, config.name, config.variant, {}, {})
        straight.add_builtin_bots([b.name for b in store.bots()])
        league = League(straight, config.variant)
        runner = FromStore(store, config.id)
        for _ in play_tournament(config, straight, league, runner, 1):
            pass
        assert straight.match_ids(config.id) == store.match_ids(config.id)
        assert ratings(store) == ratings(straight)
