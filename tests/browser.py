"""The web face in a real browser: fixtures and helpers of the browser tests.

- ``browser``: Debian's Chromium (``/usr/bin/chromium``, installed by ``.ci/run``) driven
  by Playwright, which downloads no browser of its own; one for the whole session, each
  test in contexts of its own (fresh cookies), closed at its end. A test whose page
  raised a JavaScript error fails, naming it.
- ``played``: a store of real matches played by the built-in bots (Guandan with a
  tribute deal, Shengji with two and four decks, sanfu, a tournament), rated as a
  league rates them; ``site``: the web face over it, served by uvicorn on 127.0.0.1.
- ``live``: a game server with the web face beside it, and :class:`LiveMatch`: a match
  of one SDK bot (:class:`GatedBot`, which answers only as many decisions as the test
  allows) and three built-in bots, so that a test follows it at its own pace.
- :class:`Timeline`: a stored record replayed by the engine, step by step, with the
  events' numbers (``seq``) the Spectate stream gives them, each seat's hand and the
  action taken: what the drawn table is checked against.
- :func:`shoot`: a screenshot under ``build/screenshots/``.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import itertools
import secrets
import threading
import time
import weakref
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, TypeVar

import pytest

import bots
from arena import cli, games
from arena.cards import format_card
from arena.client import Bot
from arena.games.base import NUM_SEATS, Action, Event, Observation, State
from arena.replay import MatchRecord, replay_entry, start_deal
from arena.sim.jobs import MatchJob
from arena.sim.league import League
from arena.sim.worker import play_job
from arena.store import Store

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page
    from test_server_seats import Arena

T = TypeVar("T")

CHROMIUM = Path("/usr/bin/chromium")
"""Debian's Chromium: the only browser the tests drive."""
CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)
FONTS = Path("/usr/share/fonts")
CJK_FONTS = "**/NotoSansCJK*"
"""Debian's fonts-noto-cjk: the Chinese pages' screenshots need a CJK font."""
ROOT = Path(__file__).resolve().parent.parent
SCREENSHOTS = ROOT / "build" / "screenshots"
WAIT_MS = 20_000
"""How long a browser expectation waits for the page (never reached when all is well)."""
WAIT = 60.0
"""Seconds a test waits for a live match to move (never reached when all is well)."""

DESKTOP = {"width": 1280, "height": 860}
PHONE = {"width": 390, "height": 844}


# -- the browser ----------------------------------------------------------------------


def missing_browser() -> str | None:
    """What the browser tests lack on this machine, or ``None``."""
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is missing (Debian's chromium package; .ci/run installs it)"
    if not any(FONTS.glob(CJK_FONTS)):
        return (
            f"no CJK font ({FONTS / CJK_FONTS}) to draw the Chinese pages "
            "(Debian's fonts-noto-cjk package; .ci/run installs it)"
        )
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright for Python is missing (the project's dev extra)"
    return None


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Headless Chromium from Debian's package, driven by Playwright (a fresh profile
    of its own: Playwright starts it with a new temporary user-data directory). One per
    test module: Playwright's synchronous API holds an event loop running in the main
    thread while it is open, so later modules' ``asyncio.run`` would fail."""
    reason = missing_browser()
    if reason is not None:
        pytest.skip(reason)
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=WAIT_MS)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=list(CHROMIUM_ARGS), headless=True
        )
        try:
            yield launched
        finally:
            launched.close()


@dataclass
class Pages:
    """Opens pages in browser contexts of their own; remembers JavaScript errors."""

    browser: Browser
    contexts: list[BrowserContext] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def open(self, viewport: dict[str, int] | None = None, locale: str = "zh-CN") -> Page:
        """A new page in a new context (no cookies), ``locale`` its Accept-Language."""
        size = viewport or DESKTOP
        context = self.browser.new_context(
            viewport={"width": size["width"], "height": size["height"]}, locale=locale
        )
        context.set_default_timeout(WAIT_MS)
        self.contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: self.errors.append(f"{page.url}: {error}"))
        return page

    def close(self) -> None:
        for context in self.contexts:
            context.close()


