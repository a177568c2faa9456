"""``arena bench web``: the web face's answer times on a large store, on SQLite and on
PostgreSQL side by side, the matches each stores per second, and a live table's delay.

Each store (SQLite: ``--db FILE`` keeps it for the next run, else a temporary one;
PostgreSQL: ``--postgres URL``, else a cluster of the bench's own:
:mod:`arena.commands.bench_web_backends`) holds ``--bots`` bots and ``--matches``
matches whose records re-play: a few short real matches of several variants are played
once by random bots, then stored again and again under new ids and new seatings (the
record's players are the seating), rated as a league would rate them, a tenth of them
in tournaments, their finishing times spread over a year. They are stored
:data:`BATCH` a transaction, but for the :func:`alone_count` before the long matches,
stored one a transaction as a server stores a match it played; the store's own time at
each gives the matches stored per second.

Pages are asked of the site in this process (the Starlette app over
``httpx.ASGITransport``: the server's own time, no network), the kinds in turn so that
each sees the same machine load: the leaderboard, the match list (no filter, by variant,
by bot, a deep page, a text search, a text search that matches every match, a result and
a date range), a bot page and a match page (the drawn table of a stored match: one-deal
matches, and long real ones, an 8-deal Guandan, a 25-deal two-deck Shengji and a sanfu
match played to its end, each stored again and again so that every view is a first one;
beside each, the same match with every deal's frames in the page, ``?deal=all``, as the
page was before it carried one deal at a time). Each kind's p50 and p95 are reported with
their ratio to ``/healthz`` (the baseline: the same app doing nothing) measured in the
same run, and the bytes its answers hold (the match pages: the table's JSON within).
With both stores, each request is asked of one and then of the other (which first
alternating by round), and PostgreSQL's figures are printed as ratios of SQLite's, the
baseline then (:mod:`arena.commands.bench_web_report`).

The live delay: a server started with its web face (``start_server(web_port=0)``)
plays a match between a paced SDK bot and built-in bots; a watcher registered on the
match's session stamps each event batch as the session hands it to its spectators, and
an SSE client on ``/api/matches/{id}/live`` stamps each frame as it arrives (one
monotonic clock, one process): the delay is the difference, per event batch.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import random
import secrets
import tempfile
import threading
import time
from collections.abc import Callable, Coroutine, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TypeVar

from arena.chance import derive_seed
from arena.commands import print_json
from arena.commands.bench_web_backends import NAMES, POSTGRESQL, SQLITE, places, server_version
from arena.commands.bench_web_report import (
    WHOLE,
    Timings,
    print_report,
    report,
    store_report,
)
from arena.errors import ArenaError, ConfigError
from arena.games.base import Action, Observation
from arena.plural import counted
from arena.sim.jobs import MatchJob, MatchReport
from arena.sim.league import Ratings
from arena.sim.worker import play_job
from arena.store import RatingUpdate, Store, StoredMatch
from bots.simple import RandomBot

if TYPE_CHECKING:
    from arena._proto.arena.v1 import arena_pb2
    from arena.server.session import MatchSession

__all__ = ["BenchError", "build_store", "measure", "run_web_bench"]

T = TypeVar("T")

VARIANTS: Final = ("guandan", "shengji-1", "shengji-2", "sanfu")
TEMPLATES_PER_VARIANT: Final = 6
"""Real matches played per variant; the store holds copies of them."""
LONG_MATCHES: Final = (("guandan", 8), ("shengji-2", 25), ("sanfu", None))
"""Long real matches (variant, deals; None: played to the match's end) stored too."""
LONG_COPIES: Final = 50
"""Copies of each long match (at most a tenth of the store's matches between them)."""
TOURNAMENTS_PER_VARIANT: Final = 3
IN_TOURNAMENTS: Final = 10
"""One match in this many belongs to a tournament."""
BATCH: Final = 1000
"""Matches stored per transaction while the store is built."""
ALONE: Final = 1000
"""Matches stored one per transaction while the store is built (at most a tenth)."""
BOT_KIND: Final = "bench"
PER_PAGE: Final = 50
"""The match list's page size (the site's default)."""
LIVE_PACE: Final = 0.02
"""Seconds the paced SDK bot thinks before each decision of the live match."""
LIVE_DEALS: Final = 2
LIVE_TIMEOUT: Final = 120.0
QUIET: Final = ("arena.server", "arena.web", "uvicorn.error", "httpx")
"""Loggers held to warnings while the bench runs (no line per request or match)."""


class BenchError(ArenaError):
    """The bench could not finish (a page failed, the live match did not run)."""


# ---------------------------------------------------------------------------
# The store


def bot_name(number: int) -> str:
    return f"bench-{number:04d}"


BROAD_TEXTS: Final = ("bench", "bench-", "ench-", "nch")
"""Texts searched that every match matches: every bot's name and every match's id hold
each."""


def _templates(seed: int) -> list[MatchReport]:
    """Short real matches (one deal) of each variant, random bots."""
    return [
        play_job(
            MatchJob(
                id=f"template-{variant}-{i}",
                variant=variant,
                options={},
                seed=derive_seed(seed, "bench-web", variant, i),
                players=("random", "random", "random", "random"),
                max_deals=1,
            )
        )
        for variant in VARIANTS
        for i in range(TEMPLATES_PER_VARIANT)
    ]


def _long_templates(seed: int) -> list[MatchReport]:
    """The long real matches of :data:`LONG_MATCHES`, random bots."""
    return [
        play_job(
            MatchJob(
                id=f"template-long-{variant}",
                variant=variant,
                options={},
                seed=derive_seed(seed, "bench-web-long", variant),
                players=("random", "random", "random", "random"),
                max_deals=deals,
            )
        )
        for variant, deals in LONG_MATCHES
    ]


def long_copies(matches: int) -> int:
    """Copies of each long match a store of ``matches`` holds."""
    return min(LONG_COPIES, matches // 10 // len(LONG_MATCHES))


def long_numbers(matches: int) -> dict[str, list[int]]:
    """The numbers of the long matches' copies, per variant: the store's last ones."""
    copies = long_copies(matches)
    first = matches - copies * len(LONG_MATCHES)
    return {
        variant: [first + k * len(LONG_MATCHES) + v for k in range(copies)]
        for v, (variant, _) in enumerate(LONG_MATCHES)
    }


def _tournament_id(variant: str, number: int) -> str:
    return f"bench-{variant}-cup-{number}"


def _copy(
    template: MatchReport, number: int, seating: tuple[str, ...], at: str, tournament: str | None
) -> StoredMatch:
    """``template`` stored as match ``number`` with another seating (its record's players)."""
    stored = template.stored(tournament)
    record = {**template.record, "players": list(seating)}
    return StoredMatch(
        id=f"bench-{number:06d}",
        tournament_id=tournament,
        variant=stored.variant,
        options=stored.options,
        seed=stored.seed,
        seating=seating,
        outcome=stored.outcome,
        record=record,
        deals=stored.deals,
        decisions=stored.decisions,
        finished_at=at,
    )


@dataclass
class Storing:
    """The store's own time storing the bench's matches (with their rating changes):
    in batches of :data:`BATCH` a transaction, and one a transaction."""

    batched: int = 0
    batched_seconds: float = 0.0
    alone: int = 0
    alone_seconds: float = 0.0

    def figures(self) -> dict[str, Any]:
        def rate(matches: int, seconds: float) -> dict[str, Any]:
            per_second = matches / seconds if matches and seconds > 0 else None
            return {"matches": matches, "seconds": seconds, "per_second": per_second}

        return {
            "batch": BATCH,
            "batched": rate(self.batched, self.batched_seconds),
            "one_per_transaction": rate(self.alone, self.alone_seconds),
        }


def alone_count(matches: int) -> int:
    """Matches of a store of ``matches`` stored one a transaction (the rest in batches)."""
    return min(ALONE, matches // 10)


def build_store(
    store: Store,
    bots: int,
    matches: int,
    seed: int,
    advance: Callable[[int], None] | None = None,
) -> Storing:
    """Fill an empty ``store`` with ``bots`` bots and ``matches`` rated matches;
    ``advance`` is told each batch of matches stored. Most are stored :data:`BATCH` a
    transaction; the :func:`alone_count` short matches just before the long ones one a
    transaction, each with its rating changes, as a server stores a match it played.
    The store's time at each (its calls alone: not the rating) is returned."""
    if bots < 4:
        raise ConfigError(f"--bots must be at least 4 (four seats), got {bots}")
    for number in range(bots):
        store.add_bot(bot_name(number), BOT_KIND)
    for variant in VARIANTS:
        for number in range(TOURNAMENTS_PER_VARIANT):
            store.add_tournament(
                _tournament_id(variant, number), f"{variant} cup {number}", variant
            )
    templates = _templates(seed)
    long = _long_templates(seed)
    long_from = matches - long_copies(matches) * len(long)
    alone_from = long_from - alone_count(matches)
    rng = random.Random(seed)
    ratings = {variant: Ratings(variant) for variant in VARIANTS}
    start = datetime.now(UTC) - timedelta(days=365)
    step = timedelta(days=365) / max(matches, 1)
    storing = Storing()
    batch: list[tuple[StoredMatch, list[RatingUpdate]]] = []

    def flush() -> None:
        nonlocal batch
        if batch:
            started = time.perf_counter()
            store.add_matches(batch)
            storing.batched_seconds += time.perf_counter() - started
            storing.batched += len(batch)
            if advance is not None:
                advance(len(batch))
            batch = []

    for number in range(matches):
        if number >= long_from:
            template = long[(number - long_from) % len(long)]
        else:
            template = templates[number % len(templates)]
        variant = template.job.variant
        seating = tuple(bot_name(b) for b in rng.sample(range(bots), 4))
        tournament = None
        if number % IN_TOURNAMENTS == 0:
            tournament = _tournament_id(variant, rng.randrange(TOURNAMENTS_PER_VARIANT))
        at = (start + step * number).isoformat(timespec="microseconds")
        match = _copy(template, number, seating, at, tournament)
        league = ratings[variant]
        updates = league.rate(seating, template.team_score(), match.record)
        league.apply(updates)
        if alone_from <= number < long_from:
            flush()
            started = time.perf_counter()
            store.add_match(match, updates)
            storing.alone_seconds += time.perf_counter() - started
            storing.alone += 1
            if advance is not None:
                advance(1)
            continue
        batch.append((match, updates))
        if len(batch) == BATCH:
            flush()
    flush()
    return storing


def open_store(
    location: str | Path,
    bots: int,
    matches: int,
    seed: int,
    name: str = "SQLite",
    option: str = "--db",
) -> tuple[Store, Storing | None]:
    """The bench store at ``location`` (an SQLite file, a PostgreSQL URL), built when
    empty (with the time spent storing), reused when it holds what is asked (None)."""
    store = Store.open(location)
    try:
        held = store.count_matches()
        storing = None
        if held == 0:
            from arena.commands.progress import progress_bar

            with progress_bar() as progress:
                task = progress.add_task(f"building the {name} store", total=matches, rate="")
                storing = build_store(
                    store, bots, matches, seed, lambda n: progress.advance(task, n)
                )
        elif held != matches or len(store.bots()) != bots:
            raise ConfigError(
                f"{store.path} holds {counted(held, 'match')} and "
                f"{counted(len(store.bots()), 'bot')}, not the {matches} and {bots} asked: "
                f"give another {option}, or the same sizes"
            )
    except BaseException:
        store.close()
        raise
    return store, storing


# ---------------------------------------------------------------------------
# Pages


def _page_urls(store: Store, bots: int, requests: int, rng: random.Random) -> dict[str, list[str]]:
    """Some URLs of each kind of page (chosen once, asked in turn); each match page is
    of another match while the store holds enough (a first view: nothing kept from an
    earlier one)."""
    pages = -(-store.count_matches() // PER_PAGE)
    total = store.count_matches()
    numbers = rng.sample(range(total), min(total, requests + 1))
    shown = [store.match_listings(offset=n, limit=1)[0].id for n in numbers]
    middle = datetime.now(UTC) - timedelta(days=180)
    picks = [bot_name(rng.randrange(bots)) for _ in range(10)]
    return {
        "healthz": ["/healthz"],
        "leaderboard": [f"/leaderboard?variant={variant}" for variant in VARIANTS],
        "matches": ["/matches"],
        "matches by variant": [f"/matches?variant={variant}" for variant in VARIANTS],
        "matches by bot": [f"/matches?bot={bot}" for bot in picks],
        "matches deep page": [f"/matches?page={max(1, pages - k)}" for k in range(5)],
        "matches text search": [f"/matches?q={bot[:-1]}" for bot in picks],
        "matches broad text search": [f"/matches?q={text}" for text in BROAD_TEXTS],
        "matches result and dates": [
            f"/matches?result=draw&since={(middle - timedelta(days=30)).date()}"
            f"&until={middle.date()}",
            f"/matches?result=team0&variant=sanfu&since={middle.date()}",
        ],
        "bot page": [f"/bots/{bot}" for bot in picks],
        "match page": [f"/matches/{match_id}" for match_id in shown],
        **_long_pages(store),
    }


def _long_pages(store: Store) -> dict[str, list[str]]:
    """The long matches' pages (each copy once: first views), one deal and every deal."""
    urls: dict[str, list[str]] = {}
    for variant, numbers in long_numbers(store.count_matches()).items():
        listings = [store.match_listing(f"bench-{number:06d}") for number in numbers]
        found = [listing for listing in listings if listing and listing.variant == variant]
        if not found or len(found) < len(numbers):
            continue  # a store built before it held long matches
        kind = f"match page, {variant} {counted(found[0].deals, 'deal')}"
        urls[kind] = [f"/matches/{listing.id}" for listing in found]
        urls[kind + WHOLE] = [f"/matches/{listing.id}?deal=all" for listing in found]
    return urls


async def time_pages(
    stores: Mapping[str, Store], bots: int, requests: int, seed: int
) -> dict[str, Timings]:
    """Ask each kind of page ``requests`` times of each store's site, after one warm-up:
    the kinds in turn, each kind of each store in turn (the order of the stores
    alternating from round to round), so that every figure sees the same machine load.
    The URLs are chosen on the first store (the stores hold the same matches)."""
    import httpx

    from arena.web.app import create_app
    from arena.web.viewer import Viewer

    names = list(stores)
    urls = _page_urls(stores[names[0]], bots, requests, random.Random(seed))
    timings = {name: Timings() for name in names}
    async with contextlib.AsyncExitStack() as stack:
        clients = {
            name: await stack.enter_async_context(
                httpx.AsyncClient(
                    transport=httpx.ASGITransport(app=create_app(Viewer(store))),
                    base_url="http://bench",
                )
            )
            for name, store in stores.items()
        }
        for round_ in range(requests + 1):
            order = names if round_ % 2 == 0 else names[::-1]
            for kind, choices in urls.items():
                url = choices[round_ % len(choices)]
                for name in order:
                    started = time.perf_counter()
                    response = await clients[name].get(url)
                    seconds = time.perf_counter() - started
                    if response.status_code != 200:
                        raise BenchError(f"{url} answered {response.status_code} ({name})")
                    if round_:  # the first round warms caches up
                        timings[name].add(kind, seconds, len(response.content))
    return timings


# ---------------------------------------------------------------------------
# The live table


class PacedBot:
    """A random bot that thinks :data:`LIVE_PACE` seconds before each decision."""

    def __init__(self, seed: int) -> None:
        self._bot = RandomBot(seed)

    def act(self, observation: Observation) -> Action | str:
        time.sleep(LIVE_PACE)
        return self._bot.act(observation)


class _Stamps:
    """When the session handed each event batch to its spectators (by its last seq)."""

    def __init__(self) -> None:
        self.at: dict[int, float] = {}
        self._lock = threading.Lock()

    def watcher(self, message: arena_pb2.WatchMessage | None) -> None:
        now = time.monotonic()
        if message is not None and message.live and message.HasField("events"):
            with self._lock:
                for event in message.events.events:
                    self.at.setdefault(event.seq, now)

    def get(self, seq: int) -> float | None:
        with self._lock:
            return self.at.get(seq)


async def _watch(session: MatchSession, stamps: _Stamps) -> None:
    """Stamp the session's event batches (on its event loop, between its steps)."""
    session.watch(stamps.watcher, 0)


class _LoopThread:
    """An event loop in a background thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coroutine: Coroutine[Any, Any, T], seconds: float = 30.0) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(seconds)

    def close(self) -> None:
        """Cancel what still runs on the loop (a stream's watchers), then stop it."""
        self.run(_cancel_tasks())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


async def _cancel_tasks() -> None:
    tasks = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


@contextlib.contextmanager
def _quiet(*names: str) -> Iterator[None]:
    """These loggers say only warnings and errors for a while."""
    loggers = [logging.getLogger(name) for name in names]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


def measure_live(variant: str, seed: int) -> list[float]:
    """Seconds from a session's hand-over of each event batch to its frame's arrival."""
    from arena.server.app import start_server
    from arena.server.auth import hash_secret
    from arena.server.play import PlayConfig

    owner = f"ok_{secrets.token_urlsafe(16)}"
    with tempfile.TemporaryDirectory(prefix="arena-bench-web-") as folder:
        store = Store.open(Path(folder) / "live.sqlite")
        server = _LoopThread()
        bots = _LoopThread()
        try:
            running = server.run(
                start_server(
                    store,
                    port=0,
                    web_port=0,
                    owner_keys={hash_secret(owner): "bench"},
                    play=PlayConfig(max_deals=LIVE_DEALS),
                )
            )
            try:
                token = _register(running.port, owner)
                played = asyncio.run_coroutine_threadsafe(
                    _play_paced(running.port, token, variant, seed), bots.loop
                )
                session = _running_session(running.play.sessions)
                stamps = _Stamps()
                server.run(_watch(session, stamps))
                delays = asyncio.run(_follow(running.web_port, session.match_id, stamps))
                played.result(LIVE_TIMEOUT)
            finally:
                server.run(running.stop(0, drain=0))
        finally:
            bots.close()
            server.close()
            store.close()
    return delays


def _register(port: int, owner: str) -> str:
    import grpc

    from arena._proto.arena.v1 import arena_pb2, arena_pb2_grpc

    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        answer = arena_pb2_grpc.RegistryStub(channel).Register(
            arena_pb2.RegisterRequest(name="bench-paced"),
            metadata=(("authorization", f"Bearer {owner}"),),
        )
    token: str = answer.token
    return token


async def _play_paced(port: int, token: str, variant: str, seed: int) -> None:
    from arena.client.runner import run_bot_async

    await run_bot_async(
        PacedBot(seed),
        f"127.0.0.1:{port}",
        token,
        [variant],
        False,
        1,
        max_retries=0,
        fill_after=0.01,
        fill_bot="random",
    )


def _running_session(sessions: Mapping[str, MatchSession]) -> MatchSession:
    """The one session the server runs, once it does."""
    deadline = time.monotonic() + LIVE_TIMEOUT
    while time.monotonic() < deadline:
        for session in list(sessions.values()):
            return session
        time.sleep(0.005)
    raise BenchError(f"no match started within {LIVE_TIMEOUT:.0f} s")


async def _follow(port: int | None, match_id: str, stamps: _Stamps) -> list[float]:
    """Read the live table's frames to the result; each batch's first frame's delay."""
    import httpx

    if port is None:
        raise BenchError("the server has no web face")
    url = f"http://127.0.0.1:{port}/api/matches/{match_id}/live"
    connected = time.monotonic()
    delays: dict[int, float] = {}
    event = ""
    async with (
        httpx.AsyncClient(timeout=LIVE_TIMEOUT) as client,
        client.stream("GET", url) as response,
    ):
        if response.status_code != 200:
            raise BenchError(f"{url} answered {response.status_code}")
        async for line in response.aiter_lines():
            now = time.monotonic()
            if line.startswith("event:"):
                event = line.partition(":")[2].strip()
            elif line.startswith("data:") and event == "frame":
                seq = int(json.loads(line.partition(":")[2]).get("seq", 0))
                emitted = stamps.get(seq)
                if emitted is not None and emitted > connected and seq not in delays:
                    delays[seq] = now - emitted
            elif line.startswith("data:") and event == "result":
                break
    if not delays:
        raise BenchError("the live table sent no frame of an event emitted after it connected")
    return list(delays.values())


# ---------------------------------------------------------------------------
# The report


def measure(
    db: Path | None,
    bots: int,
    matches: int,
    requests: int,
    seed: int,
    live: bool = True,
    backends: Sequence[str] = (SQLITE,),
    postgres: str | None = None,
) -> dict[str, Any]:
    """Build or open each backend's store, time the pages on each and the live table
    once; the report (:mod:`arena.commands.bench_web_report`)."""
    with contextlib.ExitStack() as stack:
        found = stack.enter_context(places(backends, db, postgres))
        stores: dict[str, Store] = {}
        opened: dict[str, dict[str, Any]] = {}
        for place in found:
            option = "--db" if place.backend == SQLITE else "--postgres"
            started = time.perf_counter()
            store, storing = open_store(
                place.location, bots, matches, seed, NAMES[place.backend], option
            )
            stores[place.backend] = stack.enter_context(store)
            where = place.described
            if place.backend == POSTGRESQL:
                where += f" (PostgreSQL {server_version(place.location)})"
            opened[place.backend] = {
                "where": where,
                "store_built": storing is not None,
                "store_seconds": time.perf_counter() - started,
                "storing": None if storing is None else storing.figures(),
            }
        stack.enter_context(_quiet(*QUIET))
        timings = asyncio.run(time_pages(stores, bots, requests, seed))
        delays = measure_live("guandan", seed) if live else None
    return report(
        bots,
        matches,
        {name: store_report(opened[name], timings[name]) for name in opened},
        delays,
    )


def run_web_bench(args: argparse.Namespace) -> int:
    """``arena bench web``."""
    if args.matches < 1 or args.requests < 1:
        raise ConfigError("--matches and --requests must be at least 1")
    found = measure(
        args.db,
        args.bots,
        args.matches,
        args.requests,
        args.seed,
        live=True,
        backends=args.backends,
        postgres=args.postgres,
    )
    if args.json:
        print_json(found)
    else:
        print_report(found)
    return 0