@pytest.fixture
def pages(browser: Browser) -> Iterator[Pages]:
    """Pages for one test; the test fails if a page raised a JavaScript error."""
    opened = Pages(browser)
    yield opened
    opened.close()
    assert not opened.errors, "JavaScript errors: " + "; ".join(opened.errors)


def shoot(page: Page, name: str, *, full_page: bool = True) -> Path:
    """Save a screenshot of ``page`` as ``build/screenshots/NAME.png``."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    return path


# -- event loops in threads --------------------------------------------------------------


class LoopThread:
    """An event loop of its own in a background thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coroutine: Coroutine[Any, Any, T], seconds: float = WAIT) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(seconds)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


class WebThread(LoopThread):
    """The web face of a store, served by uvicorn on 127.0.0.1 (any free port)."""

    def __init__(self, store: Store, reports: Path | None = None) -> None:
        from arena.web import app, serving, viewer

        super().__init__()
        face = app.create_app(viewer.Viewer(store, reports=reports))
        self.server = serving.WebServer(face, "127.0.0.1", 0)
        self.port = self.run(self.server.start())
        self.url = f"http://127.0.0.1:{self.port}"

    def close(self) -> None:
        self.run(self.server.stop())
        super().close()


# -- a store of played matches -------------------------------------------------------------


@dataclass(frozen=True)
class Played:
    """The matches of :func:`played`: their ids by name, the tournament's id."""

    path: Path | str
    """The store: an SQLite file, or a PostgreSQL database's URL."""
    reports: Path
    """A folder holding one balance report (``arena balance --json``)."""
    matches: dict[str, str]
    tournament: str
    tournament_matches: tuple[str, ...]
    fillers: tuple[str, ...]

    def all_ids(self) -> list[str]:
        return [*self.matches.values(), *self.tournament_matches, *self.fillers]


SHOWN = {
    # name: variant, deals, players, seed
    "guandan": ("guandan", 2, ("heuristic", "random", "heuristic", "first"), 42),
    "shengji-2": ("shengji-2", 2, ("heuristic", "first", "heuristic", "random"), 42),
    "shengji-4": ("shengji-4", 1, ("heuristic", "random", "first", "heuristic"), 43),
    "sanfu": ("sanfu", 2, ("heuristic", "random", "first", "random"), 44),
}
"""The matches every browser test looks at, one per game drawn."""
MORE = {
    "guandan-refused": ("guandan", 2, ("heuristic", "random", "heuristic", "first"), 41),
}
"""Stored too: a Guandan match whose second deal's tribute is refused (抗贡, GD-15)."""
TOURNAMENT = "cup-browser"
REPORT = "house-balance"
FILLERS = 36
"""Short matches more, so that the match list has pages."""


def _store_played(store: Store, job: MatchJob, tournament: str | None) -> str:
    League(store, job.variant).add(play_job(job), tournament)
    return job.id


def build_played_store(path: Path | str, folder: Path | None = None) -> Played:
    """Play and store the matches (a few seconds): each rated as a league rates it; the
    balance report goes to ``folder`` (by default the store file's)."""
    with Store.open(path) as store:
        store.add_builtin_bots(bots.names())
        matches = {
            name: _store_played(
                store, MatchJob(f"web-{name}", variant, {}, seed, players, max_deals=deals), None
            )
            for name, (variant, deals, players, seed) in {**SHOWN, **MORE}.items()
        }
        store.add_tournament(
            TOURNAMENT,
            "browser cup",
            "shengji-2",
            config={"bots": ["heuristic", "random"], "matches": 2, "deals": 1},
            status="finished",
        )
        cup = tuple(
            _store_played(
                store,
                MatchJob(f"{TOURNAMENT}-{n}", "shengji-2", {}, 50 + n, players, max_deals=1),
                TOURNAMENT,
            )
            for n, players in enumerate(
                [("heuristic", "random", "heuristic", "random"), ("random", "heuristic") * 2]
            )
        )
        names = itertools.cycle(["guandan", "sanfu", "shengji-1"])
        seats = itertools.cycle([("random", "first", "random", "first"), ("first", "random") * 2])
        fillers = tuple(
            _store_played(
                store,
                MatchJob(f"filler-{n:02d}", next(names), {}, 100 + n, next(seats), max_deals=1),
                None,
            )
            for n in range(FILLERS)
        )
    reports = (Path(path).parent if folder is None else folder) / "reports"
    reports.mkdir(exist_ok=True)
    balance = [
        *("balance", "--local", "--deals", "40", "--batch", "20"),
        *("--variant", "guandan", "--variant", "shengji-2"),
        *("--json", str(reports / f"{REPORT}.json"), "--db", str(path)),
    ]
    args = cli.build_parser().parse_args(balance)  # its handler: no logging set up
    with contextlib.redirect_stdout(io.StringIO()):
        assert args.handler(args) == 0
    return Played(path, reports, matches, TOURNAMENT, cup, fillers)


@pytest.fixture(scope="session")
def played(tmp_path_factory: pytest.TempPathFactory) -> Played:
    """A store of real played matches (read-only for the tests)."""
    return build_played_store(tmp_path_factory.mktemp("web") / "played.sqlite")


@contextlib.contextmanager
def serving(played: Played) -> Iterator[WebThread]:
    """The web face of a store of played matches, served for real until the block ends."""
    with Store.open(played.path) as store:
        web = WebThread(store, played.reports)
        try:
            yield web
        finally:
            web.close()


@pytest.fixture(scope="module")
def site(played: Played) -> Iterator[WebThread]:
    """The web face of :func:`played`, served for real."""
    with serving(played) as web:
        yield web


# -- the engine's view of a record -----------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One moment of a replayed deal: as dealt (``taken`` 0), then after each entry."""

    deal: int
    taken: int
    """Record entries of the deal applied."""
    seq: int
    """The number of the last event published by then in the match (0: none yet)."""
    deal_events: int
    """Events of this deal published by then."""
    hands: tuple[tuple[str, ...], ...]
    """Each seat's hand, card codes sorted."""
    seat: int | None
    """Who took the entry that led here."""
    action: Action | None
    """The action taken (``None`` as dealt and for the clock's marks)."""
    phase: str


@dataclass
class ReplayedDeal:
    number: int
    start: State
    events: list[tuple[int, Event]]
    """Every public event of the deal, with its seq."""
    steps: list[Step]

    def step_at(self, seq: int) -> int | None:
        """The index of the step that published the event numbered ``seq`` (``None``:
        the deal had published nothing by then)."""
        for index, step in enumerate(self.steps):
            if step.deal_events and step.seq >= seq:
                first = (
                    step.seq
                    - (
                        step.deal_events - self.steps[index - 1].deal_events
                        if index
                        else step.deal_events
                    )
                    + 1
                )
                return index if first <= seq else None
        raise AssertionError(f"deal {self.number}: no event numbered {seq}")

    def steps_at(self, seq: int) -> list[Step]:
        """The steps a frame numbered ``seq`` may show: the one that published the event
        ``seq`` and those after it that published none; as dealt when the deal had
        published nothing by ``seq``."""
        index = self.step_at(seq)
        if index is None:
            return [self.steps[0]]
        last = self.steps[index].seq
        return [s for s in self.steps[index:] if s.seq == last]


class Timeline:
    """A stored record replayed by the engine, numbered as the Spectate stream numbers
    its events (1, 2, 3 … across the match)."""

    def __init__(self, record: dict[str, Any]) -> None:
        parsed = MatchRecord.from_dict(record)
        self.game = games.make(parsed.game, **parsed.options)
        self.deals: list[ReplayedDeal] = []
        seq = 0
        for number, deal in enumerate(parsed.deals, start=1):
            state = start_deal(self.game, deal)
            replayed = ReplayedDeal(number, start_deal(self.game, deal), [], [])
            for taken, text in enumerate((None, *deal.actions)):
                seat = None if text is None else state.to_act
                action = None
                if text is not None:
                    if not text.startswith("!"):
                        action = Action.from_str(text)
                    replay_entry(state, text)
                for event in state.events[len(replayed.events) :]:
                    seq += 1
                    replayed.events.append((seq, event))
                replayed.steps.append(
                    Step(
                        number,
                        taken,
                        seq,
                        len(replayed.events),
                        hands_of(state),
                        seat,
                        action,
                        state.phase,
                    )
                )
            self.deals.append(replayed)

    def deal(self, number: int) -> ReplayedDeal:
        return self.deals[number - 1]


GATED: weakref.WeakSet[GatedBot] = weakref.WeakSet()
"""Every gated bot not yet freed: a server's fixture opens them all as it stops, so that
none is left waiting in a thread for a test that failed (the process would never exit)."""


def hands_of(state: State) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(sorted(format_card(c) for c in state.hand(s))) for s in range(NUM_SEATS))


def stored_record(path: Path | str, match_id: str) -> dict[str, Any]:
    with Store.open(path, read_only=True) as store:
        match = store.match(match_id)
    assert match is not None, f"match {match_id!r} is not stored"
    return match.record


# -- live matches ----------------------------------------------------------------------------


class GatedBot(Bot):
    """An SDK bot that plays as a built-in bot does, but answers only as many decisions
    as the test has allowed (:meth:`allow`); :meth:`paused_at` waits until it stands
    before its next decision with ``n`` answered."""

    def __init__(self, policy: str = "first") -> None:
        self.policy = bots.make(policy, seed=1)
        self.answered = 0
        self.allowed = 0
        self.waiting = False
        self.ended = False
        self.condition = threading.Condition()
        GATED.add(self)

    def act(self, observation: Observation) -> Action | str:
        with self.condition:
            self.waiting = True
            self.condition.notify_all()
            self.condition.wait_for(lambda: self.answered < self.allowed)
            self.waiting = False
            self.answered += 1
            self.condition.notify_all()
        return self.policy.act(observation)

    def allow(self, decisions: int) -> None:
        with self.condition:
            self.allowed += decisions
            self.condition.notify_all()

    def open(self) -> None:
        """Answer every decision from now on."""
        self.allow(1_000_000)

    def paused_at(self, answered: int) -> None:
        assert self.reach(answered), f"the match ended before {answered} decisions"

    def reach(self, answered: int) -> bool:
        """Allow up to ``answered`` decisions and wait until the bot stands before the
        next one (True) or its match is over (False)."""
        with self.condition:
            self.allowed = max(self.allowed, answered)
            self.condition.notify_all()
            assert self.condition.wait_for(
                lambda: self.ended or (self.waiting and self.answered == answered), WAIT
            ), f"the bot did not stop after {answered} decisions (answered {self.answered})"
            return not self.ended

    def end(self) -> None:
        """Its match is over (or its connection failed): nothing more to wait for."""
        with self.condition:
            self.ended = True
            self.condition.notify_all()


CUP_PLAYER = "cup-player"
"""The remote bot a :meth:`Live.cup` fixture seats (its owner key is the test server's)."""


@dataclass
class Live:
    """A game server with the web face beside it (:func:`live`)."""

    arena: Arena
    store: Store
    url: str

    def match(self, variant: str, name: str, policy: str = "first") -> LiveMatch:
        return LiveMatch(self.arena, variant, name, policy)

    def cup(self, name: str) -> tuple[str, str, LiveMatch]:
        """A one-match Guandan fixture ``name`` made through Admin, its first seat the
        gated bot ``cup-player`` (connected by the returned match), the others built in:
        the tournament's id, the id of the match it planned, and the match being played."""
        import grpc
        from test_server import ADMIN, bearer

        from arena._proto.arena.v1 import arena_pb2, arena_pb2_grpc

        (token,) = self.arena.tokens(CUP_PLAYER)
        with grpc.insecure_channel(self.arena.address) as channel:
            created = arena_pb2_grpc.AdminStub(channel).CreateFixture(
                arena_pb2.CreateFixtureRequest(
                    name=name,
                    variant="guandan",
                    players=[CUP_PLAYER, "random", "first", "random"],
                    matches=1,
                    deals=1,
                    seed=7,
                ),
                metadata=bearer(ADMIN),
            )
        match = LiveMatch(self.arena, "guandan", CUP_PLAYER, token=token)
        return created.tournament_id, created.match_ids[0], match


@contextlib.contextmanager
def serving_live(path: Path | str, max_deals: int) -> Iterator[Live]:
    """A real server on 127.0.0.1 over a new store at ``path`` (a file or a URL), with its
    web face (both on free ports): matches of ``max_deals`` deals, a minute a decision (a
    paused bot never runs out of time)."""
    from test_server_seats import Arena, clock

    from arena.server.play import PlayConfig

    play = PlayConfig(clock=clock(decision=60.0), max_deals=max_deals)
    with Store.open(path) as store:
        arena = Arena(store, play, web_port=0)
        try:
            yield Live(arena, store, f"http://127.0.0.1:{arena.running.web_port}")
        finally:
            for bot in list(GATED):
                bot.open()
            arena.close()


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    """:func:`serving_live`, one-deal matches."""
    with serving_live(tmp_path_factory.mktemp("live") / "arena.sqlite", 1) as served:
        yield served


class LiveMatch:
    """One casual match on ``arena`` of a :class:`GatedBot` (player 0) and three
    built-in bots filling the other seats, played by the SDK in a thread of its own."""

    def __init__(
        self,
        arena: Arena,
        variant: str,
        name: str,
        policy: str = "first",
        token: str | None = None,
    ) -> None:
        """``token``: a bot registered already (one a fixture waits for: it is seated
        there, no built-in bots are asked for); else ``name`` is registered."""
        from arena.client.runner import run_bot_async

        self.arena = arena
        self.name = name
        self.bot = GatedBot(policy)
        fill_after = 0.01 if token is None else None
        if token is None:
            (token,) = arena.tokens(name)
        self.errors: list[BaseException] = []

        def play() -> None:
            try:
                asyncio.run(
                    run_bot_async(
                        self.bot,
                        arena.address,
                        token,
                        [variant],
                        rated=False,
                        matches=1,
                        fill_after=fill_after,
                        fill_bot="random",
                    )
                )
            except BaseException as err:  # shown by finish()
                self.errors.append(err)
            finally:
                self.bot.end()

        self.thread = threading.Thread(target=play, daemon=True)
        self.thread.start()
        assert self.bot.reach(0), f"the match of {name} did not start: {self.errors}"
        self.id = self._running_id()

    def _running_id(self) -> str:
        async def find() -> list[str]:
            sessions = self.arena.running.play.sessions
            return [m for m, s in sessions.items() if self.name in s.players]

        (match_id,) = self.arena.run(find())
        return match_id

    def reach(self, answered: int) -> bool:
        """:meth:`GatedBot.reach`."""
        return self.bot.reach(answered)

    def finish(self) -> None:
        """Let the bot answer everything and wait for the match's end."""
        self.bot.open()
        self.thread.join(WAIT)
        assert not self.thread.is_alive(), f"live match {self.id} did not end"
        assert not self.errors, f"the bot of live match {self.id} failed: {self.errors}"


def pinned_seed(monkeypatch: pytest.MonkeyPatch, seed: int = 5) -> None:
    """Every match the server starts from now on gets ``seed`` (the same cards, and the
    built-in bots the same choices, every run: a failure replays)."""
    from arena.server import session

    monkeypatch.setattr(
        session,
        "secrets",
        SimpleNamespace(randbits=lambda bits: seed, token_hex=secrets.token_hex),
    )


def wait_until(check: Callable[[], bool], what: str, seconds: float = WAIT) -> None:
    """Poll ``check`` (something another thread moves) until true."""
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, f"{what}: not after {seconds:g} s"
        time.sleep(0.02)
